import { termCounts } from './tokenize.js';

/** BM25 constants (the usual Robertson values). */
export const K1 = 1.2;
export const B = 0.75;

/** One document as the lexical index stores it: content tokens counted (template text removed). */
export interface LexicalDoc {
  path: string;
  len: number;
  tf: Map<string, number>;
}

export interface LexicalHit {
  path: string;
  /** Raw BM25 of the query against the document. */
  bm25: number;
  /** BM25 divided by the query's score against itself: the share of the query's lexical weight matched, in [0, 1]. */
  norm: number;
  /** Query terms the document shares, rarest first (for --json and the why-matched line). */
  shared: string[];
}

/**
 * Read side of lexical retrieval. The in-memory BM25 below is one
 * implementation; the org view (org/org-view.ts) is built from the same class.
 */
export interface LexicalIndex {
  readonly docCount: number;
  /** Inverse document frequency of a term (0 when the term is in no document). */
  idf(term: string): number;
  /** Score documents sharing a term with the query; best first, at most k (all when k is omitted). */
  search(queryTokens: string[], k?: number, only?: (path: string) => boolean): LexicalHit[];
  /** Score one document by path (null when it is not indexed). */
  scoreDoc(queryTokens: string[], path: string): LexicalHit | null;
  /** The distinct terms of a document (for the near-verbatim rule). */
  termsOf(path: string): ReadonlySet<string> | ReadonlyMap<string, number> | undefined;
}

/**
 * The collection BM25 weighs terms against, when it is larger than the documents held:
 * the org-scope check holds a few candidates of another repository but scores them
 * against every document of that repository (src/work-memory/org). Fixed once an index
 * is built on it: the index remembers each term's IDF.
 */
export interface CorpusStats {
  docCount: number;
  avgLen: number;
  /** Documents of the collection holding a term. */
  df(term: string): number;
}

/** BM25's inverse document frequency of a term held by `df` of `docCount` documents (0 when none holds it). */
export function bm25Idf(docCount: number, df: number): number {
  return df === 0 ? 0 : Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
}

/**
 * What a check reads of the lexical side: one collection (Bm25Index), or several read as one with each
 * document weighed by its own (partitioned.ts, the org-scope check).
 */
export interface LexicalScorer {
  search(queryTokens: string[], k?: number, only?: (path: string) => boolean): LexicalHit[];
  scoreDoc(queryTokens: string[], path: string): LexicalHit | null;
  termsOf(path: string): ReadonlyMap<string, number> | undefined;
  /** IDF and document share in the collection a brief is weighed by when no document is named. */
  idf(term: string): number;
  docShare(term: string): number;
  idfSum(path: string): number;
  /** The collection whose statistics weigh this document. */
  weigherOf(path: string): Bm25Index;
}

/** BM25 over whole documents, postings built at load. */
export class Bm25Index implements LexicalIndex, LexicalScorer {
  private readonly postings = new Map<string, Array<[number, number]>>();
  private readonly byPath = new Map<string, number>();
  private readonly avgLen: number;

  constructor(
    readonly docs: LexicalDoc[],
    private readonly stats?: CorpusStats,
  ) {
    let total = 0;
    docs.forEach((d, i) => {
      total += d.len;
      this.byPath.set(d.path, i);
      for (const [t, c] of d.tf) {
        let p = this.postings.get(t);
        if (!p) this.postings.set(t, (p = []));
        p.push([i, c]);
      }
    });
    this.avgLen = stats ? stats.avgLen : docs.length ? Math.max(1, total / docs.length) : 1;
  }

  get docCount(): number {
    return this.stats ? this.stats.docCount : this.docs.length;
  }

  /** Documents holding a term, in the collection scored against (the documents held, without `stats`). */
  private df(term: string): number {
    return this.stats ? this.stats.df(term) : (this.postings.get(term)?.length ?? 0);
  }

  /**
   * Each term's IDF once: the reverse lexical share sums it over every candidate's terms (org check
   * profile: 5 ms of logarithms). Only terms the collection holds: a long-lived server's index is
   * asked for every word agents send, and an unknown one costs nothing to answer again.
   */
  private readonly idfs = new Map<string, number>();

