/** The project's own line (issue 48): a refit measured out of sample beside the shipped model, kept only when it wins there. */
import { FEATURE_NAMES, type Features } from '../../src/work-memory/scoring/features.js';
import { trackerSameWorkModel } from '../../src/work-memory/scoring/calibrated.js';
import {
  fitLogistic,
  foldsOf,
  refitReport,
  decideBrief,
  MIN_PROJECT_LABELS,
  type LabelledBrief,
} from '../../src/work-memory/eval/refit.js';

const LINES = { duplicate: 0.85, related: 0.5 };
const zero = (): Features => Object.fromEntries(FEATURE_NAMES.map((n) => [n, 0])) as Features;
/** A seeded generator: the same briefs every run. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/**
 * A tracker where the shipped evidence (gap, standout) is noise and filing order tells the original apart:
 * its duplicates are filed next to their originals. The shipped model cannot see that; a refit can.
 */
function tracker(duplicates: number, others: number, seed = 7): LabelledBrief[] {
  const r = rng(seed);
  const cand = (label: 0 | 1, i: number) => {
    const f = zero();
    f.cosine = 0.6 + 0.2 * r();
    f.cosineMean = f.cosine;
    f.lexBrief = 0.2 + 0.1 * r();
    f.gap = 0.1 * (r() - 0.5);
    f.standout = 0.1 * r();
    f.filedNear = label ? 0.9 + 0.1 * r() : 0.6 * r();
    return { path: `r${i}`, label, features: f };
  };
  const out: LabelledBrief[] = [];
  for (let i = 0; i < duplicates; i++)
    out.push({
      id: `d${i}`,
      cluster: `o${i}`,
      target: `o${i}`,
      candidates: [{ ...cand(1, i), path: `o${i}` }, ...[1, 2, 3, 4].map((j) => cand(0, 1000 + i * 10 + j))],
    });
  for (let i = 0; i < others; i++)
    out.push({
      id: `n${i}`,
      cluster: `n${i}`,
      target: null,
      candidates: [1, 2, 3, 4, 5].map((j) => cand(0, 5000 + i * 10 + j)),
    });
  return out;
}

test('too few labels: nothing is fitted, and the report says how many there are and how many it needs', () => {
  const r = refitReport(tracker(MIN_PROJECT_LABELS.duplicates - 1, 40), trackerSameWorkModel(), LINES);
  expect(r.model).toBeNull();
  expect(r.earned).toBe(false);
  expect(r.verdict).toBe(
    `too few labels: ${MIN_PROJECT_LABELS.duplicates - 1} labelled duplicates and 40 reports with nothing to find; a refit needs ${MIN_PROJECT_LABELS.duplicates} and ${MIN_PROJECT_LABELS.others}`,
  );
});

test('a project whose duplicates are told apart by what the shipped model does not weigh: the refit wins out of sample and is kept', () => {
  const briefs = tracker(60, 60);
  const r = refitReport(briefs, trackerSameWorkModel(), LINES);
  expect(r.earned).toBe(true);
  expect(r.refit!.auc).toBeGreaterThan(r.shipped!.auc + 0.1);
  expect(r.refit!.top1).toBeGreaterThan(0.9);
  // Never by alerting more: reports with nothing to find alert at most as often as the shipped model lets them (or 3%).
  expect(r.refit!.alert.falseAlerts).toBeLessThanOrEqual(Math.max(r.shipped!.alert.falseAlerts, 0.03));
  expect(r.model!.features.filedNear!.weight).toBeGreaterThan(0);
  expect(r.model!.floors).toEqual(trackerSameWorkModel().floors);
});

test('a project where nothing but noise is left to learn: the refit does not beat the shipped model and is not kept', () => {
  const briefs = tracker(60, 60).map((b) => ({
    ...b,
    candidates: b.candidates.map((c) => ({ ...c, features: { ...c.features, filedNear: 0.5 } })),
  }));
  const r = refitReport(briefs, trackerSameWorkModel(), LINES);
  expect(r.earned).toBe(false);
  expect(r.verdict).toMatch(/^not kept: /);
});

