/**
 * Several collections read as one, each document weighed by its own collection's statistics
 * (issue 47). The org-scope check reads this repository's index beside candidates fetched from
 * other repositories; each repository's documents are scored against that repository's totals and
 * document frequencies, as its own check would score them, so rows one writer adds to her
 * repository (a flood of documents holding a teammate's words) change how her documents score and
 * nobody else's. Search engines that shard do the same by default (per-shard term statistics).
 */
import type { Bm25Index, LexicalHit, LexicalScorer } from './bm25.js';

export class PartitionedBm25 implements LexicalScorer {
  private readonly byPath = new Map<string, Bm25Index>();

  /** `parts[0]` is the collection a brief's terms are weighed by when no document is named (this repository's). */
  constructor(private readonly parts: Bm25Index[]) {
    if (!parts.length) throw new Error('PartitionedBm25: at least one collection');
    for (const part of parts) for (const d of part.docs) if (!this.byPath.has(d.path)) this.byPath.set(d.path, part);
  }

  /** The collection whose statistics weigh a document: its own. */
  weigherOf(path: string): Bm25Index {
    return this.byPath.get(path) ?? this.parts[0];
  }

  /** Every collection's best, by the share of the query each matches (raw BM25 differs in scale between collections). */
  search(queryTokens: string[], k?: number, only?: (path: string) => boolean): LexicalHit[] {
    if (this.parts.length === 1) return this.parts[0].search(queryTokens, k, only);
    return this.parts
      .flatMap((p) => p.scores(queryTokens, k, only))
      .sort((a, b) => b.norm - a.norm || b.bm25 - a.bm25 || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
      .slice(0, k)
      .map((h) => this.scoreDoc(queryTokens, h.path)!);
  }

  scoreDoc(queryTokens: string[], path: string): LexicalHit | null {
    return this.byPath.get(path)?.scoreDoc(queryTokens, path) ?? null;
  }

  termsOf(path: string): ReadonlyMap<string, number> | undefined {
    return this.byPath.get(path)?.termsOf(path);
  }

  idf(term: string): number {
    return this.parts[0].idf(term);
  }

  docShare(term: string): number {
    return this.parts[0].docShare(term);
  }

  idfSum(path: string): number {
    return this.weigherOf(path).idfSum(path);
  }
}
