/**
 * The project's own line (issue 48): the trackers' same-work model refitted on one project's
 * labelled reports, measured out of sample (k-fold by duplicate cluster) beside the shipped
 * model on the same folds, and kept only when it beats it there. Pure: the briefs come with
 * every candidate's features already measured (an evaluation of the project's own links).
 *
 * The fit is a logistic regression (Newton's method, L2 penalty, positives weighted so the fit
 * does not learn "never"), on the trackers' features plus filing order (`filedNear`): the
 * project's own labels may weigh when a report was filed; the shipped model never does.
 * Its intercept is then placed on the training folds so that reports with nothing to find
 * alert no more often than under the shipped model there (at most MAX_FALSE_ALERTS): a refit
 * wins by finding more, never by alerting more, and never by alerting less either (recall held).
 */
import type { LogisticModel } from '../scoring/calibration-types.js';
import { calibratedScore } from '../scoring/calibrated.js';
import type { FeatureName, Features } from '../scoring/features.js';
import { summarize, type EvalMetrics, type QueryResult } from './metrics.js';

/** What a refit may weigh: the shipped trackers' features, and filing order. */
export const PROJECT_FEATURES: FeatureName[] = [
  'gap',
  'standout',
  'lexBrief',
  'title',
  'docChunks',
  'docRareCover',
  'neighbourGap',
  'filedNear',
];
/** Labels needed before a refit is measured at all: fewer say nothing out of sample. */
export const MIN_PROJECT_LABELS = { duplicates: 30, others: 30 };
export const FOLDS = 5;
/** What a refit must gain in AUC over the shipped model, out of sample, to be kept. */
export const MIN_AUC_GAIN = 0.01;
/** The share of reports with nothing to find that may alert under a refit, whatever the shipped model does. */
export const MAX_FALSE_ALERTS = 0.03;

export interface LabelledCandidate {
  path: string;
  /** 1: the report's original (the same work); 0: any other. */
  label: 0 | 1;
  features: Features;
}

export interface LabelledBrief {
  id: string;
  /** Its duplicate cluster (the original's path; its own id when it has nothing to find): folds never split one. */
  cluster: string;
  /** The original's path; null: nothing to find. */
  target: string | null;
  candidates: LabelledCandidate[];
}

export interface Lines {
  duplicate: number;
  related: number;
}

export interface RefitReport {
  labels: { duplicates: number; others: number };
  /** Why nothing was fitted (too few labels), else null. */
  tooFew: string | null;
  /** Out of sample, the same folds: the shipped model and the refit. */
  shipped: EvalMetrics | null;
  refit: EvalMetrics | null;
  /** Whether the refit beats the shipped model out of sample (more AUC, false alerts held). */
  earned: boolean;
  /** Why it is or is not kept, in one line. */
  verdict: string;
  /** The refit on every label (what `calibrate --write` keeps when earned). */
  model: LogisticModel | null;
}

/** What the model decides for one brief: its top candidate, and where the original ranks. */
export function decideBrief(model: LogisticModel, b: LabelledBrief, lines: Lines): QueryResult {
  const scored = b.candidates
    .map((c) => ({ c, s: calibratedScore(model, c.features, lines).score }))
    .sort((x, y) => y.s - x.s);
  const rank = b.target ? scored.findIndex((x) => x.c.label === 1) : -1;
  const top = scored[0];
  return {
    id: b.id,
    target: b.target,
    top: top?.s ?? 0,
    topPath: top ? (top.c.label === 1 ? b.target : top.c.path) : null,
    targetRank: rank >= 0 ? rank + 1 : null,
    targetScore: rank >= 0 ? scored[rank].s : null,
    ms: 0,
  };
}

