import { chunkMarkdown } from '../chunks/chunk.js';
import { capBriefChunks, MAX_CHECK_CHARS } from './brief-limit.js';
import type { ParsedBrief } from './parsed-brief.js';
import type { Embedder } from '../embeddings/embedder.js';
import type { VectorIndex } from '../index/types.js';
import { classifyScore, type HistoryStatus, type Thresholds } from './classify.js';
import { rescore, type Scoring } from '../scoring/rank.js';
import { nearestDocuments, type HistoryMatch } from '../scoring/match.js';

// The match types live with the retrieval that makes them (src/work-memory/scoring/match.ts); re-exported for the check's callers.
export { nearestDocuments, toMatch, type HistoryMatch, type MatchComponents } from '../scoring/match.js';

export interface HistoryCheck {
  status: HistoryStatus;
  /** Matches that count for the status: >= related threshold, best first. */
  matches: HistoryMatch[];
  /** The k nearest documents whatever their score (for --json and logs). */
  nearest: HistoryMatch[];
}

/** Embed the brief as the index embeds documents. */
export async function embedBrief(brief: ParsedBrief, embedder: Embedder, notes?: string[]): Promise<Float32Array[]> {
  return (await embedBriefChunks(brief, embedder, notes)).vectors;
}

/** The brief's chunks (their text, for "why it matched") and their vectors. */
export async function embedBriefChunks(
  brief: ParsedBrief,
  embedder: Embedder,
  notes?: string[],
): Promise<{ texts: string[]; vectors: Float32Array[] }> {
  const { title, body, text } = brief;
  const chunks = chunkMarkdown(body, title, {
    maxTokens: embedder.maxTokens - 2,
    minTokens: 24,
    countTokens: (t) => embedder.countTokens(t),
  });
  const capped = chunks.length ? capBriefChunks(chunks, notes) : [];
  const texts = capped.length ? capped.map((c) => c.text) : [text.slice(0, MAX_CHECK_CHARS)];
  const vectors = await embedder.embed(
    capped.length ? capped.map((c) => c.embedText) : [text.slice(0, MAX_CHECK_CHARS)],
  );
  return { texts, vectors };
}

/** The history check proper: nearest k past documents, classified on the top score. */
export function checkHistory(
  index: VectorIndex,
  briefVectors: Float32Array[],
  k: number,
  thresholds: Thresholds,
  scoring?: Scoring,
): HistoryCheck {
  const nearest = scoring
    ? rescore(index, briefVectors, k, 'history', scoring)
    : nearestDocuments(index, briefVectors, k, 'history');
  const status = classifyScore(nearest[0]?.score, thresholds);
  const matches = nearest.filter((m) => m.score >= thresholds.related);
  return { status, matches, nearest };
}
