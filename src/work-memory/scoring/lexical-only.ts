/**
 * The keyword fallback, when the model cannot answer: BM25 alone, scaled under the duplicate
 * line unless the brief is a near-verbatim copy of the document.
 */
import type { CorpusType } from '../corpus/types.js';
import type { VectorIndex } from '../index/types.js';
import { lexicalTokens, type LexicalView } from '../lexical/file.js';
import { byScore, groupByWork } from './group.js';
import type { HistoryMatch } from './match.js';

/** Without the model a lexical score is "related" at most: it is scaled below the duplicate line... */
export const LEXICAL_ONLY_CAP = 0.84;
/** ...unless the brief is a near-verbatim copy: this share of its distinct terms in the document and back. */
export const VERBATIM_OVERLAP = 0.9;

/** The keyword fallback: BM25 alone, never a duplicate unless near-verbatim. */
export function lexicalOnly(
  index: VectorIndex | null,
  k: number,
  depth: number,
  type: CorpusType,
  s: { lexical: LexicalView | null; briefText: string; exclude?: (filePath: string) => boolean },
): HistoryMatch[] {
  if (!s.lexical) return [];
  const tokens = lexicalTokens(s.briefText, s.lexical.templates);
  const out: HistoryMatch[] = [];
  for (const h of s.lexical.bm25.search(tokens, depth)) {
    const doc = index?.doc?.(h.path);
    if (!doc || !doc.types.includes(type) || s.exclude?.(h.path)) continue;
    const score = lexicalOnlyScore(h.norm, nearVerbatim(tokens, s.lexical.bm25.termsOf(h.path)));
    out.push({
      issueId: doc.issueId,
      title: doc.title,
      filePath: doc.filePath,
      score,
      status: doc.status,
      statusReason: doc.statusReason,
      summary: doc.summary,
      documentType: doc.documentType,
      section: doc.title,
      excerpt: doc.summary,
      components: { cosine: Number.NaN, lexical: h.norm, shared: h.shared },
      ...(doc.repository ? { repository: doc.repository } : {}),
    });
  }
  return groupByWork(out.sort(byScore)).slice(0, k);
}

/**
 * The rule for a lexical score without the model: BM25 share of the brief
 * matched, scaled so that it stays below the 0.85 duplicate line; only a
 * near-verbatim copy keeps its full score (and can alert).
 */
export function lexicalOnlyScore(norm: number, verbatim: boolean): number {
  return verbatim ? norm : norm * LEXICAL_ONLY_CAP;
}

/** Both ways, at least VERBATIM_OVERLAP of the distinct terms are shared. */
export function nearVerbatim(
  briefTokens: string[],
  docTerms: { has(t: string): boolean; size: number } | undefined,
): boolean {
  if (!docTerms || docTerms.size === 0) return false;
  const brief = new Set(briefTokens);
  if (brief.size === 0) return false;
  let shared = 0;
  for (const t of brief) if (docTerms.has(t)) shared++;
  return shared / brief.size >= VERBATIM_OVERLAP && shared / docTerms.size >= VERBATIM_OVERLAP;
}