/** Logistic regression by Newton's method: standardised features, an L2 penalty, positives weighted to half the negatives' weight. */
export function fitLogistic(
  samples: Array<{ y: 0 | 1; f: Features }>,
  names: FeatureName[],
  floors: LogisticModel['floors'],
  lambda = 1,
): LogisticModel {
  const n = samples.length;
  const mean: number[] = [];
  const scale: number[] = [];
  for (const name of names) {
    const v = samples.map((s) => s.f[name] ?? 0);
    const m = v.reduce((a, b) => a + b, 0) / Math.max(1, n);
    mean.push(m);
    scale.push(Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(1, n)) || 1);
  }
  const X = samples.map((s) => [1, ...names.map((name, j) => ((s.f[name] ?? 0) - mean[j]) / scale[j])]);
  const pos = samples.filter((s) => s.y === 1).length;
  const wPos = Math.max(1, (n - pos) / Math.max(1, pos)) / 4;
  const d = names.length + 1;
  const w = new Array<number>(d).fill(0);
  for (let it = 0; it < 50; it++) {
    const g = new Array<number>(d).fill(0);
    const H = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    for (let i = 0; i < n; i++) {
      const x = X[i];
      let z = 0;
      for (let j = 0; j < d; j++) z += w[j] * x[j];
      const p = 1 / (1 + Math.exp(-z));
      const sw = samples[i].y ? wPos : 1;
      const r = sw * (p - samples[i].y);
      const h = sw * p * (1 - p);
      for (let j = 0; j < d; j++) {
        g[j] += r * x[j];
        for (let k = j; k < d; k++) H[j][k] += h * x[j] * x[k];
      }
    }
    // The penalty on the weights, not the intercept.
    for (let j = 1; j < d; j++) {
      g[j] += lambda * w[j];
      H[j][j] += lambda;
    }
    for (let j = 0; j < d; j++) for (let k = 0; k < j; k++) H[j][k] = H[k][j];
    const step = solve(H, g);
    let moved = 0;
    for (let j = 0; j < d; j++) {
      w[j] -= step[j];
      moved = Math.max(moved, Math.abs(step[j]));
    }
    if (moved < 1e-7) break;
  }
  const features: LogisticModel['features'] = {};
  names.forEach((name, j) => (features[name] = { weight: w[j + 1], mean: mean[j], scale: scale[j] }));
  return { intercept: w[0], features, floors };
}

/** Gaussian elimination with partial pivoting (a small dense system); scripts/fit-calibration.mjs solves with it too. */
export function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
    [M[c], M[p]] = [M[p], M[c]];
    const piv = M[c][c] || 1e-12;
    for (let r = c + 1; r < n; r++) {
      const f = M[r][c] / piv;
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = M[r][n];
    for (let k = r + 1; k < n; k++) s -= M[r][k] * x[k];
    x[r] = s / (M[r][r] || 1e-12);
  }
  return x;
}

/** The share of briefs with nothing to find whose top candidate reaches the duplicate line. */
function falseAlerts(model: LogisticModel, briefs: LabelledBrief[], lines: Lines): number {
  const none = briefs.filter((b) => !b.target);
  if (!none.length) return 0;
  return none.filter((b) => decideBrief(model, b, lines).top >= lines.duplicate).length / none.length;
}

/**
 * The intercept moved (never the weights) until briefs with nothing to find alert no more often
 * than `allowed`: the least it must move, found by bisection on the training briefs.
 */
export function placeIntercept(
  model: LogisticModel,
  briefs: LabelledBrief[],
  lines: Lines,
  allowed: number,
): LogisticModel | null {
  const at = (shift: number) => ({ ...model, intercept: model.intercept + shift });
  if (falseAlerts(model, briefs, lines) <= allowed) return model;
  let lo = -20;
  let hi = 0;
  // Out of reach (a raise no weight moves, such as the same-issue rule, alerts anyway): no line to place.
  if (falseAlerts(at(lo), briefs, lines) > allowed) return null;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (falseAlerts(at(mid), briefs, lines) <= allowed) lo = mid;
    else hi = mid;
  }
  return at(lo);
}

/**
 * A line placed on the reports it was fitted on alerts more often on reports it never saw (the
 * placement is in sample): it is placed this far under what is allowed.
 */
export const PLACEMENT_MARGIN = 0.75;

/** Fit on `train` and place the line there (false alerts held under the shipped model's, at most MAX_FALSE_ALERTS, with PLACEMENT_MARGIN). */
export function refitOn(
  train: LabelledBrief[],
  shipped: LogisticModel,
  lines: Lines,
  names = PROJECT_FEATURES,
): LogisticModel | null {
  const samples = train.flatMap((b) => b.candidates.map((c) => ({ y: c.label, f: c.features })));
  const fitted = fitLogistic(samples, names, shipped.floors);
  return placeIntercept(
    fitted,
    train,
    lines,
    PLACEMENT_MARGIN * Math.min(MAX_FALSE_ALERTS, falseAlerts(shipped, train, lines)),
  );
}

/** Folds by duplicate cluster, in a fixed order (a report and its original are never on two sides). */
export function foldsOf(briefs: LabelledBrief[], k = FOLDS): LabelledBrief[][] {
  const clusters = [...new Set(briefs.map((b) => b.cluster))].sort((a, b) => hash(a) - hash(b) || (a < b ? -1 : 1));
  const fold = new Map(clusters.map((c, i) => [c, i % k]));
  const out: LabelledBrief[][] = Array.from({ length: k }, () => []);
  for (const b of briefs) out[fold.get(b.cluster)!].push(b);
  return out;
}

