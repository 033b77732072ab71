import type { CorpusType, DocMetadata } from '../corpus/types.js';
import type { SourcesState } from '../sources/types.js';

export const INDEX_FORMAT_VERSION = 1;

/** Everything a reader must agree with before trusting the vectors. */
export interface Manifest {
  formatVersion: number;
  modelId: string;
  modelFingerprint: string;
  dimensions: number;
  maxTokens: number;
  chunkingVersion: number;
  /** The metadata rules the documents were read with (corpus/metadata.ts METADATA_VERSION); absent: 1. */
  metadataVersion?: number;
  includeHistory: boolean;
  createdAt: string;
  /** Live chunks (deleted labels excluded). */
  chunkCount: number;
  /** Next free HNSW label; labels are never reused within a lineage. */
  nextLabel: number;
  /** Labels marked deleted in the HNSW graph but not yet compacted away. */
  deletedCount: number;
  /** Per-file content hash plus the stat pair that lets a no-op run skip reading. */
  files: Record<string, { hash: string; size: number; mtimeMs: number }>;
  /**
   * Files the globs matched that the build could not index (binary, too large,
   * no text), with the stat pair, so a freshness check does not take them for new.
   * Optional: indexes written before it existed lack it (and the two below).
   */
  skipped?: Record<string, { size: number; mtimeMs: number; reason: string }>;
  /** Documents of each type (a document may be both). */
  coverage?: { standard: number; history: number };
  /** Identity of the corpus globs and size limit the index was built with (src/work-memory/index/freshness.ts). */
  corpusConfigHash?: string;
  /** What git and the tracker exports held when the index was built (src/work-memory/sources): a freshness check compares it without reading history. */
  sources?: SourcesState;
  /**
   * Work appended since the base files were written whole (delta.ts): its documents and chunks,
   * and the first label of its vectors. Absent: the generation is whole (formatVersion 1).
   */
  delta?: { docs: number; chunks: number; firstLabel: number };
  /** Sizes (and a hash of meta) so truncation or tampering is caught before hnswlib reads. */
  integrity: {
    vectorsBytes: number;
    vectorsHeadSha256: string;
    metaBytes: number;
    metaSha256: string;
    /** Files stored beside the vectors (e.g. lexical.json), by name. */
    extra?: Record<string, { bytes: number; sha256: string }>;
  };
}

export interface StoredDoc extends DocMetadata {
  labels: number[];
  /** Another repository's document, read from the team store (org scope); absent for this repository's own. */
  repository?: string;
}

/** [label, doc index, section, excerpt] — arrays keep meta.json compact at 100k chunks. */
export type StoredChunk = [number, number, string, string];

export interface IndexMeta {
  docs: StoredDoc[];
  chunks: StoredChunk[];
}

export interface SearchHit {
  label: number;
  score: number;
  doc: StoredDoc;
  section: string;
  excerpt: string;
}

/**
 * Read side of the index. The HNSW file is one implementation (hnsw-index.ts); the
 * org view (org/org-view.ts: this index plus what the team store holds) is the other.
 */
export interface VectorIndex {
  readonly manifest: Manifest;
  /** Live chunks of a type (all types when omitted). */
  count(type?: CorpusType): number;
  /** Nearest chunks, best first; at most `k`, fewer when the index holds fewer. */
  search(vector: Float32Array, k: number, type?: CorpusType): SearchHit[];
  /** A document's chunks as hits scored against `vectors` (best chunk first); for documents found lexically. */
  scoreDoc?(filePath: string, vectors: Float32Array[]): (SearchHit & { vectorIndex: number }) | null;
  /** A document's metadata by path (for matches found lexically). */
  doc?(filePath: string): StoredDoc | undefined;
  /** Every document of a type (the standards check looks up the standards a brief names). */
  documents?(type: CorpusType): StoredDoc[];
  /** Documents (not chunks) of a type: the corpus size the calibrated score takes into account. */
  docCount?(type?: CorpusType): number;
  /** The normalised mean of a document's chunk vectors (the whole-text cosine), null for an unknown document. */
  docMean?(filePath: string): Float32Array | null;
}