test('folds never split a duplicate cluster, and every brief is in exactly one', () => {
  const briefs = tracker(40, 40).flatMap((b) => (b.target ? [b, { ...b, id: `${b.id}-again` }] : [b]));
  const folds = foldsOf(briefs);
  expect(folds.flat()).toHaveLength(briefs.length);
  for (const b of briefs) expect(folds.filter((f) => f.some((x) => x.cluster === b.cluster))).toHaveLength(1);
});

test('the fit finds the direction of a separating feature; the decision ranks by the calibrated score', () => {
  const samples = Array.from({ length: 200 }, (_, i) => {
    const f = zero();
    f.title = i % 2 ? 0.8 : 0.1;
    return { y: (i % 2) as 0 | 1, f };
  });
  const m = fitLogistic(samples, ['title'], { related: 0, duplicate: 0 });
  expect(m.features.title!.weight).toBeGreaterThan(1);
  const b: LabelledBrief = {
    id: 'b',
    cluster: 'c',
    target: 'yes',
    candidates: [
      { path: 'no', label: 0, features: samples[0].f },
      { path: 'yes', label: 1, features: samples[1].f },
    ],
  };
  expect(decideBrief(m, b, LINES)).toMatchObject({ topPath: 'yes', targetRank: 1 });
});

test('a report and its original asked in turn are one cluster (A finds B, B finds A): no fold trains on one and measures the other', async () => {
  const { labelledBriefs } = await import('../../src/cli/commands/calibrate/index.js');
  const f = zero();
  const cand = (path: string, label: 0 | 1) => ({ path, label, score: 0.5, features: f });
  const q = (id: string, target: string | null, history: ReturnType<typeof cand>[]) => ({
    id,
    target,
    top: 0.5,
    topPath: null,
    targetRank: null,
    targetScore: null,
    ms: 0,
    history,
  });
  const briefs = labelledBriefs([
    q('tracker:t#1', 'tracker:t#2', [cand('tracker:t#2', 1), cand('tracker:t#9', 0)]),
    q('tracker:t#2', 'tracker:t#1', [cand('tracker:t#1', 1), cand('tracker:t#9', 0)]),
    // A third report of the same bug, whose labelled original is the second.
    q('tracker:t#3', 'tracker:t#2', [cand('tracker:t#2', 1)]),
    q('tracker:t#9', null, [cand('tracker:t#1', 0)]),
  ]).get('this project')!;
  const cluster = Object.fromEntries(briefs.map((b) => [b.id, b.cluster]));
  expect(cluster['tracker:t#1']).toBe(cluster['tracker:t#2']);
  expect(cluster['tracker:t#3']).toBe(cluster['tracker:t#1']);
  expect(cluster['tracker:t#9']).not.toBe(cluster['tracker:t#1']);
});

test('a project with no tracker (its candidates are files, not reports) has no line to measure: no brief is labelled', async () => {
  const { labelledBriefs } = await import('../../src/cli/commands/calibrate/index.js');
  const f = zero();
  const briefs = labelledBriefs([
    {
      id: 'docs/audit/done/1/001-issue.md',
      target: 'docs/audit/done/2/001-issue.md',
      top: 0.9,
      topPath: null,
      targetRank: 1,
      targetScore: 0.9,
      ms: 0,
      history: [{ path: 'docs/audit/done/2/001-issue.md', label: 1, score: 0.9, features: f }],
    },
    {
      id: 'docs/audit/done/3/001-issue.md',
      target: null,
      top: 0.2,
      topPath: null,
      targetRank: null,
      targetScore: null,
      ms: 0,
      history: [{ path: 'docs/audit/done/2/001-issue.md', label: 0, score: 0.2, features: f }],
    },
  ]);
  expect(briefs.size).toBe(0);
});
