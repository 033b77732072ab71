import { createHash } from 'node:crypto';
import { openSync, readSync, closeSync, statSync } from 'node:fs';
import { IndexUnavailableError } from '../../shared/errors.js';
import { BoundedReadError, fileKind, readRegularFileSync } from '../../shared/fsutil/bounded-read.js';
import type { CorpusType } from '../corpus/types.js';
import { indexPaths } from './layout.js';
import {
  INDEX_FORMAT_VERSION,
  type IndexMeta,
  type Manifest,
  type SearchHit,
  type StoredDoc,
  type VectorIndex,
} from './types.js';
import { loadHnswlib, type HnswGraph } from './hnswlib.js';
import { normalise } from '../embeddings/embedder.js';
import { APPEND_FORMAT_VERSION, DELTA_VECTORS, mergeMeta, readChecked, readDelta } from './delta.js';
import path from 'node:path';

/** Search breadth: recall@3 against an exact scan is measured by `npm run bench`. */
export const EF_SEARCH = 96;
const TYPE_BIT: Record<CorpusType, number> = { standard: 1, history: 2 };

export interface ExpectedModel {
  modelId: string;
  modelFingerprint: string;
  dimensions: number;
}

export const REBUILD_HINT = 'run `agentos index --full`';

/** Chunk vectors kept out of the graph (1.5 KB each at 384 dimensions: 30 MB at most). */
export const MAX_KEPT_POINTS = 20_000;

export class HnswIndex implements VectorIndex {
  private byLabel = new Map<number, { doc: StoredDoc; section: string; excerpt: string; bits: number }>();
  private counts = { all: 0, standard: 0, history: 0 };

  constructor(
    readonly manifest: Manifest,
    readonly meta: IndexMeta,
    /** The base's graph: every label below the delta's first. */
    readonly graph: HnswGraph,
    /** The appended work's graph (delta.ts), labels from `manifest.delta.firstLabel` on; null for a whole generation. */
    readonly deltaGraph: HnswGraph | null = null,
  ) {
    for (const [label, docIdx, section, excerpt] of meta.chunks) {
      const doc = meta.docs[docIdx];
      let bits = 0;
      for (const t of doc.types) bits |= TYPE_BIT[t];
      this.byLabel.set(label, { doc, section, excerpt, bits });
      this.counts.all++;
      if (bits & 1) this.counts.standard++;
      if (bits & 2) this.counts.history++;
    }
  }

  count(type?: CorpusType): number {
    return type ? this.counts[type] : this.counts.all;
  }

  private docsByPath: Map<string, StoredDoc> | null = null;

  doc(filePath: string): StoredDoc | undefined {
    this.docsByPath ??= new Map(this.meta.docs.map((d) => [d.filePath, d]));
    return this.docsByPath.get(filePath);
  }

  documents(type: CorpusType): StoredDoc[] {
    return this.meta.docs.filter((d) => d.types.includes(type));
  }

  private docCounts: Record<string, number> | null = null;

  docCount(type?: CorpusType): number {
    if (!this.docCounts) {
      this.docCounts = { all: this.meta.docs.length, standard: 0, history: 0 };
      for (const d of this.meta.docs) for (const t of d.types) this.docCounts[t]++;
    }
    return this.docCounts[type ?? 'all'];
  }

  /** Documents' mean vectors, filled by scoreDoc's one read of their points. */
  private means = new Map<string, Float32Array | null>();

  /**
   * Chunk vectors read back from the graph, kept: getPoint builds a JS array of 384 numbers
   * (~35 µs) per call, and a long-lived server scores the same documents on every check
   * (issue 31: 8 of a warm check's 20 ms). 1.5 KB a chunk, at most MAX_KEPT_POINTS of them
   * (the oldest read leave first): the index itself holds every vector already.
   */
  private points = new Map<number, Float32Array>();

  /** The graph that holds a label: the delta's for appended work, else the base's. */
  private graphOf(label: number): HnswGraph {
    return this.deltaGraph && label >= (this.manifest.delta?.firstLabel ?? Infinity) ? this.deltaGraph : this.graph;
  }

  /** A chunk's vector as stored (a fresh array: the caller may keep or change it). */
  vector(label: number): number[] {
    return this.graphOf(label).getPoint(label);
  }

  /** The labels of the appended work's chunks (empty for a whole generation). */
  appendedLabels(): number[] {
    const first = this.manifest.delta?.firstLabel;
    return first === undefined ? [] : this.meta.chunks.filter((c) => c[0] >= first).map((c) => c[0]);
  }

  private point(label: number): Float32Array {
    let p = this.points.get(label);
    if (!p) {
      p = Float32Array.from(this.vector(label));
      this.points.set(label, p);
      if (this.points.size > MAX_KEPT_POINTS) this.points.delete(this.points.keys().next().value as number);
    }
    return p;
  }

