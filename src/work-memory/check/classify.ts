export type HistoryStatus = 'clear' | 'related_context' | 'duplicate_alert';

/** The duplicate line (an alert at or above it) and the related line (related work at or above it). */
export interface Thresholds {
  duplicate: number;
  related: number;
}

/**
 * The whole decision rule: >= duplicate alerts (0.85 itself alerts), >= related
 * adds context, below is clear. Scores are compared as given, never rounded.
 */
export function classifyScore(top: number | undefined, t: Thresholds): HistoryStatus {
  if (top === undefined || Number.isNaN(top)) return 'clear';
  if (top >= t.duplicate) return 'duplicate_alert';
  if (top >= t.related) return 'related_context';
  return 'clear';
}

/**
 * Format a score for display so it never contradicts the threshold: 0.8499
 * must not print as "0.85". Four decimals, truncated toward the threshold side.
 */
export function formatScore(score: number): string {
  if (!Number.isFinite(score)) return String(score);
  // Truncate the number's shortest decimal form, not score * 10000: 0.57 * 10000 is
  // 5699.999…, which would print a score of exactly 0.57 as "0.5699".
  const abs = Math.abs(score);
  const [int, frac = ''] = (abs < 1e-4 ? '0' : String(abs)).split('.');
  const out = `${int}.${(frac + '0000').slice(0, 4)}`;
  return score < 0 && out !== '0.0000' ? `-${out}` : out;
}

/** Whether a match's score is the calibrated chance of the same work (it carries the features it was computed from), not a cosine similarity. */
export const isSameWorkScore = (m: { components?: { features?: unknown } | null }): boolean =>
  Boolean(m.components?.features);

/** A match's score as every answer shows it, named for what it is: "score 0.9100" (calibrated: the chance of the same work, as the MCP answer and the alert say) or "similarity 0.9100" (cosine, fused). */
export function scoreText(m: { score: number; components?: { features?: unknown } | null }): string {
  return `${isSameWorkScore(m) ? 'score' : 'similarity'} ${formatScore(m.score)}`;
}
