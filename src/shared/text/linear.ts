/**
 * String helpers that replace regular expressions with super-linear worst
 * cases on hostile text. `s.replace(/[\s|]+$/, '')` tries every start in a run of
 * k spaces and scans the rest of the run each time: O(k²), and a heading padded
 * with 6,000 spaces took minutes through a few such patterns. These run in one pass.
 */

const isSpace = (c: string) => /\s/.test(c);

/** `s` without trailing whitespace and characters of `extra` (e.g. "|", ",;:."). */
export function trimEndSet(s: string, extra = ''): string {
  let i = s.length;
  while (i > 0 && (isSpace(s[i - 1]) || extra.includes(s[i - 1]))) i--;
  return i === s.length ? s : s.slice(0, i);
}

/**
 * The text of an ATX heading after its `#` marks: trimmed, without a closing
 * `###` sequence (CommonMark: only when whitespace precedes it and text remains).
 */
export function headingText(rest: string): string {
  const t = rest.trim();
  let i = t.length;
  while (i > 0 && t[i - 1] === '#') i--;
  if (i > 0 && i < t.length && isSpace(t[i - 1])) return t.slice(0, i).trim();
  return t;
}

/**
 * `s` within `max` characters: cut before the last whole word that fits, the cut marked ` …`
 * (`s.slice(0, max).replace(/\s+\S*$/, '') + ' …'` in one pass; that pattern is O(k²) on a run
 * of k spaces). A text with no space in its first `max` characters is cut there.
 */
export function cutAtWord(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  let i = cut.length;
  while (i > 0 && !isSpace(cut[i - 1])) i--;
  if (i === 0) return `${cut} …`;
  while (i > 0 && isSpace(cut[i - 1])) i--;
  return `${cut.slice(0, i)} …`;
}
