/**
 * Identifier-aware tokenizing for the lexical index. Identifiers carry the
 * evidence MiniLM's word pieces lose: `spotbugs-maven-plugin`, `4.1.46`,
 * `CVE-2019-20444`, `ITestAbfsRestOperationException` are kept whole (so an
 * exact identifier match weighs like the rare token it is) and also split into
 * their parts (so `maven` still meets `maven`).
 */

/** Function words only: they say nothing about which work a text is. */
const STOP = new Set(
  'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its me my no not of on or our she so than that the their them then there these they this to too was we were what when where which who why will with would you your'.split(
    ' ',
  ),
);

/** A run of letters/digits joined by `.`, `-`, `_`, `/` or `:` (no leading/trailing separator). */
const WORD = /[\p{L}\p{N}]+(?:[._\-/:][\p{L}\p{N}]+)*/gu;

/** Whole identifiers longer than this are not kept whole (hashes, base64, minified code). */
const MAX_WHOLE = 64;

function splitCamel(part: string): string[] {
  return part
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})/gu, '$1 $2')
    .replace(/(\p{N})(\p{L})/gu, '$1 $2')
    .split(' ');
}

/** Is this word an identifier worth keeping whole (separators, inner capitals, or letters with digits)? */
export function isIdentifier(word: string): boolean {
  return /[._\-/:]/.test(word) || /\p{Ll}\p{Lu}/u.test(word) || (/\p{L}/u.test(word) && /\p{N}/u.test(word));
}

/** Tokens of a text, in order, lowercased; identifiers appear whole and then as their parts. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(WORD)) {
    const word = m[0];
    if (isIdentifier(word)) {
      if (word.length <= MAX_WHOLE) out.push(word.toLowerCase());
      for (const piece of word.split(/[._\-/:]+/)) {
        for (const p of splitCamel(piece)) {
          const t = p.toLowerCase();
          if (t && !STOP.has(t) && (t.length > 1 || /\d/.test(t))) out.push(t);
        }
      }
    } else {
      const t = word.toLowerCase();
      if (!STOP.has(t) && (t.length > 1 || /\d/.test(t))) out.push(t);
    }
  }
  return out;
}

/** Term counts of a token list. */
export function termCounts(tokens: string[]): Map<string, number> {
  const tf = new Map<string, number>();
  for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
  return tf;
}
