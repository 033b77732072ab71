import { chunkMarkdown } from '../chunks/chunk.js';
import { capBriefChunks, MAX_CHECK_CHARS } from './brief-limit.js';
import { extractMetadata } from '../corpus/metadata.js';
import { compareText } from '../text/compare.js';
import type { DocStatus, DocumentType } from '../corpus/types.js';
import type { Embedder } from '../embeddings/embedder.js';
import type { SearchHit, VectorStore } from '../index/types.js';
import { classifyScore, type HistoryStatus, type Thresholds } from './classify.js';
import { rescore, type Scoring } from '../scoring/rank.js';
import type { FeatureName, Features } from '../scoring/features.js';

/** Why a match scored what it did: the parts, and for the calibrated score each feature and its contribution. */
export interface MatchComponents {
  cosine: number;
  lexical: number;
  shared: string[];
  /** The issue-11 score's per-query reference (method standout). */
  reference?: { cosine: number; lexical: number };
  features?: Features;
  /** Each feature's push on the log-odds, relative to an average candidate of the fit. */
  contributions?: Partial<Record<FeatureName, number>>;
  /** The model's probability before a semantic floor capped it. */
  probability?: number;
  cappedBy?: 'related-floor' | 'duplicate-floor' | null;
  sharedIdentifiers?: string[];
  /** The strongest evidence, in words. */
  why?: string[];
}

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
  /** What the score is made of (hybrid scoring): semantic, lexical, and the shared rare terms. */
  components?: MatchComponents;
  /** Index of the brief chunk behind `score` (internal: resolved into briefExcerpt). */
  briefChunk?: number;
}

export interface HistoryCheck {
  status: HistoryStatus;
  /** Matches that count for the status: >= related threshold, best first. */
  matches: HistoryMatch[];
  /** The k nearest documents whatever their score (for --json and logs). */
  nearest: HistoryMatch[];
}

/** Chunks retrieved per brief chunk so that k distinct documents survive grouping. */
const CHUNKS_PER_DOC = 8;

/** Embed the brief as the index embeds documents. */
export async function embedBrief(text: string, embedder: Embedder, notes?: string[]): Promise<Float32Array[]> {
  return (await embedBriefChunks(text, embedder, notes)).vectors;
}

/** The brief's chunks (their text, for "why it matched") and their vectors. */
export async function embedBriefChunks(text: string, embedder: Embedder, notes?: string[]): Promise<{ texts: string[]; vectors: Float32Array[] }> {
  const { metadata, body } = extractMetadata('brief.md', text, ['history'], '');
  const chunks = chunkMarkdown(body, metadata.title, {
    maxTokens: embedder.maxTokens - 2,
    minTokens: 24,
    countTokens: (t) => embedder.countTokens(t),
  });
  const capped = chunks.length ? capBriefChunks(chunks, notes) : [];
  const texts = capped.length ? capped.map((c) => c.text) : [text.slice(0, MAX_CHECK_CHARS)];
  const vectors = await embedder.embed(capped.length ? capped.map((c) => c.embedText) : [text.slice(0, MAX_CHECK_CHARS)]);
  return { texts, vectors };
}

/**
 * Score each past document by its best (brief chunk, document chunk) pair and
 * keep the k best distinct documents.
 */
export function nearestDocuments(store: VectorStore, briefVectors: Float32Array[], k: number, type: 'history' | 'standard'): HistoryMatch[] {
  const best = new Map<string, { hit: SearchHit; chunk: number }>();
  const available = store.count(type);
  // One long document can fill every chunk retrieved: widen until k documents or the whole store.
  for (let want = k * CHUNKS_PER_DOC; ; want *= 4) {
    best.clear();
    briefVectors.forEach((v, chunk) => {
      for (const hit of store.search(v, want, type)) {
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
  };
}

/** The history check proper: nearest k past documents, classified on the top score. */
export function checkHistory(store: VectorStore, briefVectors: Float32Array[], k: number, thresholds: Thresholds, scoring?: Scoring): HistoryCheck {
  const nearest = scoring ? rescore(store, briefVectors, k, 'history', scoring) : nearestDocuments(store, briefVectors, k, 'history');
  const status = classifyScore(nearest[0]?.score, thresholds);
  const matches = nearest.filter((m) => m.score >= thresholds.related);
  return { status, matches, nearest };
}
