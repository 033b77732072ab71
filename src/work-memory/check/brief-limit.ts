import { kb } from '../../shared/fsutil/bounded-read.js';

/**
 * The work one brief may cost (docs/commands.md "Limits"). A brief can be up to 1 MB, but
 * embedding all of it took over a minute; duplicates show in a brief's opening
 * sections, so the check compares the first MAX_CHECK_CHARS of the brief and at
 * most MAX_BRIEF_CHUNKS chunks of it, and says so when it cut.
 */
export const MAX_CHECK_CHARS = 16 * 1024;
export const MAX_BRIEF_CHUNKS = 16;

export interface LimitedBrief {
  text: string;
  /** Which part was used, for the user; null when the whole brief was. */
  note: string | null;
}

/** The part of the brief the check compares: whole lines, at most MAX_CHECK_CHARS. */
export function briefForCheck(text: string, maxChars = MAX_CHECK_CHARS): LimitedBrief {
  if (text.length <= maxChars) return { text, note: null };
  const cut = text.slice(0, maxChars);
  const nl = cut.lastIndexOf('\n');
  const used = nl > maxChars / 2 ? cut.slice(0, nl) : cut;
  let lines = 1;
  for (let i = used.indexOf('\n'); i !== -1; i = used.indexOf('\n', i + 1)) lines++;
  return {
    text: used,
    note: `the brief is long (${kb(text.length)}): the check compared its first ${kb(used.length)} (lines 1-${lines}); the rest was not compared`,
  };
}

/** At most MAX_BRIEF_CHUNKS chunks; the note says how many were compared. */
export function capBriefChunks<T>(chunks: T[], notes?: string[], max = MAX_BRIEF_CHUNKS): T[] {
  if (chunks.length <= max) return chunks;
  notes?.push(`the brief has ${chunks.length} chunks: the check compared the first ${max}`);
  return chunks.slice(0, max);
}