  /**
   * The normalised mean of a document's chunk vectors (the text as a whole),
   * remembered: getPoint costs ~35 µs a chunk, and the history check and the
   * standards check ask for the same documents. Read by scoreDoc (no brief vectors).
   */
  docMean(filePath: string): Float32Array | null {
    if (!this.means.has(filePath)) this.scoreDoc(filePath, []);
    return this.means.get(filePath) ?? null;
  }

  /** Exact best-chunk cosine of one document (its vectors read back from the graph). */
  scoreDoc(filePath: string, vectors: Float32Array[]): (SearchHit & { vectorIndex: number }) | null {
    const doc = this.doc(filePath);
    if (!doc) return null;
    let best: (SearchHit & { vectorIndex: number }) | null = null;
    // The points are read anyway: keep their mean for docMean (the whole-text cosine asks next).
    // Summed from the kept points: no Float32Array per chunk per call (garbage was half the cost).
    const sum = this.means.has(filePath) ? null : new Float32Array(this.manifest.dimensions);
    let live = 0;
    for (const label of doc.labels) {
      const c = this.byLabel.get(label);
      if (!c) continue;
      const point = this.point(label);
      live++;
      if (sum) for (let i = 0; i < sum.length; i++) sum[i] += point[i];
      for (let vectorIndex = 0; vectorIndex < vectors.length; vectorIndex++) {
        const v = vectors[vectorIndex];
        let dot = 0;
        for (let i = 0; i < v.length; i++) dot += v[i] * point[i];
        if (!best || dot > best.score)
          best = { label, score: dot, doc, section: c.section, excerpt: c.excerpt, vectorIndex };
      }
    }
    if (sum) {
      normalise(sum);
      this.means.set(filePath, live ? sum : null);
    }
    return best;
  }

  search(vector: Float32Array, k: number, type?: CorpusType): SearchHit[] {
    const n = this.count(type);
    if (n === 0 || k <= 0) return [];
    const want = Math.min(k, n);
    const bit = type ? TYPE_BIT[type] : 0;
    const filter =
      bit && n < this.counts.all ? (label: number) => ((this.byLabel.get(label)?.bits ?? 0) & bit) !== 0 : undefined;
    const query = Array.from(vector);
    const hits: SearchHit[] = [];
    // Base and delta each give their nearest; the best `want` of both are the index's.
    for (const graph of this.deltaGraph ? [this.graph, this.deltaGraph] : [this.graph]) {
      if (graph.getCurrentCount() === 0) continue;
      graph.setEf(Math.max(EF_SEARCH, want));
      const res = graph.searchKnn(query, Math.min(want, graph.getCurrentCount()), filter);
      res.neighbors.forEach((label, i) => {
        const c = this.byLabel.get(label);
        if (c) hits.push({ label, score: 1 - res.distances[i], doc: c.doc, section: c.section, excerpt: c.excerpt });
      });
    }
    return hits.sort((a, b) => b.score - a.score).slice(0, want);
  }
}

/** Size limits for index files read back (the user's disk may hold anything under those names). */
const MAX_CURRENT_BYTES = 4096;
const MAX_MANIFEST_BYTES = 256 * 1024 * 1024;

/** CURRENT is not a small regular file (a folder, a symlink to /dev/zero, huge): the index cannot be found. */
export class DamagedPointerError extends IndexUnavailableError {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`index pointer ${file} is damaged (${reason}); ${REBUILD_HINT}`);
    this.name = 'DamagedPointerError';
  }
}

/** The live generation's name, or null when no index was ever built. */
export function readCurrent(root: string): string | null {
  const file = indexPaths(root).current;
  let text: string;
  try {
    text = readRegularFileSync(file, MAX_CURRENT_BYTES).toString('utf8');
  } catch (e) {
    if (e instanceof BoundedReadError) {
      if (e.problem === 'missing') return null;
      throw new DamagedPointerError(file, e.reason);
    }
    throw e;
  }
  const name = text.trim();
  return /^gen-[\w-]+$/.test(name) ? name : null;
}

export function headSha(file: string, bytes = 65536): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return createHash('sha256').update(buf.subarray(0, n)).digest('hex');
  } finally {
    closeSync(fd);
  }
}

/**
 * The live generation's manifest without opening its vectors, or null when there is
 * no index or it cannot be read (the callers' question is "what does the index say",
 * and an unreadable one says nothing; opening it reports why).
 */
export function readLiveManifest(root: string): Manifest | null {
  try {
    const name = readCurrent(root);
    return name ? readManifest(indexPaths(root).generation(name).manifest) : null;
  } catch {
    return null;
  }
}

/** Parse and check a manifest; throws IndexUnavailableError naming the problem. */
export function readManifest(file: string): Manifest {
  let m: Manifest;
  try {
    m = JSON.parse(readRegularFileSync(file, MAX_MANIFEST_BYTES).toString('utf8')) as Manifest;
    if (typeof m !== 'object' || m === null || typeof m.integrity !== 'object' || m.integrity === null)
      throw new Error('not an index manifest');
  } catch (e) {
    throw new IndexUnavailableError(
      `index manifest ${file} is unreadable or corrupt (${(e as Error).message.split('\n')[0]}); ${REBUILD_HINT}`,
    );
  }
  // A generation with appended work (delta.ts) is the same format with one more part.
  if (m.formatVersion !== INDEX_FORMAT_VERSION && !(m.formatVersion === APPEND_FORMAT_VERSION && m.delta)) {
    throw new IndexUnavailableError(
      `index format ${m.formatVersion} is not the format this agentos reads (${INDEX_FORMAT_VERSION}); ${REBUILD_HINT}`,
    );
  }
  return m;
}

