/**
 * Template awareness: text that many documents of the corpus share (issue
 * templates, auto-filing boilerplate, a log line every report pastes) says
 * nothing about which work a document is. It is found from the corpus itself:
 * a run of SHINGLE words that appears in at least `minDocs` documents is
 * boilerplate, and the words it covers are left out of lexical matching (and
 * a chunk made mostly of it is left out of the semantic best-pair score).
 */

export const SHINGLE = 6;
const WORDS = /[\p{L}\p{N}]+(?:[._\-/:][\p{L}\p{N}]+)*/gu;

export interface TemplateSet {
  shingle: number;
  /** A shingle in at least this many documents is boilerplate. */
  minDocs: number;
  /** Documents the set was computed from. */
  docs: number;
  /** Hashes of boilerplate shingles. */
  hashes: Set<number>;
  /** The most shared passages, for `agentos status` (text, documents). */
  examples: Array<{ text: string; docs: number }>;
}

/** The share threshold: 1% of the corpus, never fewer than 4 documents (so two duplicates are never "template"). */
export function minDocsFor(n: number): number {
  return Math.max(4, Math.ceil(n * 0.01));
}

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function words(text: string): string[] {
  return Array.from(text.matchAll(WORDS), (m) => m[0]);
}

function shingleHashes(ws: string[], n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i + n <= ws.length; i++)
    out.push(
      fnv(
        ws
          .slice(i, i + n)
          .join(' ')
          .toLowerCase(),
      ),
    );
  return out;
}

/** Find the boilerplate of a corpus (one text per document). */
export function detectTemplates(texts: string[], shingle = SHINGLE): TemplateSet {
  const minDocs = minDocsFor(texts.length);
  const df = new Map<number, number>();
  const sample = new Map<number, string>();
  for (const t of texts) {
    const ws = words(t);
    const seen = new Set<number>();
    const hs = shingleHashes(ws, shingle);
    hs.forEach((h, i) => {
      if (seen.has(h)) return;
      seen.add(h);
      df.set(h, (df.get(h) ?? 0) + 1);
      if (!sample.has(h))
        sample.set(
          h,
          ws
            .slice(i, i + shingle)
            .join(' ')
            .toLowerCase(),
        );
    });
  }
  const hashes = new Set<number>();
  for (const [h, c] of df) if (c >= minDocs) hashes.add(h);
  const examples = [...hashes]
    .map((h) => ({ text: sample.get(h) ?? '', docs: df.get(h) ?? 0 }))
    .sort((a, b) => b.docs - a.docs || (a.text < b.text ? -1 : 1))
    .slice(0, 20);
  return { shingle, minDocs, docs: texts.length, hashes, examples };
}

/** The text with boilerplate words removed (word order kept), and the share that was boilerplate. */
export function stripTemplates(text: string, set: TemplateSet | null): { text: string; share: number } {
  const ws = words(text);
  if (!set || set.hashes.size === 0 || ws.length < set.shingle) return { text: ws.join(' '), share: 0 };
  const covered = new Uint8Array(ws.length);
  shingleHashes(ws, set.shingle).forEach((h, i) => {
    if (set.hashes.has(h)) covered.fill(1, i, i + set.shingle);
  });
  const kept = ws.filter((_, i) => !covered[i]);
  return { text: kept.join(' '), share: 1 - kept.length / ws.length };
}
