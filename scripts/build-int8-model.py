#!/usr/bin/env python3
"""Build the dynamically quantized (int8 GEMM) ONNX file of all-MiniLM-L6-v2.

Input: the PyTorch weights of sentence-transformers/all-MiniLM-L6-v2 as
``model.safetensors`` (pinned by scripts/provision-model.sh). No torch: the
BERT graph is written op by op with ``onnx.helper`` (fp32, opset 17), then
ONNX Runtime's ``quantize_dynamic`` turns every weight MatMul into
DynamicQuantizeLinear + MatMulInteger (int8 weights, uint8 activations) and the
embedding tables into int8 Gathers.

Weights are quantized per output channel with ``reduce_range`` (7-bit): on AVX2
CPUs without VNNI the u8*s8 kernels sum pairs into int16 and can saturate with
full-range weights; 7 bits cannot. The fidelity is checked by
scripts/check-model-fidelity.py against sentence-transformers' vectors.

Deterministic: the same safetensors and the same onnx / onnxruntime / numpy
versions (pinned by the provisioning script) give the same bytes.

Usage:
  build-int8-model.py <model.safetensors> <recipe.json> <out.onnx>
  build-int8-model.py <model.safetensors> <recipe.json> --calibrate --tokenizer <tokenizer.json> \\
      --calibration <text files...> [--alpha 0.8] [--keep-fp32 <linear>...]     (dev only)
"""
import argparse
import json
import os
import struct
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HIDDEN, HEADS, LAYERS, INTER, EPS = 384, 12, 6, 1536, 1e-12
HEAD_DIM = HIDDEN // HEADS


def read_safetensors(path):
    """The format is an 8-byte little-endian header length, a JSON header, then raw tensors."""
    dtypes = {"F32": np.float32, "I64": np.int64}
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        out[name] = np.frombuffer(data[start:end], dtype=dtypes[meta["dtype"]]).reshape(meta["shape"]).copy()
    return out


class Graph:
    def __init__(self, smooth=None):
        self.nodes, self.inits, self.n = [], [], 0
        # input tensor name -> (per-channel divisor s, name of the smoothed tensor)
        self.smooth = smooth or {}
        self.smoothed = {}
        self.linear_inputs = []

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, op_type, inputs, name_hint, **attrs):
        self.n += 1
        out = f"{name_hint}_{self.n}"
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=f"{op_type}_{self.n}", **attrs))
        return out

    def linear(self, x, w, b, prefix):
        # torch Linear stores [out, in]; MatMul wants [in, out].
        wt_arr = np.ascontiguousarray(w.T)
        key = prefix.rsplit(".", 1)[0] if ".attention.self." in prefix else prefix
        self.linear_inputs.append((key, x, wt_arr))
        if key in self.smooth:
            # SmoothQuant: x/s and diag(s)·W give the same product in fp32, but move the
            # activation outliers (a few channels 30-100x the rest) into the weights, which
            # are quantized per channel. One Mul per input, shared by Q, K and V.
            s = self.smooth[key].astype(np.float32)
            if key not in self.smoothed:
                self.smoothed[key] = self.op("Mul", [x, self.const(f"{key}.smooth_inv", (1.0 / s).astype(np.float32))], key + "_smooth")
            x = self.smoothed[key]
            wt_arr = np.ascontiguousarray(wt_arr * s[:, None])
        wt = self.const(f"{prefix}.weight_t", wt_arr)
        bias = self.const(f"{prefix}.bias", b)
        return self.op("Add", [self.op("MatMul", [x, wt], prefix + "_mm"), bias], prefix)

    def layer_norm(self, x, w, b, prefix):
        return self.op(
            "LayerNormalization",
            [x, self.const(f"{prefix}.weight", w), self.const(f"{prefix}.bias", b)],
            prefix,
            axis=-1,
            epsilon=EPS,
        )


