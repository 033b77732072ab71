import type { HistoryMatch } from '../check/history.js';

/**
 * Lines shown under a past match (what was tried during that work, issue 21 §5):
 * given by the caller, which knows the other memory; `safe` makes their text safe
 * where it goes (a terminal, markdown). Output never reads the attempt memory itself.
 */
export type MatchNotes = (m: HistoryMatch, safe: (s: string) => string) => Array<{ label: string; text: string }>;

export const noNotes: MatchNotes = () => [];
