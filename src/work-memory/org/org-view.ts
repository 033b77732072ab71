/**
 * The org view's index: the organisation as one index for a check (issue 23, `--scope org`): this
 * repository's own live index, fresh to the last edit, plus the candidates of every
 * other repository fetched from the team store. Both are scored by the same
 * rescore() as a local check. Each document's words are weighed by its own
 * repository's statistics (the corpus size, each term's document count and the mean
 * length: issue 47), so a repository's documents score as its own check scores them,
 * whatever the other repositories hold, and one corpus gives the same statuses and
 * scores from either index.
 *
 * Another repository's document keeps its repository (`doc.repository`) and is keyed
 * `<repository>:<path>`, so its paths and issue ids never merge with this one's.
 */
import { dot, meanVector } from '../embeddings/embedder.js';
import type { CorpusType } from '../corpus/types.js';
import { Bm25Index, bm25Idf, type CorpusStats, type LexicalDoc } from '../lexical/bm25.js';
import type { LexicalData, LexicalView } from '../lexical/file.js';
import { PartitionedBm25 } from '../lexical/partitioned.js';
import type { SearchHit, StoredDoc, VectorIndex } from '../index/types.js';
import type { FetchedDoc, OrgRepository } from './fetch.js';
import type { RepositoryFrequencies, RepositoryTerm } from './fetch-lexical.js';

/** Labels of fetched chunks start here: far above any local label, so the two never meet. */
const FOREIGN_LABELS = 2 ** 40;

interface ForeignChunk {
  label: number;
  vector: Float32Array;
  doc: StoredDoc;
  section: string;
  excerpt: string;
}

/** The fetched documents of other repositories, searched exactly (they are a few hundred chunks at most). */
export class ForeignDocs {
  readonly chunks: ForeignChunk[] = [];
  private readonly byKey = new Map<string, { doc: StoredDoc; chunks: ForeignChunk[]; mean: Float32Array | null }>();

  constructor(docs: FetchedDoc[]) {
    for (const f of docs) {
      const key = foreignKey(f.repository, f.path);
      const doc: StoredDoc = { ...f.metadata, filePath: key, labels: [], repository: f.repository };
      const mine: ForeignChunk[] = [];
      for (const c of f.chunks) {
        const label = FOREIGN_LABELS + this.chunks.length;
        doc.labels.push(label);
        const chunk = { label, vector: c.vector, doc, section: c.section, excerpt: c.excerpt };
        this.chunks.push(chunk);
        mine.push(chunk);
      }
      this.byKey.set(key, { doc, chunks: mine, mean: mine.length ? meanVector(mine.map((c) => c.vector)) : null });
    }
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  doc(key: string): StoredDoc | undefined {
    return this.byKey.get(key)?.doc;
  }

  docMean(key: string): Float32Array | null {
    return this.byKey.get(key)?.mean ?? null;
  }

  count(type?: CorpusType): number {
    return type ? this.chunks.filter((c) => c.doc.types.includes(type)).length : this.chunks.length;
  }

  search(vector: Float32Array, k: number, type?: CorpusType): SearchHit[] {
    return this.chunks
      .filter((c) => !type || c.doc.types.includes(type))
      .map((c) => ({
        label: c.label,
        score: dot(vector, c.vector),
        doc: c.doc,
        section: c.section,
        excerpt: c.excerpt,
      }))
      .sort((a, b) => b.score - a.score || a.label - b.label)
      .slice(0, Math.max(0, k));
  }

  scoreDoc(key: string, vectors: Float32Array[]): (SearchHit & { vectorIndex: number }) | null {
    const entry = this.byKey.get(key);
    if (!entry) return null;
    let best: (SearchHit & { vectorIndex: number }) | null = null;
    for (const c of entry.chunks)
      vectors.forEach((v, vectorIndex) => {
        const score = dot(v, c.vector);
        if (!best || score > best.score)
          best = { label: c.label, score, doc: entry.doc, section: c.section, excerpt: c.excerpt, vectorIndex };
      });
    return best;
  }
}

/** The local index and the fetched documents as one VectorIndex, sized as the whole organisation. */
export class OrgVectorIndex implements VectorIndex {
  constructor(
    private readonly local: VectorIndex,
    private readonly foreign: ForeignDocs,
    /** Documents of each type in the other repositories (all of them, not only those fetched). */
    private readonly foreignDocs: { all: number; history: number; standard: number },
  ) {}