/**
 * Load the live index for reading. Every way it can be unusable (missing,
 * truncated, corrupt, another model) is an IndexUnavailableError with the fix.
 */
export async function openIndex(root: string, expected?: ExpectedModel): Promise<HnswIndex> {
  const paths = indexPaths(root);
  // A writer may retire the generation between reading CURRENT and opening it: retry once.
  for (let attempt = 0; ; attempt++) {
    const name = readCurrent(root);
    if (!name)
      throw new IndexUnavailableError(`no index in ${paths.dir}; run \`agentos index --include-history\``, 'missing');
    try {
      return await openGeneration(root, name, expected);
    } catch (e) {
      if (attempt === 0 && (e as NodeJS.ErrnoException).code === 'ENOENT' && readCurrent(root) !== name) continue;
      if (e instanceof IndexUnavailableError) throw e;
      throw new IndexUnavailableError(
        `index ${paths.generation(name).dir} is unreadable (${(e as Error).message}); ${REBUILD_HINT}`,
      );
    }
  }
}

export async function openGeneration(root: string, name: string, expected?: ExpectedModel): Promise<HnswIndex> {
  const g = indexPaths(root).generation(name);
  const manifest = readManifest(g.manifest);
  if (expected) {
    if (manifest.modelId !== expected.modelId || manifest.dimensions !== expected.dimensions) {
      throw new IndexUnavailableError(
        `index was built with ${manifest.modelId} (${manifest.dimensions} dims), not ${expected.modelId}; ${REBUILD_HINT}`,
      );
    }
    if (manifest.modelFingerprint !== expected.modelFingerprint && expected.modelFingerprint !== 'unknown') {
      throw new IndexUnavailableError(
        `index was built with other weights of ${manifest.modelId} (fingerprint ${manifest.modelFingerprint}, now ${expected.modelFingerprint}); ${REBUILD_HINT}`,
      );
    }
  }
  const vecStat = statSync(g.vectors);
  if (!vecStat.isFile())
    throw new IndexUnavailableError(
      `index file ${g.vectors} is a ${fileKind(vecStat)}, not a regular file; ${REBUILD_HINT}`,
    );
  const vecBytes = vecStat.size;
  if (vecBytes !== manifest.integrity.vectorsBytes || headSha(g.vectors) !== manifest.integrity.vectorsHeadSha256) {
    throw new IndexUnavailableError(
      `index file ${g.vectors} is truncated or corrupt (${vecBytes} bytes, expected ${manifest.integrity.vectorsBytes}); ${REBUILD_HINT}`,
    );
  }
  let metaBuf: Buffer;
  try {
    // The manifest says how big meta.json is: never read more than that (plus one byte to notice growth).
    metaBuf = readRegularFileSync(g.meta, manifest.integrity.metaBytes + 1);
  } catch (e) {
    if (e instanceof BoundedReadError && e.problem === 'missing')
      throw Object.assign(new Error(e.message), { code: 'ENOENT' });
    throw new IndexUnavailableError(
      `index metadata ${g.meta} is unusable (${e instanceof BoundedReadError ? e.reason : (e as Error).message}); ${REBUILD_HINT}`,
    );
  }
  if (
    metaBuf.length !== manifest.integrity.metaBytes ||
    createHash('sha256').update(metaBuf).digest('hex') !== manifest.integrity.metaSha256
  ) {
    throw new IndexUnavailableError(`index metadata ${g.meta} is truncated or corrupt; ${REBUILD_HINT}`);
  }
  let meta: IndexMeta;
  try {
    meta = JSON.parse(metaBuf.toString('utf8')) as IndexMeta;
  } catch (e) {
    throw new IndexUnavailableError(`index metadata ${g.meta} is corrupt (${(e as Error).message}); ${REBUILD_HINT}`);
  }
  const hnsw = await loadHnswlib();
  const graph = new hnsw.HierarchicalNSW('ip', manifest.dimensions);
  graph.readIndexSync(g.vectors, true);
  const delta = readDelta(g.dir, manifest);
  let deltaGraph: HnswGraph | null = null;
  if (delta && delta.chunks.length) {
    readChecked(g.dir, DELTA_VECTORS, manifest); // its size and hash, before hnswlib reads it
    deltaGraph = new hnsw.HierarchicalNSW('ip', manifest.dimensions);
    deltaGraph.readIndexSync(path.join(g.dir, DELTA_VECTORS), true);
  }
  return new HnswIndex(manifest, mergeMeta(meta, delta), graph, deltaGraph);
}