def build_fp32(weights, smooth=None):
    g = Graph(smooth)
    W = weights
    ids, mask, types = "input_ids", "attention_mask", "token_type_ids"
    # Embeddings: word + position (0..S-1) + token type, then LayerNorm.
    seq = g.op("Gather", [g.op("Shape", [ids], "shape"), g.const("one_i64", np.array(1, np.int64))], "seq", axis=0)
    pos = g.op("Range", [g.const("zero_i64", np.array(0, np.int64)), seq, "one_i64"], "pos")
    word = g.op("Gather", [g.const("embeddings.word_embeddings.weight", W["embeddings.word_embeddings.weight"]), ids], "word")
    posv = g.op("Gather", [g.const("embeddings.position_embeddings.weight", W["embeddings.position_embeddings.weight"]), pos], "posv")
    typev = g.op("Gather", [g.const("embeddings.token_type_embeddings.weight", W["embeddings.token_type_embeddings.weight"]), types], "typev")
    x = g.op("Add", [g.op("Add", [word, typev], "wt"), posv], "emb")
    x = g.layer_norm(x, W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"], "embeddings.LayerNorm")
    # Additive mask [B,1,1,S]: 0 where attended, a large negative where padded.
    maskf = g.op("Cast", [mask], "maskf", to=TensorProto.FLOAT)
    inv = g.op("Sub", [g.const("one_f", np.array(1.0, np.float32)), maskf], "inv")
    neg = g.op("Mul", [inv, g.const("neg_big", np.array(-10000.0, np.float32))], "neg")
    ext = g.op("Unsqueeze", [neg, g.const("axes_12", np.array([1, 2], np.int64))], "ext_mask")
    split_shape = g.const("split_shape", np.array([0, 0, HEADS, HEAD_DIM], np.int64))
    merge_shape = g.const("merge_shape", np.array([0, 0, HIDDEN], np.int64))
    scale = g.const("scale", np.array(1.0 / np.sqrt(HEAD_DIM), np.float32))
    sqrt2 = g.const("sqrt2", np.array(np.sqrt(2.0), np.float32))
    half = g.const("half", np.array(0.5, np.float32))
    for i in range(LAYERS):
        p = f"encoder.layer.{i}"

        def lin(x, name):
            return g.linear(x, W[f"{p}.{name}.weight"], W[f"{p}.{name}.bias"], f"{p}.{name}")

        def heads(t, perm):
            return g.op("Transpose", [g.op("Reshape", [t, split_shape], "split")], "heads", perm=perm)

        q = heads(lin(x, "attention.self.query"), [0, 2, 1, 3])
        k = heads(lin(x, "attention.self.key"), [0, 2, 3, 1])
        v = heads(lin(x, "attention.self.value"), [0, 2, 1, 3])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k], "qk"), scale], "scaled"), ext], "scores")
        probs = g.op("Softmax", [scores], "probs", axis=-1)
        ctx = g.op("Transpose", [g.op("MatMul", [probs, v], "ctx")], "ctx_t", perm=[0, 2, 1, 3])
        ctx = g.op("Reshape", [ctx, merge_shape], "ctx_m")
        attn = lin(ctx, "attention.output.dense")
        x1 = g.layer_norm(g.op("Add", [attn, x], "res1"), W[f"{p}.attention.output.LayerNorm.weight"], W[f"{p}.attention.output.LayerNorm.bias"], f"{p}.attention.output.LayerNorm")
        h = lin(x1, "intermediate.dense")
        # Exact (erf) GELU, as BERT uses; ORT fuses this pattern into one Gelu node.
        erf = g.op("Erf", [g.op("Div", [h, sqrt2], "gdiv")], "erf")
        h = g.op("Mul", [g.op("Mul", [h, g.op("Add", [erf, "one_f"], "gadd")], "gmul"), half], "gelu")
        out = lin(h, "output.dense")
        x = g.layer_norm(g.op("Add", [out, x1], "res2"), W[f"{p}.output.LayerNorm.weight"], W[f"{p}.output.LayerNorm.bias"], f"{p}.output.LayerNorm")
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))
    dims = ["batch_size", "sequence_length"]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dims) for n in (ids, mask, types)]
    output = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, dims + [HIDDEN])
    graph = helper.make_graph(g.nodes, "all-MiniLM-L6-v2", inputs, [output], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="agentos build-int8-model.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, g


def calibrate(model, g, tokenizer_json, texts, alpha):
    """Per input channel of every linear: s = max|x|^alpha / max|w|^(1-alpha), from fp32 runs."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    inputs = {}
    for key, x, wt in g.linear_inputs:
        inputs.setdefault(key, (x, []))[1].append(wt)
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    for x, _ in inputs.values():
        probe.graph.output.append(helper.make_tensor_value_info(x, TensorProto.FLOAT, None))
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(probe.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    tok = Tokenizer.from_file(tokenizer_json)
    tok.enable_truncation(max_length=256)
    names = [x for x, _ in inputs.values()]
    amax = {x: np.zeros(0) for x in names}
    for text in texts:
        enc = tok.encode(text)
        feed = {
            "input_ids": np.array([enc.ids], np.int64),
            "attention_mask": np.array([enc.attention_mask], np.int64),
            "token_type_ids": np.array([enc.type_ids], np.int64),
        }
        for x, a in zip(names, sess.run(names, feed)):
            m = np.abs(a).reshape(-1, a.shape[-1]).max(axis=0)
            amax[x] = m if amax[x].size == 0 else np.maximum(amax[x], m)
    smooth = {}
    for key, (x, wts) in inputs.items():
        wmax = np.max([np.abs(w).max(axis=1) for w in wts], axis=0)
        s = np.power(np.maximum(amax[x], 1e-5), alpha) / np.power(np.maximum(wmax, 1e-5), 1 - alpha)
        smooth[key] = np.clip(s, 1e-3, 1e3)
    return smooth


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("safetensors")
    ap.add_argument("recipe", help="JSON recipe: alpha, keep_fp32 and the smoothing factors per linear input")
    ap.add_argument("out", nargs="?", help="the int8 ONNX file to write (omit with --calibrate)")
    ap.add_argument("--fp32-out", help="also keep the (smoothed) fp32 graph here")
    ap.add_argument("--calibrate", action="store_true", help="dev only: measure activations and write the recipe")
    ap.add_argument("--tokenizer", help="tokenizer.json, for --calibrate")
    ap.add_argument("--calibration", nargs="+", default=[], help="text files to measure activation ranges on (--calibrate)")
    ap.add_argument("--alpha", type=float, default=0.8, help="SmoothQuant migration strength (--calibrate)")
    ap.add_argument("--keep-fp32", nargs="*", default=[], help="linears left in fp32, e.g. encoder.layer.0.output.dense (--calibrate)")
    args = ap.parse_args()
    weights = read_safetensors(args.safetensors)
    if args.calibrate:
        # The factors are measured once and committed: a calibration run's float
        # noise (CPU, ORT version) must not change the bytes provisioning produces.
        model, g = build_fp32(weights)
        texts = []
        for f in sorted(args.calibration):
            with open(f, encoding="utf-8") as fh:
                texts.append(fh.read())
        smooth = calibrate(model, g, args.tokenizer, texts, args.alpha)
        recipe = {
            "alpha": args.alpha,
            "keep_fp32": args.keep_fp32,
            "calibration_files": len(texts),
            "smooth": {k: [float(f"{x:.5g}") for x in v] for k, v in sorted(smooth.items())},
        }
        with open(args.recipe, "w", encoding="utf-8") as fh:
            json.dump(recipe, fh, indent=0, sort_keys=True)
            fh.write("\n")
        print(f"wrote {args.recipe}", file=sys.stderr)
        return
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with open(args.recipe, encoding="utf-8") as fh:
        recipe = json.load(fh)
    smooth = {k: np.asarray(v, np.float32) for k, v in recipe["smooth"].items()}
    model, _ = build_fp32(weights, smooth)
    keep = set(recipe["keep_fp32"])
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = args.fp32_out or os.path.join(tmp, "model_fp32.onnx")
        onnx.save(model, fp32)
        quantize_dynamic(
            fp32,
            args.out,
            weight_type=QuantType.QInt8,
            per_channel=True,
            reduce_range=True,
            op_types_to_quantize=["MatMul", "Gather"],
            nodes_to_exclude=[n.name for n in model.graph.node if n.op_type == "MatMul" and n.output[0].rsplit("_mm_", 1)[0] in keep],
        )
    print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
