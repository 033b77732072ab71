import { chunkMarkdown, CHUNKING_VERSION, type Chunk } from '../chunks/chunk.js';
import type { Config } from '../../shared/config/schema.js';
import { extractMetadata, truncate } from '../corpus/metadata.js';
import { readTextFile } from '../corpus/read.js';
import { scanCorpus } from '../corpus/scan.js';
import { compareText } from '../../shared/text/compare.js';
import type { CorpusFile, DocMetadata, SkippedFile } from '../corpus/types.js';
import type { Embedder } from '../embeddings/embedder.js';
import { IndexUnavailableError } from '../../shared/errors.js';
import { DamagedPointerError, openGeneration, readCurrent, type HnswStore } from './hnsw-store.js';
import { HNSW_EF_CONSTRUCTION, HNSW_M, loadHnswlib, type HnswIndex } from './hnswlib.js';
import { indexPaths } from './layout.js';
import { corpusConfigHash } from './corpus-config.js';
import { acquireLock } from './lock.js';
import { INDEX_FORMAT_VERSION, type IndexMeta, type Manifest, type StoredChunk, type StoredDoc } from './types.js';
import { pruneGenerations, setAsideCurrent, writeGeneration } from './write.js';
import { lexicalFiles } from '../lexical/for-build.js';

export interface ModelIdentity {
  modelId: string;
  modelFingerprint: string;
  dimensions: number;
  maxTokens: number;
}

export type BuildProgress =
  | { phase: 'scan'; files: number }
  | { phase: 'model' }
  | { phase: 'embed'; done: number; total: number; tokens?: number; totalTokens?: number }
  | { phase: 'write' };

export interface BuildOptions {
  root: string;
  config: Config;
  includeHistory: boolean;
  full: boolean;
  /** What the embedder will be, known without loading it (a no-op run never loads the model). */
  model: ModelIdentity;
  loadEmbedder: () => Promise<Embedder>;
  lockWaitMs: number;
  onProgress?: (p: BuildProgress) => void;
  /** Refuse (IndexUnavailableError) instead of rebuilding in full: a refresh before a check must stay quick. */
  incrementalOnly?: boolean;
}

export interface BuildReport {
  scanned: number;
  added: string[];
  changed: string[];
  unchanged: number;
  removed: string[];
  skipped: SkippedFile[];
  warnings: string[];
  chunks: number;
  chunksEmbedded: number;
  tokensEmbedded: number;
  fullRebuildReason: string | null;
  /** No usable index existed before (none, or one holding no documents). */
  firstBuild: boolean;
  wrote: boolean;
  generation: string | null;
}

const EXCERPT_CHARS = 280;
const EMBED_SLICE = 64;
/** Chunks indexed per document (about 250 KB of prose; README "Limits"). */
export const MAX_DOC_CHUNKS = 256;
/** Marked-deleted labels above this share of the graph trigger a compaction. */
const MAX_DELETED_SHARE = 0.25;

interface Prepared {
  file: CorpusFile;
  metadata: DocMetadata;
  chunks: Chunk[];
}

/** Bring the index in line with the corpus: embed what changed, drop what is gone, swap atomically. */
export async function buildIndex(opts: BuildOptions): Promise<BuildReport> {
  const lock = await acquireLock(indexPaths(opts.root).lock, { waitMs: opts.lockWaitMs });
  try {
    return await buildLocked(opts);
  } finally {
    await lock.release();
  }
}

