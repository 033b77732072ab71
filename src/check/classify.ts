export type HistoryStatus = 'clear' | 'related_context' | 'duplicate_alert';

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
  return (Math.floor(score * 10000) / 10000).toFixed(4);
}