  get manifest() {
    return this.local.manifest;
  }

  count(type?: CorpusType): number {
    return this.local.count(type) + this.foreign.count(type);
  }

  search(vector: Float32Array, k: number, type?: CorpusType): SearchHit[] {
    return [...this.local.search(vector, k, type), ...this.foreign.search(vector, k, type)]
      .sort((a, b) => b.score - a.score)
      .slice(0, Math.max(0, k));
  }

  scoreDoc(filePath: string, vectors: Float32Array[]): (SearchHit & { vectorIndex: number }) | null {
    return this.foreign.has(filePath)
      ? this.foreign.scoreDoc(filePath, vectors)
      : (this.local.scoreDoc?.(filePath, vectors) ?? null);
  }

  doc(filePath: string): StoredDoc | undefined {
    return this.foreign.doc(filePath) ?? this.local.doc?.(filePath);
  }

  docCount(type?: CorpusType): number {
    return (this.local.docCount?.(type) ?? 0) + this.foreignDocs[type ?? 'all'];
  }

  docMean(filePath: string): Float32Array | null {
    return this.foreign.has(filePath) ? this.foreign.docMean(filePath) : (this.local.docMean?.(filePath) ?? null);
  }
}

/** A repository's collection as BM25 weighs it: its own totals and document frequencies (read live). */
export function repositoryStats(r: OrgRepository, df: ReadonlyMap<string, number> | undefined): CorpusStats {
  return { docCount: r.docs, avgLen: r.docs ? Math.max(1, r.lexicalLen / r.docs) : 1, df: (t) => df?.get(t) ?? 0 };
}

/**
 * The brief's terms as each repository weighs them, for the store's lexical candidates (fetch.ts): the IDF
 * there, and the weight, which is the IDF over the brief's score against itself there (so a document's sum
 * is the share of the brief it matches, comparable between repositories).
 */
export function repositoryTerms(
  repositories: OrgRepository[],
  dfs: RepositoryFrequencies,
  tokens: string[],
): RepositoryTerm[] {
  const out: RepositoryTerm[] = [];
  for (const r of repositories) {
    const stats = repositoryStats(r, dfs.get(r.id));
    const self = new Bm25Index([], stats).selfScore(tokens) || 1;
    for (const term of new Set(tokens)) {
      const df = stats.df(term);
      const idf = bm25Idf(stats.docCount, df);
      if (df > 0 && idf > 0) out.push({ repository: r.id, term, idf, df, weight: idf / self, avgLen: stats.avgLen });
    }
  }
  return out;
}

/**
 * This repository's lexical index beside the documents fetched from each other repository, every document
 * weighed by its own repository's statistics (lexical/partitioned.ts): what one writer adds to her
 * repository changes how her documents score, never a teammate's.
 */
export function orgLexical(
  local: LexicalData,
  fetched: FetchedDoc[],
  repositories: OrgRepository[],
  dfs: RepositoryFrequencies,
): LexicalView {
  const parts: Bm25Index[] = [local.bm25];
  for (const r of repositories) {
    const docs: LexicalDoc[] = fetched
      .filter((f) => f.repository === r.name)
      .map((f) => ({ path: foreignKey(f.repository, f.path), len: f.lexicalLen, tf: f.tf }));
    if (docs.length) parts.push(new Bm25Index(docs, repositoryStats(r, dfs.get(r.id))));
  }
  // Boilerplate is judged by this repository's templates: the brief is written here.
  return { bm25: new PartitionedBm25(parts), templates: local.templates };
}

/**
 * How another repository's document is keyed and shown: `<repository>:<path>`, with any colon of the
 * repository's name written `%3A` (a self-hosted remote keeps its port: `git.example.com%3A8443/team/web`),
 * so that the first colon always ends the name and no name and path can spell another's key (issue 47:
 * `git.example.com` + `8443/team/web:docs/…` took `git.example.com:8443/team/web`'s match away).
 */
export function foreignKey(repository: string, path: string): string {
  return `${repository.replace(/%/g, '%25').replace(/:/g, '%3A')}:${path}`;
}