async function buildLocked(opts: BuildOptions): Promise<BuildReport> {
  const { root, config } = opts;
  const { name: previousName, damaged } = await readCurrentOrSetAside(root);
  let existing: HnswStore | null = null;
  let fullRebuildReason: string | null = opts.full ? '--full was given' : null;
  if (!opts.full && previousName) {
    try {
      existing = await openGeneration(root, previousName);
      fullRebuildReason = incompatibility(existing.manifest, opts.model);
      if (fullRebuildReason) existing = null;
    } catch (e) {
      fullRebuildReason = e instanceof IndexUnavailableError ? e.message.replace(/; run .*$/, '') : String(e);
    }
  } else if (!previousName) {
    fullRebuildReason = damaged; // first build: nothing to explain, unless the pointer was damaged
  }
  if (opts.incrementalOnly && (fullRebuildReason || !previousName)) {
    throw new IndexUnavailableError(`the index cannot be updated in place (${fullRebuildReason ?? 'there is none'}); run \`agentos index --full\``);
  }

  const scan = await scanCorpus(root, config.corpus, opts.includeHistory);
  opts.onProgress?.({ phase: 'scan', files: scan.files.length });
  const report: BuildReport = {
    scanned: scan.files.length,
    added: [],
    changed: [],
    unchanged: 0,
    removed: [],
    skipped: [...scan.skipped],
    warnings: [],
    chunks: 0,
    chunksEmbedded: 0,
    tokensEmbedded: 0,
    fullRebuildReason,
    firstBuild: !previousName || (existing !== null && existing.manifest.chunkCount === 0 && Object.keys(existing.manifest.files).length === 0),
    wrote: false,
    generation: previousName,
  };

  const oldFiles = existing?.manifest.files ?? {};
  const oldDocs = new Map((existing?.meta.docs ?? []).map((d) => [d.filePath, d]));
  const keep: StoredDoc[] = [];
  const toEmbed: CorpusFile[] = [];
  // Files read to compare hashes are not read again to be embedded.
  const reads = new Map<string, Awaited<ReturnType<typeof readTextFile>>>();
  const statUpdates: Record<string, { hash: string; size: number; mtimeMs: number }> = {};
  // Files matched but not indexable, with their stat pair (see Manifest.skipped).
  const skippedStats: NonNullable<Manifest['skipped']> = {};
  const configHash = corpusConfigHash(config, opts.includeHistory);
  // An older manifest without coverage or config identity is rewritten once to gain them.
  let metaOnlyChange = existing !== null && (existing.manifest.corpusConfigHash !== configHash || !existing.manifest.coverage);

  for (const f of scan.files) {
    const prev = oldFiles[f.relPath];
    const prevDoc = oldDocs.get(f.relPath);
    if (!prev || !prevDoc) {
      toEmbed.push(f);
      continue;
    }
    let same = prev.size === f.size && prev.mtimeMs === f.mtimeMs;
    if (!same) {
      const read = await readTextFile(f.absPath, config.corpus.maxFileBytes);
      same = read.ok && read.hash === prev.hash;
      if (same) metaOnlyChange = true;
      else reads.set(f.relPath, read);
    }
    if (!same) {
      toEmbed.push(f);
      continue;
    }
    const types = [...f.types].sort();
    if (types.join() !== prevDoc.types.join()) metaOnlyChange = true;
    keep.push({ ...prevDoc, types });
    statUpdates[f.relPath] = { hash: prev.hash, size: f.size, mtimeMs: f.mtimeMs };
    report.unchanged++;
  }

  const scanned = new Set(scan.files.map((f) => f.relPath));
  const removedDocs = [...oldDocs.values()].filter((d) => !scanned.has(d.filePath));
  report.removed = removedDocs.map((d) => d.filePath);

  // Read, describe and chunk what must be embedded; the model loads only now.
  const prepared: Prepared[] = [];
  const readTexts = new Map<string, string>();
  let embedder: Embedder | null = null;
  for (const f of toEmbed) {
    const read = reads.get(f.relPath) ?? (await readTextFile(f.absPath, config.corpus.maxFileBytes));
    if (!read.ok) {
      report.skipped.push({ relPath: f.relPath, reason: read.reason });
      skippedStats[f.relPath] = { size: f.size, mtimeMs: f.mtimeMs, reason: read.reason };
      if (oldDocs.has(f.relPath)) report.removed.push(f.relPath);
      continue;
    }
    if (!embedder) {
      opts.onProgress?.({ phase: 'model' });
      embedder = await opts.loadEmbedder();
    }
    const { metadata, body, warnings } = extractMetadata(f.relPath, read.text, f.types, read.hash);
    report.warnings.push(...warnings);
    const chunks = chunkMarkdown(body, metadata.title, {
      maxTokens: embedder.maxTokens - 2,
      minTokens: 24,
      countTokens: (t) => embedder!.countTokens(t),
    });
    if (chunks.length > MAX_DOC_CHUNKS) {
      // Bounded work per file (10,000 headings made 2,000 chunks): the opening part is indexed, and the user told.
      report.warnings.push(`${f.relPath}: ${chunks.length} chunks; indexed the first ${MAX_DOC_CHUNKS}`);
      chunks.length = MAX_DOC_CHUNKS;
    }
    if (chunks.length === 0) {
      report.skipped.push({ relPath: f.relPath, reason: 'no text to index' });
      skippedStats[f.relPath] = { size: f.size, mtimeMs: f.mtimeMs, reason: 'no text to index' };
      if (oldDocs.has(f.relPath)) report.removed.push(f.relPath);
      continue;
    }
    prepared.push({ file: f, metadata, chunks });
    readTexts.set(f.relPath, read.text);
    statUpdates[f.relPath] = { hash: read.hash, size: f.size, mtimeMs: f.mtimeMs };
    (oldDocs.has(f.relPath) ? report.changed : report.added).push(f.relPath);
  }

  if (existing && JSON.stringify(existing.manifest.skipped ?? {}) !== JSON.stringify(skippedStats)) metaOnlyChange = true;
  // An index from before the lexical index existed gets one on the next run.
  if (existing && !existing.manifest.integrity.extra?.['lexical.json']) metaOnlyChange = true;
  const nothingToDo = existing && prepared.length === 0 && report.removed.length === 0;
  if (nothingToDo && !metaOnlyChange) {
    // Nothing to write, but a crashed writer's temp folders are still ours to remove.
    await pruneGenerations(root, { tempOnly: true });
    report.chunks = existing!.count();
    return report;
  }

  // Embed all new chunks together: length-sorted batches across files pad less.
  const texts = prepared.flatMap((p) => p.chunks.map((c) => c.embedText));
  const vectors = new Array<Float32Array>(texts.length);
  const tokensBefore = embedder?.stats?.tokens ?? 0;
  // Sorted by length over the whole run (not per slice): batches of like lengths pad less.
  // Token counts are cached by the embedder from chunking, so this costs a lookup each.
  const lengths = texts.map((t) => Math.min(embedder!.countTokens(t), embedder!.maxTokens - 2) + 2);
  const order = texts.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b]);
  const totalTokens = lengths.reduce((a, b) => a + b, 0);
  let tokensDone = 0;
  opts.onProgress?.({ phase: 'embed', done: 0, total: texts.length, tokens: 0, totalTokens });
  for (let i = 0; i < order.length; i += EMBED_SLICE) {
    const slice = order.slice(i, i + EMBED_SLICE);
    const out = await embedder!.embed(slice.map((j) => texts[j]));
    slice.forEach((j, k) => {
      vectors[j] = out[k];
      tokensDone += lengths[j];
    });
    opts.onProgress?.({ phase: 'embed', done: Math.min(i + EMBED_SLICE, texts.length), total: texts.length, tokens: tokensDone, totalTokens });
  }
  report.chunksEmbedded = texts.length;
  report.tokensEmbedded = (embedder?.stats?.tokens ?? 0) - tokensBefore;
  opts.onProgress?.({ phase: 'write' });

  const hnsw = await loadHnswlib();
  const dims = opts.model.dimensions;
  let index: HnswIndex;
  let nextLabel = existing?.manifest.nextLabel ?? 0;
  let deletedCount = existing?.manifest.deletedCount ?? 0;
  const liveOld = keep.reduce((n, d) => n + d.labels.length, 0);
  const newCount = texts.length;

  if (existing) {
    index = existing.index;
    const dropped = [...oldDocs.values()].filter((d) => report.changed.includes(d.filePath) || report.removed.includes(d.filePath));
    for (const d of dropped) for (const l of d.labels) index.markDelete(l);
    deletedCount += dropped.reduce((n, d) => n + d.labels.length, 0);
    if (deletedCount > MAX_DELETED_SHARE * (liveOld + newCount + deletedCount)) {
      index = compact(hnsw, dims, index, keep, liveOld + newCount);
      deletedCount = 0;
    }
  } else {
    index = new hnsw.HierarchicalNSW('ip', dims);
    index.initIndex(Math.max(16, newCount), HNSW_M, HNSW_EF_CONSTRUCTION, 100, true);
    nextLabel = 0;
    deletedCount = 0;
  }
  const needed = index.getCurrentCount() + newCount;
  if (needed > index.getMaxElements()) index.resizeIndex(Math.max(needed, Math.ceil(index.getMaxElements() * 1.5)));

  const docs: StoredDoc[] = [...keep];
  const chunkRecords = new Map<number, [string, string]>();
  for (const c of existing?.meta.chunks ?? []) chunkRecords.set(c[0], [c[2], c[3]]);
  let v = 0;
  for (const p of prepared) {
    const labels: number[] = [];
    for (const c of p.chunks) {
      const label = nextLabel++;
      index.addPoint(Array.from(vectors[v++]), label);
      labels.push(label);
      chunkRecords.set(label, [c.section, excerptOf(c.text)]);
    }
    docs.push({ ...p.metadata, labels });
  }
  docs.sort((a, b) => compareText(a.filePath, b.filePath));
  const chunks: StoredChunk[] = [];
  docs.forEach((d, i) => {
    for (const l of d.labels) {
      const [section, excerpt] = chunkRecords.get(l) ?? ['', ''];
      chunks.push([l, i, section, excerpt]);
    }
  });
  const meta: IndexMeta = { docs, chunks };
  const files: Manifest['files'] = {};
  for (const d of docs) files[d.filePath] = statUpdates[d.filePath];

  const manifest: Omit<Manifest, 'integrity'> = {
    formatVersion: INDEX_FORMAT_VERSION,
    modelId: opts.model.modelId,
    // A hub-loaded model is fingerprinted only once loaded: record what was really used.
    modelFingerprint: opts.model.modelFingerprint === 'unknown' && embedder ? embedder.modelFingerprint : opts.model.modelFingerprint,
    dimensions: dims,
    maxTokens: opts.model.maxTokens,
    chunkingVersion: CHUNKING_VERSION,
    includeHistory: opts.includeHistory,
    createdAt: new Date().toISOString(),
    chunkCount: chunks.length,
    nextLabel,
    deletedCount,
    files,
    skipped: skippedStats,
    coverage: {
      standard: docs.filter((d) => d.types.includes('standard')).length,
      history: docs.filter((d) => d.types.includes('history')).length,
    },
    corpusConfigHash: configHash,
  };
  const vectorsSource =
    nothingToDo && existing && previousName ? { linkFrom: indexPaths(root).generation(previousName).vectors } : { index };
  const extra = await lexicalFiles(root, docs, readTexts, config.corpus.maxFileBytes);
  const name = await writeGeneration(root, manifest, meta, vectorsSource, extra);
  await pruneGenerations(root, { keep: previousName ? [name, previousName] : [name] });
  report.wrote = true;
  report.generation = name;
  report.chunks = chunks.length;
  return report;
}

