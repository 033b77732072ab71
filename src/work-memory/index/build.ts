import { CHUNKING_VERSION } from '../chunks/chunk.js';
import { chunkDoc } from './chunk-doc.js';
import { tryAppend } from './append.js';
import { extractMetadata, METADATA_VERSION } from '../corpus/metadata.js';
import { readTextFile } from '../corpus/read.js';
import { scanCorpus } from '../corpus/scan.js';
import type { Embedder } from '../embeddings/embedder.js';
import { IndexUnavailableError } from '../../shared/errors.js';
import { DamagedPointerError, openGeneration, readCurrent, type HnswIndex } from './hnsw-index.js';
import { indexPaths } from './layout.js';
import { corpusConfigHash } from './corpus-config.js';
import { acquireLock } from './lock.js';
import { INDEX_FORMAT_VERSION, type Manifest } from './types.js';
import { pruneGenerations, setAsideCurrent, writeGeneration } from './write.js';
import { lexicalFiles } from '../lexical/for-build.js';
import { LEXICAL_FILE } from '../lexical/file.js';
import { planUpdate } from './update-plan.js';
import { embedAll } from './embed-schedule.js';
import { updateGraph, type Prepared } from './graph-update.js';
import { metadataOutdated, refreshKeptMetadata } from './refresh-metadata.js';
import { planSources, readPreviousSources, sourcesBuffer, sourcesFile } from './source-plan.js';
import { collectSources, sourcesConfigured, type CollectedSources } from '../sources/collect.js';
import { isSourceKey } from '../sources/types.js';

export type { BuildOptions, BuildProgress, BuildReport, ModelIdentity } from './build-types.js';
import type { BuildOptions, BuildReport, ModelIdentity } from './build-types.js';

export { MAX_DOC_CHUNKS } from './chunk-doc.js';

/**
 * Bring the index in line with the corpus: embed what changed, drop what is gone, swap
 * atomically. Under the index lock, in four steps: plan (update-plan.ts, no model),
 * read and chunk, embed (embed-schedule.ts), update the graph (graph-update.ts) and
 * write the generation (write.ts).
 */
export async function buildIndex(opts: BuildOptions): Promise<BuildReport> {
  const lock = await acquireLock(indexPaths(opts.root).lock, { waitMs: opts.lockWaitMs });
  // Loaded once: an update that starts as an append and is then written whole asks twice.
  let loading: Promise<Embedder> | null = null;
  const once = { ...opts, loadEmbedder: () => (loading ??= opts.loadEmbedder()) };
  try {
    return await buildLocked(once);
  } finally {
    await lock.release();
  }
}