  idf(term: string): number {
    let v = this.idfs.get(term);
    if (v === undefined) {
      const df = this.df(term);
      v = bm25Idf(this.docCount, df);
      if (df > 0) this.idfs.set(term, v);
    }
    return v;
  }

  private idfSums = new Map<number, number>();

  /** Sum of the IDF of a document's distinct terms (remembered: the reverse lexical share divides by it). */
  idfSum(path: string): number {
    const i = this.byPath.get(path);
    if (i === undefined) return 0;
    let s = this.idfSums.get(i);
    if (s === undefined) {
      s = 0;
      for (const t of this.docs[i].tf.keys()) s += this.idf(t);
      this.idfSums.set(i, s);
    }
    return s;
  }

  /** Share of the documents holding a term. */
  docShare(term: string): number {
    return this.docCount ? this.df(term) / this.docCount : 0;
  }

  /** A query term unseen in the corpus is as rare as a term in one document. */
  private queryIdf(term: string): number {
    return this.idf(term) || Math.log(1 + (this.docCount - 0.5) / 1.5);
  }

  private termScore(tf: number, len: number): number {
    return (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / this.avgLen));
  }

  /** The query scored against itself: the most any document could match of it. */
  selfScore(queryTokens: string[]): number {
    const tf = termCounts(queryTokens);
    let s = 0;
    for (const [t, c] of tf) s += this.queryIdf(t) * this.termScore(c, queryTokens.length);
    return s;
  }

  search(queryTokens: string[], k?: number, only?: (path: string) => boolean): LexicalHit[] {
    const { hits, self, terms } = this.ranked(queryTokens, k, only);
    return hits.map(({ i, s }) => this.hit(i, s, self, terms));
  }

  /** The best documents by BM25, without the terms each shares (a partitioned search merges these, then reads its best). */
  scores(
    queryTokens: string[],
    k?: number,
    only?: (path: string) => boolean,
  ): Array<{ path: string; bm25: number; norm: number }> {
    const { hits, self } = this.ranked(queryTokens, k, only);
    return hits.map(({ i, s }) => ({ path: this.docs[i].path, bm25: s, norm: Math.min(1, s / self) }));
  }

  private ranked(
    queryTokens: string[],
    k?: number,
    only?: (path: string) => boolean,
  ): { hits: Array<{ i: number; s: number }>; self: number; terms: string[] } {
    const scores = new Map<number, number>();
    const terms = [...new Set(queryTokens)];
    for (const t of terms) {
      const idf = this.idf(t);
      const p = this.postings.get(t);
      if (!p || idf <= 0) continue;
      for (const [i, c] of p) scores.set(i, (scores.get(i) ?? 0) + idf * this.termScore(c, this.docs[i].len));
    }
    const self = this.selfScore(queryTokens) || 1;
    const hits: Array<{ i: number; s: number }> = [];
    for (const [i, s] of scores) if (!only || only(this.docs[i].path)) hits.push({ i, s });
    hits.sort((a, b) => b.s - a.s || (this.docs[a.i].path < this.docs[b.i].path ? -1 : 1));
    return { hits: hits.slice(0, k ?? hits.length), self, terms };
  }

  weigherOf(): Bm25Index {
    return this;
  }

  termsOf(path: string): ReadonlyMap<string, number> | undefined {
    const i = this.byPath.get(path);
    return i === undefined ? undefined : this.docs[i].tf;
  }

  scoreDoc(queryTokens: string[], path: string): LexicalHit | null {
    const i = this.byPath.get(path);
    if (i === undefined) return null;
    const d = this.docs[i];
    const terms = [...new Set(queryTokens)];
    let s = 0;
    for (const t of terms) {
      const c = d.tf.get(t);
      if (c) s += this.idf(t) * this.termScore(c, d.len);
    }
    return this.hit(i, s, this.selfScore(queryTokens) || 1, terms);
  }

  private hit(i: number, s: number, self: number, terms: string[]): LexicalHit {
    const d = this.docs[i];
    const shared = terms.filter((t) => d.tf.has(t)).sort((a, b) => this.idf(b) - this.idf(a) || (a < b ? -1 : 1));
    return { path: d.path, bm25: s, norm: Math.min(1, s / self), shared: shared.slice(0, 8) };
  }
}