/**
 * A CURRENT that is a folder, a device or garbage cannot name a generation: we hold
 * the lock, so move it aside (pruned with the temp folders) and rebuild in full.
 */
async function readCurrentOrSetAside(root: string): Promise<{ name: string | null; damaged: string | null }> {
  try {
    return { name: readCurrent(root), damaged: null };
  } catch (e) {
    if (!(e instanceof DamagedPointerError)) throw e;
    await setAsideCurrent(root);
    return { name: null, damaged: e.message.replace(/; run .*$/, '') };
  }
}

/** Why an existing index cannot be updated in place, or null. */
export function incompatibility(m: Manifest, model: ModelIdentity): string | null {
  // An index holding nothing has nothing to keep: the next build is a first build, not a rebuild.
  if (m.chunkCount === 0 && Object.keys(m.files).length === 0 && m.dimensions === model.dimensions) return null;
  if (m.modelId !== model.modelId) return `the model changed (${m.modelId} -> ${model.modelId})`;
  // "unknown" is a hub model not fingerprinted before it loads: no evidence the weights changed.
  const known = m.modelFingerprint !== 'unknown' && model.modelFingerprint !== 'unknown';
  if (known && m.modelFingerprint !== model.modelFingerprint) return `the model weights changed (${m.modelFingerprint} -> ${model.modelFingerprint})`;
  if (m.dimensions !== model.dimensions) return `the vector size changed (${m.dimensions} -> ${model.dimensions})`;
  if (m.maxTokens !== model.maxTokens) return `the model window changed (${m.maxTokens} -> ${model.maxTokens})`;
  if (m.chunkingVersion !== CHUNKING_VERSION) return `the chunking changed (v${m.chunkingVersion} -> v${CHUNKING_VERSION})`;
  return null;
}

