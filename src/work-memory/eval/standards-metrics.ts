import { standardsOrder, MAX_CITED, STANDOUT, standingOut } from '../check/standards.js';

/** The standards check's rule as the eval applies it; `standout: false` for a method other than the calibrated score (the product applies STANDOUT only there). */
export interface StandardsMetricsRule {
  threshold: number;
  k: number;
  candidates: number;
  standout?: boolean;
}
import type { CaseResult } from './run-set.js';

/** How well the standards check attaches governing standards (issue 20, part 4). */
export interface StandardsMetrics {
  /** Briefs with at least one labelled governing standard or ADR. */
  labelled: number;
  /** Share of labelled briefs that get at least one of their governing documents attached. */
  briefRecall: number;
  /** Share of (brief, governing document) pairs attached. */
  pairRecall: number;
  /** Of everything attached to labelled briefs, the share that is governing or labelled related. */
  precision: number;
  /** Briefs from another project (nothing there governs them). */
  unrelated: number;
  /** Share of unrelated briefs that get nothing attached. */
  unrelatedNone: number;
}

/**
 * What the rule attaches (as src/work-memory/check/standards.ts): of the best `candidates`, those at or
 * above `threshold` (past work only where the history check placed it as related), ADRs/standards first, the best `k`.
 */
export function attached(c: CaseResult, rule: StandardsMetricsRule): string[] {
  const all = c.standards?.candidates ?? [];
  // What the brief names first, not counted against k (as retrieveStandards).
  const named = all
    .filter((x) => x.cited !== undefined)
    .sort((a, b) => a.cited! - b.cited!)
    .slice(0, MAX_CITED);
  const first = new Set(named.map((x) => x.path));
  // Of what retrieval reached (a named one keeps its place among the best `candidates`, as in the product).
  const reached = [...all].filter((x) => !x.unreached).sort((a, b) => b.score - a.score);
  const top = reached
    .slice(0, rule.candidates)
    .filter((x) => !first.has(x.path) && x.score >= rule.threshold && x.relatedWork !== false);
  // And what stands far above the other ADRs and standards among those the eval saved (STANDOUT.window of them).
  // (A save from before the count was kept says nothing of it: taken as enough.)
  const view = reached.slice(0, STANDOUT.window).map((x) => ({ ...x, documentType: x.documentType ?? 'standard' }));
  const out =
    rule.standout === false
      ? []
      : standingOut(view, c.standards?.standardDocs ?? STANDOUT.minStandards).filter(
          (x) => !first.has(x.path) && !top.some((t) => t.path === x.path),
        );
  const cands = [...top, ...out];
  return [
    ...named.map((x) => x.path),
    ...standardsOrder(cands.map((x) => ({ ...x, documentType: x.documentType ?? 'standard' })))
      .slice(0, rule.k)
      .map((x) => x.path),
  ];
}

const share = (n: number, d: number) => (d === 0 ? 0 : n / d);

export function standardsMetrics(results: CaseResult[], rule: StandardsMetricsRule): StandardsMetrics {
  const labelled = results.filter((r) => r.standards && r.standards.governing.length > 0);
  const unrelated = results.filter((r) => r.standards?.crossProject);
  let pairs = 0;
  let pairsHit = 0;
  let briefsHit = 0;
  let att = 0;
  let attRight = 0;
  for (const r of labelled) {
    const got = attached(r, rule);
    const gov = new Set(r.standards!.governing);
    const ok = new Set([...gov, ...r.relatedPaths, ...r.targets]);
    const hit = got.filter((p) => gov.has(p)).length;
    pairs += gov.size;
    pairsHit += hit;
    if (hit > 0) briefsHit++;
    att += got.length;
    attRight += got.filter((p) => ok.has(p)).length;
  }
  return {
    labelled: labelled.length,
    briefRecall: share(briefsHit, labelled.length),
    pairRecall: share(pairsHit, pairs),
    precision: att === 0 ? 1 : attRight / att,
    unrelated: unrelated.length,
    unrelatedNone: share(unrelated.filter((r) => attached(r, rule).length === 0).length, unrelated.length),
  };
}
