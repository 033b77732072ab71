/**
 * The issue-11 fused score (ADR-0005), kept as `scoring.method: fused` to compare
 * against; the default is the calibrated probability of calibrated.ts (ADR-0014). Measured on real duplicate
 * reports, neither the MiniLM cosine nor BM25 separates "has a duplicate"
 * from "has none" well by its level (AUC 0.62 / 0.60): generic briefs sit
 * close to many past documents. What separates them is how far the best
 * match STANDS OUT from the brief's other neighbours. So each part is taken
 * relative to the brief's own reference (its REF_RANK-th best value among
 * the candidates: per-query normalisation), the two are fused by a logistic
 * function fitted on labelled data (scripts/fit-scoring.mjs), and the
 * logistic is placed so that the thresholds keep their meaning: 0.5 where
 * non-duplicate noise meets its budget, 0.85 where alert precision does.
 * `scoring.method: cosine` keeps the old score for comparison.
 */
import type { ScoringMethod } from '../../shared/config/model-values.js';
export type { ScoringMethod };

export interface ScoreComponents {
  /** Best (brief chunk, document chunk) cosine. */
  cosine: number;
  /** BM25 of the brief against the document over the brief against itself, in [0, 1]. */
  lexical: number;
}

/** The reference is the 4th-best candidate: up to 3 past documents may be the same work and still stand out. */
export const REF_RANK = 3;
/**
 * With fewer candidates than that (a new project with a handful of documents),
 * a typical 4th-best neighbour instead: on the demo corpus the brief's
 * reference is cosine 0.29-0.49 (median 0.45), lexical 0.08-0.16 (median
 * 0.125). The earlier prior (0.2, 0) made an unrelated brief "related" on a
 * 5-document project (cosine 0.335 -> final 0.585); with this one it is 0.27.
 */
export const PRIOR_REFERENCE: ScoreComponents = { cosine: 0.4, lexical: 0.1 };

/** Logistic weights on the parts above the reference: final = 1 / (1 + e^-(w0 + wc Δcos + wl Δlex)). */
export const WEIGHTS = { w0: -0.6, cosine: 5.5, lexical: 2.3 };

/** The brief's reference values from every candidate's parts. */
export function referenceOf(all: ScoreComponents[]): ScoreComponents {
  if (all.length <= REF_RANK) return PRIOR_REFERENCE;
  const nth = (xs: number[]) => xs.sort((a, b) => b - a)[REF_RANK];
  return { cosine: nth(all.map((c) => c.cosine)), lexical: nth(all.map((c) => c.lexical)) };
}

export function fuse(c: ScoreComponents, method: ScoringMethod, reference: ScoreComponents = PRIOR_REFERENCE): number {
  if (method === 'cosine') return c.cosine;
  const z =
    WEIGHTS.w0 + WEIGHTS.cosine * (c.cosine - reference.cosine) + WEIGHTS.lexical * (c.lexical - reference.lexical);
  return 1 / (1 + Math.exp(-z));
}
