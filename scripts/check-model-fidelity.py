#!/usr/bin/env python3
"""Accept or refuse an ONNX export of all-MiniLM-L6-v2 against sentence-transformers.

Embeds the texts of fixtures/model-reference/minilm-reference.json with the
ONNX file (onnxruntime, CPU; tokenizer.json truncating at 256 word pieces, mean
pooling over the mask, L2 normalisation) and compares each with its reference
vector. Prints the cosine per text, the minimum and the mean; exits 1 when any
cosine is <= the threshold (default 0.99). Used by scripts/provision-model.sh
as the gate for the int8 model it builds.

Usage: check-model-fidelity.py <model.onnx> <tokenizer.json> <reference.json> [--min 0.99]
"""
import argparse
import json
import sys

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("onnx")
    ap.add_argument("tokenizer")
    ap.add_argument("reference")
    ap.add_argument("--min", type=float, default=0.99)
    args = ap.parse_args()
    ref = json.load(open(args.reference, encoding="utf-8"))
    tok = Tokenizer.from_file(args.tokenizer)
    tok.enable_truncation(max_length=ref["max_seq_length"])
    tok.no_padding()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(args.onnx, opts, providers=["CPUExecutionProvider"])
    scores = []
    for item in ref["items"]:
        enc = tok.encode(item["text"])
        feed = {
            "input_ids": np.array([enc.ids], np.int64),
            "attention_mask": np.array([enc.attention_mask], np.int64),
            "token_type_ids": np.array([enc.type_ids], np.int64),
        }
        hidden = sess.run(["last_hidden_state"], feed)[0][0]
        v = hidden.mean(axis=0)
        v = v / np.linalg.norm(v)
        r = np.asarray(item["embedding"], np.float64)
        cos = float(np.dot(v, r) / np.linalg.norm(r))
        scores.append(cos)
        print(f"  {cos:.6f}  {item['text'][:60]!r}", file=sys.stderr)
    lo, mean = min(scores), sum(scores) / len(scores)
    ok = lo > args.min
    print(f"fidelity: min {lo:.6f} mean {mean:.6f} over {len(scores)} texts (threshold > {args.min}): {'PASS' if ok else 'FAIL'}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
