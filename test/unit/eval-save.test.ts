/**
 * `eval --save` is an input (`calibrate --results`, scripts/fit-calibration.mjs): the same run gives the same file,
 * so it carries no wall-clock time (issue 49); the printed report keeps its timings.
 */
import { withoutTimings, type EvalReport } from '../../src/cli/commands/eval/index.js';
import { summarize } from '../../src/work-memory/eval/metrics.js';
import { emptyResult } from '../../src/work-memory/eval/run-set.js';

test('a save keeps every figure and every result, and no timing', () => {
  const results = [
    { ...emptyResult('a', 'p', 'duplicate', 'g'), ms: 12.5, top: 0.9, target: 'docs/a.md' },
    { ...emptyResult('b', 'p', 'novel', 'h'), ms: 3.25 },
  ];
  const metrics = summarize(results, { duplicate: 0.85, related: 0.5 });
  expect(metrics.timings.queryMsMedian).toBeGreaterThan(0);
  const report: EvalReport = {
    source: 'set',
    method: 'embedding:m+hnsw',
    scoring: 'calibrated',
    calibration: 'c',
    indexed: 2,
    metrics,
    byProject: { p: metrics },
    timings: { buildMs: 100, queryMs: 16 },
  };
  const saved = JSON.parse(JSON.stringify(withoutTimings(report, results)));
  const text = JSON.stringify(saved);
  expect(text).not.toMatch(/"(ms|timings|buildMs|queryMs|queryMsMedian|queryMsP95)"/);
  expect(saved.report.metrics.top1).toBe(metrics.top1);
  expect(saved.report.byProject.p.auc).toEqual(metrics.auc);
  expect(saved.results.map((r: { id: string; top: number }) => [r.id, r.top])).toEqual([
    ['a', 0.9],
    ['b', 0],
  ]);
  // The report printed keeps them.
  expect(report.timings.buildMs).toBe(100);
  expect(results[0].ms).toBe(12.5);
});