async function buildLocked(opts: BuildOptions): Promise<BuildReport> {
  const { root, config } = opts;
  const { name: previousName, damaged } = await readCurrentOrSetAside(root);
  // Only new commits' work to add: appended beside the base, which is never read (append.ts).
  let appendFailed: string | null = null;
  if (previousName && !opts.full) {
    try {
      const appended = await tryAppend(opts, previousName, (m) => incompatibility(m, opts.model));
      if (appended) return appended;
    } catch (e) {
      // An append that fails (a base file that cannot be linked or copied, say) leaves nothing live: the whole update follows, and says so.
      appendFailed = (e as Error).message.split('\n')[0];
    }
  }
  let existing: HnswIndex | null = null;
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
    throw new IndexUnavailableError(
      `the index cannot be updated in place (${fullRebuildReason ?? 'there is none'}); run \`agentos index --full\``,
    );
  }

  const scan = await scanCorpus(root, config.corpus, opts.includeHistory);
  // Work that lives in git or a tracker export, read beside the files (history only).
  const sources: CollectedSources | null =
    opts.includeHistory && sourcesConfigured(config)
      ? await collectSources(root, config, existing ? await readPreviousSources(existing, previousName!, root) : null, {
          fetch: opts.fetchSources,
        })
      : null;
  opts.onProgress?.({ phase: 'scan', files: scan.files.length + (sources?.docs.length ?? 0) });
  const report: BuildReport = {
    scanned: scan.files.length + (sources?.docs.length ?? 0),
    added: [],
    changed: [],
    unchanged: 0,
    removed: [],
    skipped: [...scan.skipped],
    warnings: [
      ...(appendFailed ? [`index: appending the new work failed (${appendFailed}); the index was written whole`] : []),
      ...(sources?.warnings ?? []),
    ],
    chunks: 0,
    chunksEmbedded: 0,
    tokensEmbedded: 0,
    fullRebuildReason,
    firstBuild:
      !previousName ||
      (existing !== null && existing.manifest.chunkCount === 0 && Object.keys(existing.manifest.files).length === 0),
    wrote: false,
    generation: previousName,
    sources: sources
      ? {
          documents: sources.docs.length,
          git:
            sources.git && sources.state.git
              ? {
                  ...sources.git,
                  ref: sources.state.git.ref,
                  documents: sources.state.git.documents,
                  notWork: sources.state.git.skipped,
                }
              : null,
          trackers: (sources.state.trackers ?? []).map((t) => ({ path: t.path, documents: t.documents })),
        }
      : null,
  };

  // 1. Plan: what is kept, what must be embedded, what is gone (no model yet).
  const plan = await planUpdate(existing, scan.files, config.corpus.maxFileBytes);
  const oldDocs = new Map((existing?.meta.docs ?? []).map((d) => [d.filePath, d]));
  const sourcePlan = planSources(existing, sources);
  // Documents of git or a tracker are not files: the file plan must not count them removed.
  plan.removed = plan.removed.filter((d) => !d.origin && !isSourceKey(d.filePath));
  plan.keep.push(...sourcePlan.keep);
  plan.removed.push(...sourcePlan.removed);
  report.unchanged = plan.unchanged + sourcePlan.keep.length;
  report.removed = plan.removed.map((d) => d.filePath);
  // Files matched but not indexable, with their stat pair (see Manifest.skipped).
  const skippedStats: NonNullable<Manifest['skipped']> = {};
  const configHash = corpusConfigHash(config, opts.includeHistory);
  // An older manifest without coverage or config identity is rewritten once to gain them.
  let metaOnlyChange =
    plan.metaOnlyChange ||
    sourcePlan.metaOnlyChange ||
    (existing !== null &&
      (existing.manifest.corpusConfigHash !== configHash ||
        !existing.manifest.coverage ||
        JSON.stringify(existing.manifest.sources ?? null) !== JSON.stringify(sources?.state ?? null)));

  // 2. Read, describe and chunk what must be embedded; the model loads only now.
  const prepared: Prepared[] = [];
  const readTexts = new Map<string, string>(sources?.docs.map((d) => [d.metadata.filePath, d.text]));
  // Unchanged files of an index read by older metadata rules get their ids and relations read again (no embedding).
  if (existing && metadataOutdated(existing.manifest)) {
    const { texts, refreshed } = await refreshKeptMetadata(
      plan.keep,
      scan.files,
      (p) => plan.statUpdates[p]?.hash,
      config.corpus.maxFileBytes,
    );
    for (const [p, t] of texts) readTexts.set(p, t);
    report.metadataRefreshed = refreshed;
    metaOnlyChange = true;
  }
  // Loaded by the first document that needs embedding (a closure TS cannot follow: hence the cast).
  let embedder = null as Embedder | null;
  const loadOnce = async () => {
    if (!embedder) {
      opts.onProgress?.({ phase: 'model' });
      embedder = await opts.loadEmbedder();
    }
    return embedder;
  };
  for (const f of plan.toEmbed) {
    const read = plan.reads.get(f.relPath) ?? (await readTextFile(f.absPath, config.corpus.maxFileBytes));
    if (!read.ok) {
      report.skipped.push({ relPath: f.relPath, reason: read.reason });
      skippedStats[f.relPath] = { size: f.size, mtimeMs: f.mtimeMs, reason: read.reason };
      if (oldDocs.has(f.relPath)) report.removed.push(f.relPath);
      continue;
    }
    const e = await loadOnce();
    const { metadata, body, warnings } = extractMetadata(f.relPath, read.text, f.types, read.hash);
    report.warnings.push(...warnings);
    const chunks = chunkDoc(e, f.relPath, body, metadata.title, report.warnings);
    if (chunks.length === 0) {
      report.skipped.push({ relPath: f.relPath, reason: 'no text to index' });
      skippedStats[f.relPath] = { size: f.size, mtimeMs: f.mtimeMs, reason: 'no text to index' };
      if (oldDocs.has(f.relPath)) report.removed.push(f.relPath);
      continue;
    }
    prepared.push({ file: f, metadata, chunks });
    readTexts.set(f.relPath, read.text);
    plan.statUpdates[f.relPath] = { hash: read.hash, size: f.size, mtimeMs: f.mtimeMs };
    (oldDocs.has(f.relPath) ? report.changed : report.added).push(f.relPath);
  }

  for (const d of sourcePlan.toEmbed) {
    const e = await loadOnce();
    const chunks = chunkDoc(e, d.metadata.filePath, d.text, d.metadata.title, report.warnings);
    if (chunks.length === 0) {
      report.skipped.push({ relPath: d.metadata.filePath, reason: 'no text to index' });
      if (oldDocs.has(d.metadata.filePath)) report.removed.push(d.metadata.filePath);
      continue;
    }
    prepared.push({ metadata: d.metadata, chunks });
    (oldDocs.has(d.metadata.filePath) ? report.changed : report.added).push(d.metadata.filePath);
  }

  if (existing && JSON.stringify(existing.manifest.skipped ?? {}) !== JSON.stringify(skippedStats))
    metaOnlyChange = true;
  // An index from before the lexical index existed gets one on the next run.
  if (existing && !existing.manifest.integrity.extra?.['lexical.json']) metaOnlyChange = true;
  const nothingToDo = existing && prepared.length === 0 && report.removed.length === 0;
  if (nothingToDo && !metaOnlyChange) {
    // Nothing to write, but a crashed writer's temp folders are still ours to remove.
    await pruneGenerations(root, { tempOnly: true });
    report.chunks = existing!.count();
    return report;
  }

  // 3. Embed all new chunks together (embed-schedule.ts).
  const texts = prepared.flatMap((p) => p.chunks.map((c) => c.embedText));
  const tokensBefore = embedder?.stats?.tokens ?? 0;
  const vectors = embedder ? await embedAll(embedder, texts, (p) => opts.onProgress?.({ phase: 'embed', ...p })) : [];
  if (!embedder) opts.onProgress?.({ phase: 'embed', done: 0, total: 0, tokens: 0, totalTokens: 0 });
  report.chunksEmbedded = texts.length;
  report.tokensEmbedded = (embedder?.stats?.tokens ?? 0) - tokensBefore;
  opts.onProgress?.({ phase: 'write' });

  // 4. The graph and the metadata (graph-update.ts), then the generation, swapped in atomically.
  const dims = opts.model.dimensions;
  const dropped = [...oldDocs.values()].filter(
    (d) => report.changed.includes(d.filePath) || report.removed.includes(d.filePath),
  );
  const {
    graph: graph,
    meta,
    nextLabel,
    deletedCount,
  } = await updateGraph({ existing, keep: plan.keep, dropped, prepared, vectors, dimensions: dims });
  const { docs, chunks } = meta;
  const files: Manifest['files'] = {};
  for (const d of docs) if (!d.origin) files[d.filePath] = plan.statUpdates[d.filePath];

  const manifest: Omit<Manifest, 'integrity'> = {
    formatVersion: INDEX_FORMAT_VERSION,
    modelId: opts.model.modelId,
    // A hub-loaded model is fingerprinted only once loaded: record what was really used.
    modelFingerprint:
      opts.model.modelFingerprint === 'unknown' && embedder ? embedder.modelFingerprint : opts.model.modelFingerprint,
    dimensions: dims,
    maxTokens: opts.model.maxTokens,
    chunkingVersion: CHUNKING_VERSION,
    metadataVersion: METADATA_VERSION,
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
    ...(sources ? { sources: sources.state } : {}),
  };
  // Linked only when the graph is the base's as it was: appended work (delta.ts) joins it now.
  const vectorsSource =
    nothingToDo && existing && previousName && !existing.manifest.delta
      ? { linkFrom: indexPaths(root).generation(previousName).vectors }
      : { graph };
  // The generation before this one: its term counts are reused for documents whose content did not change.
  const previousLexical =
    existing && previousName && existing.manifest.integrity.extra?.[LEXICAL_FILE]
      ? { dir: indexPaths(root).generation(previousName).dir, manifest: existing.manifest, docs: existing.meta.docs }
      : null;
  const extra = await lexicalFiles(root, docs, readTexts, config.corpus.maxFileBytes, previousLexical);
  if (sources) extra[sourcesFile] = sourcesBuffer(sources);
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
  if (known && m.modelFingerprint !== model.modelFingerprint)
    return `the model weights changed (${m.modelFingerprint} -> ${model.modelFingerprint})`;
  if (m.dimensions !== model.dimensions) return `the vector size changed (${m.dimensions} -> ${model.dimensions})`;
  if (m.maxTokens !== model.maxTokens) return `the model window changed (${m.maxTokens} -> ${model.maxTokens})`;
  if (m.chunkingVersion !== CHUNKING_VERSION)
    return `the chunking changed (v${m.chunkingVersion} -> v${CHUNKING_VERSION})`;
  return null;
}
