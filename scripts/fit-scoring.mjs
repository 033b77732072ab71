#!/usr/bin/env node
// Refit the issue-11 fused score (src/work-memory/scoring/fused.ts WEIGHTS) from `agentos eval --save` output.
// For each direction of the (cosine, lexical) plane it ranks candidates, then places the
// logistic so that 0.5 sits where non-duplicate noise meets the budget and 0.85 where alert
// precision at a 10% base rate meets its target. Prints the best directions by AUC.
// Usage: node scripts/fit-scoring.mjs results.json [noise=0.25] [precision=0.8]
import { readFileSync } from 'node:fs';
import { auc, bandRow } from '../dist/work-memory/eval/metrics.js';

const [file, noiseArg, precArg] = process.argv.slice(2);
const noise = Number(noiseArg ?? 0.25);
const precision = Number(precArg ?? 0.8);
const { results } = JSON.parse(readFileSync(file, 'utf8'));

// The per-query reference: the REF+1-th best value of each part among the query's candidates.
const REF = 3;
const nth = (xs) => [...xs].sort((a, b) => b - a)[Math.min(REF, xs.length - 1)] ?? 0;
function topBy(f) {
  return results.map((r) => {
    let best = null;
    const cs = r.candidates ?? [];
    const ref = { cosine: nth(cs.map((c) => c.cosine)), lexical: nth(cs.map((c) => c.lexical)) };
    for (const c of cs) {
      const s = f({ cosine: c.cosine - ref.cosine, lexical: c.lexical - ref.lexical });
      if (!best || s > best.s) best = { s, path: c.path };
    }
    return { ...r, top: best?.s ?? -1, topPath: best?.path ?? null };
  });
}

const rows = [];
for (let deg = 0; deg <= 90; deg += 2.5) {
  const th = (deg * Math.PI) / 180;
  const f = (c) => Math.cos(th) * c.cosine + Math.sin(th) * c.lexical;
  const rs = topBy(f);
  const pos = rs.filter((r) => r.target !== null);
  const neg = rs.filter((r) => r.target === null);
  const a = auc(
    pos.map((r) => r.top),
    neg.map((r) => r.top),
  );
  const top1 = pos.filter((r) => r.topPath === r.target).length / pos.length;
  // Threshold candidates: every observed top score.
  const cuts = [...new Set(rs.map((r) => r.top))].sort((x, y) => x - y);
  const rel = cuts.find((t) => bandRow(rs, t, 0.1).noise <= noise);
  const dup = cuts.find(
    (t) =>
      t > rel &&
      cuts
        .filter((u) => u >= t)
        .every((u) => bandRow(rs, u, 0.1).precisionAtBase >= precision || bandRow(rs, u, 0.1).recall === 0),
  );
  const relRow = bandRow(rs, rel, 0.1);
  const dupRow = dup !== undefined ? bandRow(rs, dup, 0.1) : null;
  rows.push({
    deg,
    auc: a.toFixed(3),
    top1: top1.toFixed(3),
    relCut: rel?.toFixed(4),
    dupReach: relRow.dupReach.toFixed(3),
    dupCut: dup?.toFixed(4),
    recall: dupRow?.recall.toFixed(3),
    prec: dupRow?.precisionAtBase.toFixed(3),
    // logistic: z = k * (s - rel), k = ln(0.85/0.15) / (dup - rel)
    w:
      dup !== undefined
        ? (() => {
            const k = Math.log(0.85 / 0.15) / (dup - rel);
            return { w0: -k * rel, cosine: k * Math.cos(th), lexical: k * Math.sin(th) };
          })()
        : null,
  });
}
rows.sort((x, y) => Number(y.auc) - Number(x.auc));
for (const r of rows.slice(0, 12)) console.log(JSON.stringify(r));
