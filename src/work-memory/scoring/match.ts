/**
 * What a ranked past document is: the match type every ranking produces, and
 * the plain nearest-document retrieval over the vectors. Lives below both the
 * check (src/check) and the scoring (rank.ts) so that neither imports the other.
 */
import { compareText } from '../../shared/text/compare.js';
import type { DocStatus, DocumentType, WorkOrigin } from '../corpus/types.js';
import type { SearchHit, VectorIndex } from '../index/types.js';
import type { FeatureName, Features } from './features.js';

/** Why a match scored what it did: the parts, and for the calibrated score each feature and its contribution. */
export interface MatchComponents {
  cosine: number;
  lexical: number;
  shared: string[];
  /** The issue-11 score's per-query reference (method fused). */
  reference?: { cosine: number; lexical: number };
  features?: Features;
  /** Each feature's push on the log-odds, relative to an average candidate of the fit. */
  contributions?: Partial<Record<FeatureName, number>>;
  /** The model's probability before a semantic floor capped it. */
  probability?: number;
  cappedBy?: 'related-floor' | 'duplicate-floor' | 'named-related' | null;
  raisedBy?: 'same-issue' | null;
  sharedIdentifiers?: string[];
  /** The strongest evidence, in words. */
  why?: string[];
}

/** One piece of past work a check found: a document of completed work (and the pieces of the same work it stands for). */
export interface HistoryMatch {
  issueId: string | null;
  title: string;
  filePath: string;
  score: number;
  status: DocStatus | null;
  statusReason: string | null;
  summary: string;
  documentType: DocumentType;
  /** The section and excerpt of the past document's best-matching chunk. */
  section: string;
  excerpt: string;
  /** Every document of this past piece of work (an issue and its design are one match), best first. */
  paths?: string[];
  /** The brief's passage that scored highest against this match. */
  briefExcerpt?: string;
  /** What the score is made of (calibrated and fused scoring): semantic, lexical, and the shared rare terms. */
  components?: MatchComponents;
  /** Index of the brief chunk behind `score` (internal: resolved into briefExcerpt). */
  briefChunk?: number;
  /** The repository this past work is in, when it is not this one (org scope: its path is then `<repository>:<path>`). */
  repository?: string;
  /** Work read from git or a tracker: its commit or number, link, files and date (src/work-memory/sources). */
  origin?: WorkOrigin;
}

/** Chunks retrieved per brief chunk so that k distinct documents survive grouping. */
const CHUNKS_PER_DOC = 8;

/**
 * Score each past document by its best (brief chunk, document chunk) pair and
 * keep the k best distinct documents.
 */
export function nearestDocuments(
  index: VectorIndex,
  briefVectors: Float32Array[],
  k: number,
  type: 'history' | 'standard',
): HistoryMatch[] {
  const best = new Map<string, { hit: SearchHit; chunk: number }>();
  const available = index.count(type);
  // One long document can fill every chunk retrieved: widen until k documents or the whole index.
  for (let want = k * CHUNKS_PER_DOC; ; want *= 4) {
    best.clear();
    briefVectors.forEach((v, chunk) => {
      for (const hit of index.search(v, want, type)) {
        const prev = best.get(hit.doc.filePath);
        if (!prev || hit.score > prev.hit.score) best.set(hit.doc.filePath, { hit, chunk });
      }
    });
    if (best.size >= k || want >= available) break;
  }
  return [...best.values()]
    .sort((a, b) => b.hit.score - a.hit.score || compareText(a.hit.doc.filePath, b.hit.doc.filePath))
    .slice(0, k)
    .map(({ hit, chunk }) => ({ ...toMatch(hit), briefChunk: chunk }));
}

export function toMatch(hit: SearchHit): HistoryMatch {
  return {
    issueId: hit.doc.issueId,
    title: hit.doc.title,
    filePath: hit.doc.filePath,
    score: hit.score,
    status: hit.doc.status,
    statusReason: hit.doc.statusReason,
    summary: hit.doc.summary,
    documentType: hit.doc.documentType,
    section: hit.section,
    excerpt: hit.excerpt,
    ...(hit.doc.repository ? { repository: hit.doc.repository } : {}),
    ...(hit.doc.origin ? { origin: hit.doc.origin } : {}),
  };
}

/** Every document of a match: an issue and its design shown as one match carry both paths. */
export function matchPaths(m: { filePath: string; paths?: string[] }): string[] {
  return m.paths ?? [m.filePath];
}

/** The piece of work a match belongs to: an issue and its design share an issue id; anything else is its own. */
export function workKey(m: { issueId: string | null; documentType: string; repository?: string }): string | null {
  if (m.issueId === null || (m.documentType !== 'issue' && m.documentType !== 'lld')) return null;
  // Issue 12 of another repository is other work than this repository's issue 12.
  return m.repository ? `${m.repository}#${m.issueId}` : m.issueId;
}
