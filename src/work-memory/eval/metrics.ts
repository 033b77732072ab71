import type { Features } from '../scoring/features.js';

/** What one query of an evaluation produced. */
export interface QueryResult {
  id: string;
  /** The indexed document it duplicates; null when there is nothing to find. */
  target: string | null;
  /** Best score (any document) — what the check's status is decided on. */
  top: number;
  topPath: string | null;
  /** 1-based rank of the target among the nearest documents; null when absent or no target. */
  targetRank: number | null;
  targetScore: number | null;
  ms: number;
  /** The brief's kind in a labelled set (duplicate, novel, brief_adr, ...). */
  kind?: string;
  /** Every candidate scored (calibrated): its parts, for refitting the fusion offline (`eval --save`). */
  candidates?: Array<{ path: string; cosine: number; lexical: number }>;
  /** Every history candidate with its features and label (1: the expected work), for a refit (`calibrate`, `eval --save`). */
  history?: Array<{ path: string; label: 0 | 1; score: number; features: Features | null }>;
}

export interface BandRow {
  threshold: number;
  /** Duplicates whose top match is the right one and scores >= threshold. */
  recall: number;
  /** Alert precision if `baseRate` of new briefs were duplicates. */
  precisionAtBase: number;
  /** Non-duplicates whose top score is >= threshold. */
  noise: number;
  /** Duplicates whose top score is >= threshold (their status reaches this band). */
  dupReach: number;
}

export interface EvalMetrics {
  queries: { duplicates: number; nonDuplicates: number };
  top1: number;
  top3: number;
  alert: {
    threshold: number;
    precision: number;
    recall: number;
    precisionAtBase: number;
    baseRate: number;
    falseAlerts: number;
  };
  related: {
    threshold: number;
    duplicatesReaching: number;
    duplicatesTargetShown: number;
    nonDuplicatesReaching: number;
  };
  auc: number;
  timings: { queryMsMedian: number; queryMsP95: number };
}

const share = (n: number, d: number) => (d === 0 ? 0 : n / d);

export function bandRow(results: QueryResult[], t: number, baseRate: number): BandRow {
  const pos = results.filter((r) => r.target !== null);
  const neg = results.filter((r) => r.target === null);
  const tp = pos.filter((r) => r.top >= t && r.topPath === r.target).length;
  const posAlerts = pos.filter((r) => r.top >= t).length;
  const fp = neg.filter((r) => r.top >= t).length;
  const wPos = share(baseRate, pos.length);
  const wNeg = share(1 - baseRate, neg.length);
  const alerts = posAlerts * wPos + fp * wNeg;
  return {
    threshold: t,
    recall: share(tp, pos.length),
    precisionAtBase: alerts === 0 ? 1 : (tp * wPos) / alerts,
    noise: share(fp, neg.length),
    dupReach: share(posAlerts, pos.length),
  };
}

/** Area under the ROC curve of duplicates' top scores against non-duplicates' (ties count half). */
export function auc(pos: number[], neg: number[]): number {
  if (!pos.length || !neg.length) return Number.NaN;
  const all = [...pos.map((s) => ({ s, p: 1 })), ...neg.map((s) => ({ s, p: 0 }))].sort((a, b) => a.s - b.s);
  let rankSum = 0;
  for (let i = 0; i < all.length; ) {
    let j = i;
    while (j < all.length && all[j].s === all[i].s) j++;
    const avg = (i + j + 1) / 2;
    for (let x = i; x < j; x++) if (all[x].p) rankSum += avg;
    i = j;
  }
  return (rankSum - (pos.length * (pos.length + 1)) / 2) / (pos.length * neg.length);
}

function quantile(xs: number[], q: number): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

export function summarize(
  results: QueryResult[],
  thresholds: { duplicate: number; related: number },
  baseRate = 0.1,
): EvalMetrics {
  const pos = results.filter((r) => r.target !== null);
  const neg = results.filter((r) => r.target === null);
  const alertRow = bandRow(results, thresholds.duplicate, baseRate);
  const relRow = bandRow(results, thresholds.related, baseRate);
  const alerts = results.filter((r) => r.top >= thresholds.duplicate);
  const correct = alerts.filter((r) => r.target !== null && r.topPath === r.target).length;
  return {
    queries: { duplicates: pos.length, nonDuplicates: neg.length },
    top1: share(pos.filter((r) => r.targetRank === 1).length, pos.length),
    top3: share(pos.filter((r) => r.targetRank !== null && r.targetRank <= 3).length, pos.length),
    alert: {
      threshold: thresholds.duplicate,
      precision: share(correct, alerts.length),
      recall: alertRow.recall,
      precisionAtBase: alertRow.precisionAtBase,
      baseRate,
      falseAlerts: alertRow.noise,
    },
    related: {
      threshold: thresholds.related,
      duplicatesReaching: relRow.dupReach,
      duplicatesTargetShown: share(
        pos.filter((r) => r.targetScore !== null && r.targetScore >= thresholds.related && (r.targetRank ?? 99) <= 3)
          .length,
        pos.length,
      ),
      nonDuplicatesReaching: relRow.noise,
    },
    auc: auc(
      pos.map((r) => r.top),
      neg.map((r) => r.top),
    ),
    timings: {
      queryMsMedian: quantile(
        results.map((r) => r.ms),
        0.5,
      ),
      queryMsP95: quantile(
        results.map((r) => r.ms),
        0.95,
      ),
    },
  };
}

/** The trade-off table `calibrate` shows: every threshold from 0.30 to 0.99. */
export function tradeOff(results: QueryResult[], baseRate = 0.1): BandRow[] {
  const rows: BandRow[] = [];
  for (let i = 30; i <= 99; i++) rows.push(bandRow(results, i / 100, baseRate));
  return rows;
}

/** Lowest duplicate threshold reaching the precision target, lowest related threshold within the noise target. */
export function proposeThresholds(
  rows: BandRow[],
  targetPrecision: number,
  targetNoise: number,
): { duplicate: number | null; related: number | null } {
  const dup = rows.find(
    (r) =>
      r.precisionAtBase >= targetPrecision &&
      rows
        .filter((x) => x.threshold > r.threshold)
        .every((x) => x.precisionAtBase >= targetPrecision || x.recall === 0),
  );
  const rel = rows.find((r) => r.noise <= targetNoise);
  return {
    duplicate: dup?.threshold ?? null,
    related: rel && (!dup || rel.threshold < dup.threshold) ? rel.threshold : null,
  };
}
