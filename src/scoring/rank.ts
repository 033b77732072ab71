import { compareText } from '../text/compare.js';
import type { CorpusType } from '../corpus/types.js';
import type { VectorStore } from '../index/types.js';
import { lexicalTokens, type LexicalData } from '../lexical/file.js';
import { nearestDocuments, toMatch, type HistoryMatch } from '../check/history.js';
import { fuse, referenceOf, type ScoringMethod } from './hybrid.js';

/** How the check scores: the method, the lexical index (null when absent) and the brief. */
export interface Scoring {
  method: ScoringMethod | 'lexical';
  lexical: LexicalData | null;
  briefText: string;
  /** The brief's chunk texts, parallel to its vectors (for briefExcerpt). */
  briefChunks?: string[];
  /** Documents never to return (leave-one-out evaluation excludes the brief's own work). */
  exclude?: (filePath: string) => boolean;
}

/** Documents scored per query before the best k are kept: both retrievers' top lists are merged. */
const CANDIDATES = 20;
/** Without the model a lexical score is "related" at most: it is scaled below the duplicate line... */
export const LEXICAL_ONLY_CAP = 0.84;
/** ...unless the brief is a near-verbatim copy: this share of its distinct terms in the document and back. */
export const VERBATIM_OVERLAP = 0.9;

/**
 * Score the union of the semantic and lexical candidates with the configured
 * method and keep the k best documents. Documents found only lexically get
 * their exact best-chunk cosine from the store.
 */
export function rescore(store: VectorStore | null, briefVectors: Float32Array[], k: number, type: CorpusType, s: Scoring): HistoryMatch[] {
  if (s.method === 'lexical' || !store) return lexicalOnly(store, k, type, s);
  const want = Math.max(k * 4, CANDIDATES) + (s.exclude ? 4 : 0);
  const byPath = new Map(nearestDocuments(store, briefVectors, want, type).map((m) => [m.filePath, m]));
  const tokens = s.lexical ? lexicalTokens(s.briefText, s.lexical.templates) : [];
  if (s.lexical && store.scoreDoc) {
    for (const h of s.lexical.store.search(tokens, want)) {
      if (byPath.has(h.path)) continue;
      const hit = store.scoreDoc(h.path, briefVectors);
      if (hit && hit.doc.types.includes(type)) byPath.set(h.path, { ...toMatch(hit), briefChunk: hit.vectorIndex });
      if (byPath.size >= want * 2) break;
    }
  }
  const parts = [...byPath.values()]
    .filter((m) => !s.exclude?.(m.filePath))
    .map((m) => {
      const lex = s.lexical?.store.scoreDoc(tokens, m.filePath) ?? null;
      return { m, components: { cosine: m.score, lexical: lex?.norm ?? 0, shared: lex?.shared ?? [] } };
    });
  // Per-query normalisation: each part relative to this brief's typical neighbour.
  const reference = referenceOf(parts.map((p) => p.components));
  const scored = parts.map(({ m, components }) =>
    withExcerpt({ ...m, score: fuse(components, s.method as ScoringMethod, reference), components: { ...components, reference } }, s),
  );
  return groupByWork(scored.sort(byScore)).slice(0, k);
}

/** The keyword fallback: BM25 alone, never a duplicate unless near-verbatim. */
function lexicalOnly(store: VectorStore | null, k: number, type: CorpusType, s: Scoring): HistoryMatch[] {
  if (!s.lexical) return [];
  const tokens = lexicalTokens(s.briefText, s.lexical.templates);
  const out: HistoryMatch[] = [];
  for (const h of s.lexical.store.search(tokens, Math.max(k * 4, CANDIDATES) * 2)) {
    const doc = store?.doc?.(h.path);
    if (!doc || !doc.types.includes(type) || s.exclude?.(h.path)) continue;
    const score = lexicalOnlyScore(h.norm, nearVerbatim(tokens, s.lexical.store.termsOf(h.path)));
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
export function nearVerbatim(briefTokens: string[], docTerms: { has(t: string): boolean; size: number } | undefined): boolean {
  if (!docTerms || docTerms.size === 0) return false;
  const brief = new Set(briefTokens);
  if (brief.size === 0) return false;
  let shared = 0;
  for (const t of brief) if (docTerms.has(t)) shared++;
  return shared / brief.size >= VERBATIM_OVERLAP && shared / docTerms.size >= VERBATIM_OVERLAP;
}

function byScore(a: HistoryMatch, b: HistoryMatch): number {
  return b.score - a.score || compareText(a.filePath, b.filePath);
}

function withExcerpt(m: HistoryMatch, s: Scoring): HistoryMatch {
  const text = m.briefChunk !== undefined ? s.briefChunks?.[m.briefChunk] : undefined;
  return text ? { ...m, briefExcerpt: excerpt(text) } : m;
}

function excerpt(text: string): string {
  const plain = text.replace(/^#{1,6}\s+.*$/gm, '').replace(/[*`>]/g, '').replace(/\s+/g, ' ').trim() || text.trim();
  return plain.length > 280 ? `${plain.slice(0, 279)}…` : plain;
}

/**
 * One match per past piece of work: an issue and its design share an issue
 * id, so they are one match (the best-scoring document leads; `paths` lists
 * all). Input must be sorted best first.
 */
export function groupByWork(sorted: HistoryMatch[]): HistoryMatch[] {
  const out: HistoryMatch[] = [];
  const byIssue = new Map<string, HistoryMatch>();
  for (const m of sorted) {
    const work = m.issueId !== null && (m.documentType === 'issue' || m.documentType === 'lld') ? m.issueId : null;
    const lead = work !== null ? byIssue.get(work) : undefined;
    if (lead) {
      lead.paths!.push(m.filePath);
      continue;
    }
    const copy = { ...m, paths: [m.filePath] };
    if (work !== null) byIssue.set(work, copy);
    out.push(copy);
  }
  return out;
}
