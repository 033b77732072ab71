/**
 * The organisation as one index for a check (issue 23, `--scope org`): this
 * repository's own live index, fresh to the last edit, plus the candidates of every
 * other repository fetched from the team store. Both are scored by the same
 * rescore() as a local check, against the statistics of the whole organisation (the
 * corpus size, and for BM25 each term's document count and the mean length), so one
 * corpus gives the same statuses and scores from either index.
 *
 * Another repository's document keeps its repository (`doc.repository`) and is keyed
 * `<repository>:<path>`, so its paths and issue ids never merge with this one's.
 */
import { dot, meanVector } from '../embeddings/embedder.js';
import type { CorpusType } from '../corpus/types.js';
import { Bm25Index, type CorpusStats, type LexicalDoc } from '../lexical/bm25.js';
import type { LexicalData } from '../lexical/file.js';
import type { SearchHit, StoredDoc, VectorIndex } from '../index/types.js';
import type { FetchedDoc, OrgRepository } from './fetch.js';

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
export class OrgIndex implements VectorIndex {
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

/**
 * The whole organisation as BM25 weighs it: documents, mean length and each term's
 * document count, summed over this repository's lexical index and the other
 * repositories' totals (`orgDf`: their document counts per term, read live).
 */
export function orgCorpusStats(
  local: Bm25Index,
  repositories: OrgRepository[],
  orgDf: Map<string, number>,
): CorpusStats {
  const docCount = local.docs.length + repositories.reduce((n, r) => n + r.docs, 0);
  const totalLen = local.heldLength + repositories.reduce((n, r) => n + r.lexicalLen, 0);
  return {
    docCount,
    avgLen: docCount ? Math.max(1, totalLen / docCount) : 1,
    df: (term) => local.heldDf(term) + (orgDf.get(term) ?? 0),
  };
}

/** This repository's lexical index plus the fetched documents, weighing terms as the whole organisation does. */
export function orgLexical(local: LexicalData, fetched: FetchedDoc[], stats: CorpusStats): LexicalData {
  const foreignDocs: LexicalDoc[] = fetched.map((f) => ({
    path: foreignKey(f.repository, f.path),
    len: f.lexicalLen,
    tf: f.tf,
  }));
  const bm25 = new Bm25Index([...local.bm25.docs, ...foreignDocs], stats);
  // Boilerplate is judged by this repository's templates: the brief is written here.
  return { bm25, templates: local.templates };
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
