#!/usr/bin/env python3
"""Dev only: do two ONNX exports of all-MiniLM-L6-v2 make the same duplicate decisions?

Embeds every report of a dupes JSONL file (``title`` + blank line + ``body``,
as a brief would read) with both models, the way agentos embeds (tokenizer.json,
[CLS] + at most 254 word pieces + [SEP], mean pooling, L2 norm), then for each
report finds its most similar other report (top-1) and the band agentos would
put that score in (>= 0.85 duplicate, >= 0.5 related, else none). Reports:
top-1 agreement, band agreement, the score differences, and for each model how
often top-1 is the labelled duplicate (``duplicate_of``).

Usage: compare-models-dupes.py <a.onnx> <b.onnx> <tokenizer.json> <dupes.jsonl> [--limit N] [--batch-a 32] [--batch-b 1]
"""
import argparse
import json
import sys
import time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

DUP, RELATED = 0.85, 0.5


def embed(onnx_path, tok, texts, batch=32):
    opts = ort.SessionOptions()
    sess = ort.InferenceSession(onnx_path, opts, providers=["CPUExecutionProvider"])
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    rows = [[cls] + tok.encode(t, add_special_tokens=False).ids[:254] + [sep] for t in texts]
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
    out = np.zeros((len(rows), 384), np.float32)
    for s in range(0, len(order), batch):
        idx = order[s : s + batch]
        seq = max(len(rows[i]) for i in idx)
        ids = np.zeros((len(idx), seq), np.int64)
        mask = np.zeros((len(idx), seq), np.int64)
        for j, i in enumerate(idx):
            ids[j, : len(rows[i])] = rows[i]
            mask[j, : len(rows[i])] = 1
        hidden = sess.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
        m = mask[..., None].astype(np.float32)
        v = (hidden * m).sum(1) / m.sum(1)
        out[idx] = v / np.linalg.norm(v, axis=1, keepdims=True)
    return out


def band(score):
    return np.where(score >= DUP, 2, np.where(score >= RELATED, 1, 0))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("tokenizer")
    ap.add_argument("dupes")
    ap.add_argument("--limit", type=int, default=0)
    # agentos runs the int8 model one text per run (its activation scales are per batch).
    ap.add_argument("--batch-a", type=int, default=32)
    ap.add_argument("--batch-b", type=int, default=1)
    args = ap.parse_args()
    items = [json.loads(line) for line in open(args.dupes, encoding="utf-8") if line.strip()]
    if args.limit:
        items = items[: args.limit]
    texts = [f"{it['title']}\n\n{it.get('body') or ''}" for it in items]
    ids = [it["id"] for it in items]
    tok = Tokenizer.from_file(args.tokenizer)
    res = {}
    for name, path, batch in (("a", args.a, args.batch_a), ("b", args.b, args.batch_b)):
        t0 = time.time()
        e = embed(path, tok, texts, batch)
        sim = e @ e.T
        np.fill_diagonal(sim, -2)
        top = sim.argmax(1)
        res[name] = (top, sim[np.arange(len(top)), top], sim)
        print(f"{name}: embedded {len(texts)} reports in {time.time() - t0:.0f} s", file=sys.stderr)
    (ta, sa, sima), (tb, sb, simb) = res["a"], res["b"]
    n = len(texts)
    ba, bb = band(sa), band(sb)
    cos_pair = np.abs(sima - simb)[~np.eye(n, dtype=bool)]
    labelled = [(i, ids.index(it["duplicate_of"])) for i, it in enumerate(items) if it.get("duplicate_of") in ids]
    hit = lambda top: sum(1 for i, j in labelled if top[i] == j)
    # A top-1 change between near-tied candidates is not a decision change: count those apart.
    tie = np.abs(sima[np.arange(n), tb] - sa) < 0.01
    report = {
        "reports": n,
        "top1_same": int((ta == tb).sum()),
        "top1_changed_near_tie": int(((ta != tb) & tie).sum()),
        "band_same": int((ba == bb).sum()),
        "band_changes": {f"{x}->{y}": int(((ba == x) & (bb == y)).sum()) for x in range(3) for y in range(3) if x != y},
        "top1_score_abs_diff": {"max": float(np.abs(sa - sb).max()), "mean": float(np.abs(sa - sb).mean())},
        "pair_score_abs_diff": {"max": float(cos_pair.max()), "mean": float(cos_pair.mean()), "p99": float(np.quantile(cos_pair, 0.99))},
        "bands_a": {k: int((ba == v).sum()) for k, v in (("duplicate", 2), ("related", 1), ("none", 0))},
        "bands_b": {k: int((bb == v).sum()) for k, v in (("duplicate", 2), ("related", 1), ("none", 0))},
        "labelled_pairs": len(labelled),
        "top1_is_labelled_duplicate": {"a": hit(ta), "b": hit(tb)},
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
