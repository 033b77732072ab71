import type { CorpusType } from '../corpus/types.js';
import type { VectorStore } from '../index/types.js';
import { rescore, type Scoring } from '../scoring/rank.js';
import type { HistoryMatch } from '../scoring/match.js';

export interface SearchResult extends HistoryMatch {
  /** The index types this document is in (a document indexed as both is listed once). */
  types: CorpusType[];
}

/**
 * "Have we worked on X?" (`agentos search`, the MCP server's search_history): the best
 * documents across the index, past work scored as the check scores it (same work),
 * standards as the Librarian does (governs), merged by path keeping the higher score.
 */
export function searchIndex(store: VectorStore, vectors: Float32Array[], scoring: Scoring, o: { types: CorpusType[]; limit: number }): SearchResult[] {
  const byPath = new Map<string, SearchResult>();
  for (const type of o.types) {
    if (store.count(type) === 0) continue;
    for (const m of rescore(store, vectors, o.limit, type, scoring)) {
      const prev = byPath.get(m.filePath);
      if (!prev || m.score > prev.score) byPath.set(m.filePath, { ...m, types: [type, ...(prev?.types ?? [])] });
      else if (!prev.types.includes(type)) prev.types.push(type);
    }
  }
  return [...byPath.values()].sort((a, b) => b.score - a.score);
}