/** A stable spread of cluster names over the folds (FNV-1a). */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * Measure a refit out of sample beside the shipped model, on the same folds, and fit the one to
 * keep on every label. Earned when it gains MIN_AUC_GAIN in AUC and is no worse at the alert line:
 * no more false alerts than the shipped model (nor above MAX_FALSE_ALERTS; one report of slack),
 * its alerts right at least as often (precision at a 10% duplicate rate), and as many duplicates
 * alerting (recall). A line that wins only by alerting less is not kept.
 */
export function refitReport(
  briefs: LabelledBrief[],
  shipped: LogisticModel,
  lines: Lines,
  names = PROJECT_FEATURES,
): RefitReport {
  const usable = briefs.filter(
    (b) => b.candidates.length > 0 && (!b.target || b.candidates.some((c) => c.label === 1)),
  );
  const labels = { duplicates: usable.filter((b) => b.target).length, others: usable.filter((b) => !b.target).length };
  if (labels.duplicates < MIN_PROJECT_LABELS.duplicates || labels.others < MIN_PROJECT_LABELS.others) {
    const tooFew = `${labels.duplicates} labelled duplicates and ${labels.others} reports with nothing to find; a refit needs ${MIN_PROJECT_LABELS.duplicates} and ${MIN_PROJECT_LABELS.others}`;
    return {
      labels,
      tooFew,
      shipped: null,
      refit: null,
      earned: false,
      verdict: `too few labels: ${tooFew}`,
      model: null,
    };
  }
  const folds = foldsOf(usable);
  const shippedResults: QueryResult[] = [];
  const refitResults: QueryResult[] = [];
  let unplaced = false;
  folds.forEach((test, i) => {
    if (!test.length) return;
    const train = folds.filter((_, j) => j !== i).flat();
    const model = refitOn(train, shipped, lines, names);
    if (!model) unplaced = true;
    for (const b of test) {
      shippedResults.push(decideBrief(shipped, b, lines));
      refitResults.push(decideBrief(model ?? shipped, b, lines));
    }
  });
  const s = summarize(shippedResults, lines);
  const r = summarize(refitResults, lines);
  const gain = r.auc - s.auc;
  // Never by alerting more: at most the shipped model's false alerts (and MAX_FALSE_ALERTS), give or take one report.
  const oneReport = 1 / Math.max(1, labels.others);
  const heldAlerts = r.alert.falseAlerts <= Math.min(s.alert.falseAlerts, MAX_FALSE_ALERTS) + oneReport + 1e-9;
  // An alert must not become less often right, nor rarer on the duplicates there are: precision and recall at the line held.
  const heldPrecision = r.alert.precisionAtBase >= s.alert.precisionAtBase - 1e-9;
  const heldRecall = r.alert.recall >= s.alert.recall - 1e-9;
  const final = unplaced ? null : refitOn(usable, shipped, lines, names);
  const earned = final !== null && gain >= MIN_AUC_GAIN && heldAlerts && heldPrecision && heldRecall;
  const verdict = earned
    ? `the project's line beats the shipped model out of sample (AUC ${r.auc.toFixed(3)} against ${s.auc.toFixed(3)}, the original first for ${pct(r.top1)} against ${pct(s.top1)}, false alerts ${pct(r.alert.falseAlerts)} against ${pct(s.alert.falseAlerts)}, alert recall ${pct(r.alert.recall)} against ${pct(s.alert.recall)})`
    : gain < MIN_AUC_GAIN
      ? `not kept: AUC ${r.auc.toFixed(3)} against the shipped model's ${s.auc.toFixed(3)} out of sample (a gain of ${MIN_AUC_GAIN} is needed)`
      : !heldAlerts
        ? `not kept: it alerts on ${pct(r.alert.falseAlerts)} of reports with nothing to find (the shipped model ${pct(s.alert.falseAlerts)})`
        : !heldPrecision
          ? `not kept: an alert is right less often (precision at 10% duplicates ${pct(r.alert.precisionAtBase)}, the shipped model ${pct(s.alert.precisionAtBase)})`
          : !heldRecall
            ? `not kept: fewer duplicates alert (alert recall ${pct(r.alert.recall)}, the shipped model ${pct(s.alert.recall)}), though it ranks better (AUC ${r.auc.toFixed(3)} against ${s.auc.toFixed(3)}, the original first for ${pct(r.top1)} against ${pct(s.top1)})`
            : 'not kept: no line holds its false alerts where the shipped model does (a rule, not a weight, alerts)';
  return { labels, tooFew: null, shipped: s, refit: r, earned, verdict, model: final };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