/** A fresh graph holding only the live points of the kept documents (labels preserved). */
function compact(
  hnsw: Awaited<ReturnType<typeof loadHnswlib>>,
  dims: number,
  old: HnswIndex,
  keep: StoredDoc[],
  capacity: number,
): HnswIndex {
  const fresh = new hnsw.HierarchicalNSW('ip', dims);
  fresh.initIndex(Math.max(16, capacity), HNSW_M, HNSW_EF_CONSTRUCTION, 100, true);
  for (const d of keep) for (const l of d.labels) fresh.addPoint(old.getPoint(l), l);
  return fresh;
}

export function excerptOf(text: string): string {
  // Heading lines go: the section title is shown beside the excerpt already.
  const body = text.replace(/^#{1,6}\s+.*$/gm, '').trim();
  const plain = (body || text.replace(/^#{1,6}\s+/gm, ''))
    .replace(/[*`>]/g, '')
    // Emphasis underscores only: `auth_sessions` keeps its underscore. One match per run, decided by
    // its neighbours: `_+(?!\w)` retried every start in a run (quadratic on a 1 MB line of `_`).
    .replace(/_+/g, (run: string, at: number, all: string) => (/\w/.test(all[at - 1] ?? '') && /\w/.test(all[at + run.length] ?? '') ? run : ''))
    .replace(/\s+/g, ' ')
    .trim();
  return truncate(plain, EXCERPT_CHARS);
}
