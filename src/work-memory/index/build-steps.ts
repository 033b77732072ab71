/**
 * The steps of a whole index update, which build.ts runs in order under the index lock: open the
 * previous generation or say why the index is written whole, plan (no model), read and chunk, embed,
 * and write the new generation (graph, metadata, lexical index), swapped in atomically.
 */
import { CHUNKING_VERSION } from '../chunks/chunk.js';
import { chunkDoc } from './chunk-doc.js';
import { extractMetadata, METADATA_VERSION } from '../corpus/metadata.js';
import { readTextFile } from '../corpus/read.js';
import type { scanCorpus } from '../corpus/scan.js';
import type { Embedder } from '../embeddings/embedder.js';
import { IndexUnavailableError } from '../../shared/errors.js';
import { openGeneration, type HnswIndex } from './hnsw-index.js';
import { indexPaths } from './layout.js';
import { corpusConfigHash } from './corpus-config.js';
import { INDEX_FORMAT_VERSION, type Manifest, type StoredDoc } from './types.js';
import { pruneGenerations, writeGeneration } from './write.js';
import { lexicalFiles } from '../lexical/for-build.js';
import { LEXICAL_FILE } from '../lexical/file.js';
import { planUpdate } from './update-plan.js';
import { embedAll } from './embed-schedule.js';
import { updateGraph, type Prepared } from './graph-update.js';
import { planSources, sourcesBuffer, sourcesFile } from './source-plan.js';
import type { CollectedSources } from '../sources/collect.js';
import { isSourceKey } from '../sources/types.js';
import type { BuildOptions, BuildReport, ModelIdentity } from './build-types.js';

type Scan = Awaited<ReturnType<typeof scanCorpus>>;
type Plan = Awaited<ReturnType<typeof planUpdate>>;

/** The index to update in place, or why the whole index is written again (null reason: a first build, or in place). */
export async function openPrevious(
  opts: BuildOptions,
  previousName: string | null,
  damaged: string | null,
): Promise<{ existing: HnswIndex | null; fullRebuildReason: string | null }> {
  let existing: HnswIndex | null = null;
  let fullRebuildReason: string | null = opts.full ? '--full was given' : null;
  if (!opts.full && previousName) {
    try {
      existing = await openGeneration(opts.root, previousName);
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
  return { existing, fullRebuildReason };
}

/** The report before anything is planned: what was scanned and read, and why the index is written whole. */
export function newReport(o: {
  scan: Scan;
  sources: CollectedSources | null;
  appendFailed: string | null;
  fullRebuildReason: string | null;
  previousName: string | null;
  existing: HnswIndex | null;
}): BuildReport {
  const { scan, sources, existing } = o;
  return {
    scanned: scan.files.length + (sources?.docs.length ?? 0),
    added: [],
    changed: [],
    unchanged: 0,
    removed: [],
    skipped: [...scan.skipped],
    warnings: [
      ...(o.appendFailed
        ? [`index: appending the new work failed (${o.appendFailed}); the index was written whole`]
        : []),
      ...(sources?.warnings ?? []),
    ],
    chunks: 0,
    chunksEmbedded: 0,
    tokensEmbedded: 0,
    fullRebuildReason: o.fullRebuildReason,
    firstBuild:
      !o.previousName ||
      (existing !== null && existing.manifest.chunkCount === 0 && Object.keys(existing.manifest.files).length === 0),
    wrote: false,
    generation: o.previousName,
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
}

/** Step 1, no model yet: what is kept, what must be embedded and what is gone, of the files and of git and trackers. */
export async function planAll(
  opts: BuildOptions,
  existing: HnswIndex | null,
  scan: Scan,
  sources: CollectedSources | null,
  report: BuildReport,
) {
  const { config } = opts;
  const plan = await planUpdate(existing, scan.files, config.corpus.maxFileBytes);
  const oldDocs = new Map((existing?.meta.docs ?? []).map((d) => [d.filePath, d]));
  const sourcePlan = planSources(existing, sources);
  // Documents of git or a tracker are not files: the file plan must not count them removed.
  plan.removed = plan.removed.filter((d) => !d.origin && !isSourceKey(d.filePath));
  plan.keep.push(...sourcePlan.keep);
  plan.removed.push(...sourcePlan.removed);
  report.unchanged = plan.unchanged + sourcePlan.keep.length;
  report.removed = plan.removed.map((d) => d.filePath);
  const configHash = corpusConfigHash(config, opts.includeHistory);
  // An older manifest without coverage or config identity is rewritten once to gain them.
  const metaOnlyChange =
    plan.metaOnlyChange ||
    sourcePlan.metaOnlyChange ||
    (existing !== null &&
      (existing.manifest.corpusConfigHash !== configHash ||
        !existing.manifest.coverage ||
        JSON.stringify(existing.manifest.sources ?? null) !== JSON.stringify(sources?.state ?? null)));
  return { plan, oldDocs, sourcePlan, configHash, metaOnlyChange };
}

/**
 * Step 2: read, describe and chunk every file and source document that must be embedded, recording in
 * `report` what was added, changed or skipped. The model loads with the first document that needs it
 * (never, when nothing does).
 */
export async function prepareDocuments(
  opts: BuildOptions,
  o: {
    plan: Plan;
    sourcePlan: ReturnType<typeof planSources>;
    oldDocs: Map<string, StoredDoc>;
    readTexts: Map<string, string>;
    report: BuildReport;
  },
): Promise<{ prepared: Prepared[]; skippedStats: NonNullable<Manifest['skipped']>; embedder: Embedder | null }> {
  const { plan, oldDocs, readTexts, report } = o;
  const maxFileBytes = opts.config.corpus.maxFileBytes;
  const prepared: Prepared[] = [];
  // Files matched but not indexable, with their stat pair (see Manifest.skipped).
  const skippedStats: NonNullable<Manifest['skipped']> = {};
  // Loaded by the first document that needs embedding (a closure TS cannot follow: hence the cast).
  let embedder = null as Embedder | null;
  const loadOnce = async (): Promise<Embedder> => {
    if (!embedder) {
      opts.onProgress?.({ phase: 'model' });
      embedder = await opts.loadEmbedder();
    }
    return embedder;
  };
  const skip = (relPath: string, reason: string, stat?: { size: number; mtimeMs: number }) => {
    report.skipped.push({ relPath, reason });
    if (stat) skippedStats[relPath] = { size: stat.size, mtimeMs: stat.mtimeMs, reason };
    if (oldDocs.has(relPath)) report.removed.push(relPath);
  };
  for (const f of plan.toEmbed) {
    const read = plan.reads.get(f.relPath) ?? (await readTextFile(f.absPath, maxFileBytes));
    if (!read.ok) {
      skip(f.relPath, read.reason, f);
      continue;
    }
    const e = await loadOnce();
    const { metadata, body, warnings } = extractMetadata(f.relPath, read.text, f.types, read.hash);
    report.warnings.push(...warnings);
    const chunks = chunkDoc(e, f.relPath, body, metadata.title, report.warnings);
    if (chunks.length === 0) {
      skip(f.relPath, 'no text to index', f);
      continue;
    }
    prepared.push({ file: f, metadata, chunks });
    readTexts.set(f.relPath, read.text);
    plan.statUpdates[f.relPath] = { hash: read.hash, size: f.size, mtimeMs: f.mtimeMs };
    (oldDocs.has(f.relPath) ? report.changed : report.added).push(f.relPath);
  }
  for (const d of o.sourcePlan.toEmbed) {
    const e = await loadOnce();
    const chunks = chunkDoc(e, d.metadata.filePath, d.text, d.metadata.title, report.warnings);
    if (chunks.length === 0) {
      skip(d.metadata.filePath, 'no text to index');
      continue;
    }
    prepared.push({ metadata: d.metadata, chunks });
    (oldDocs.has(d.metadata.filePath) ? report.changed : report.added).push(d.metadata.filePath);
  }
  return { prepared, skippedStats, embedder };
}

/** Step 3: every new chunk embedded together (embed-schedule.ts), counted in the report. */
export async function embedPrepared(
  opts: BuildOptions,
  embedder: Embedder | null,
  prepared: Prepared[],
  report: BuildReport,
): Promise<Float32Array[]> {
  const texts = prepared.flatMap((p) => p.chunks.map((c) => c.embedText));
  const tokensBefore = embedder?.stats?.tokens ?? 0;
  const vectors = embedder ? await embedAll(embedder, texts, (p) => opts.onProgress?.({ phase: 'embed', ...p })) : [];
  if (!embedder) opts.onProgress?.({ phase: 'embed', done: 0, total: 0, tokens: 0, totalTokens: 0 });
  report.chunksEmbedded = texts.length;
  report.tokensEmbedded = (embedder?.stats?.tokens ?? 0) - tokensBefore;
  opts.onProgress?.({ phase: 'write' });
  return vectors;
}

/** Step 4: the graph and the metadata (graph-update.ts), then the generation, written and swapped in atomically. */
export async function writeIndex(
  opts: BuildOptions,
  o: {
    existing: HnswIndex | null;
    previousName: string | null;
    plan: Plan;
    oldDocs: Map<string, StoredDoc>;
    report: BuildReport;
    prepared: Prepared[];
    vectors: Float32Array[];
    embedder: Embedder | null;
    skippedStats: NonNullable<Manifest['skipped']>;
    configHash: string;
    sources: CollectedSources | null;
    readTexts: Map<string, string>;
    /** Nothing embedded or removed: the base's graph file is linked as it is. */
    linkBase: boolean;
  },
): Promise<BuildReport> {
  const { root, config } = opts;
  const { existing, previousName, report, sources } = o;
  const dropped = [...o.oldDocs.values()].filter(
    (d) => report.changed.includes(d.filePath) || report.removed.includes(d.filePath),
  );
  const { graph, meta, nextLabel, deletedCount } = await updateGraph({
    existing,
    keep: o.plan.keep,
    dropped,
    prepared: o.prepared,
    vectors: o.vectors,
    dimensions: opts.model.dimensions,
  });
  const manifest = manifestOf(opts, { ...o, meta, nextLabel, deletedCount });
  // Linked only when the graph is the base's as it was: appended work (delta.ts) joins it now.
  const vectorsSource =
    o.linkBase && existing && previousName && !existing.manifest.delta
      ? { linkFrom: indexPaths(root).generation(previousName).vectors }
      : { graph };
  // The generation before this one: its term counts are reused for documents whose content did not change.
  const previousLexical =
    existing && previousName && existing.manifest.integrity.extra?.[LEXICAL_FILE]
      ? { dir: indexPaths(root).generation(previousName).dir, manifest: existing.manifest, docs: existing.meta.docs }
      : null;
  const extra = await lexicalFiles(root, meta.docs, o.readTexts, config.corpus.maxFileBytes, previousLexical);
  if (sources) extra[sourcesFile] = sourcesBuffer(sources);
  const name = await writeGeneration(root, manifest, meta, vectorsSource, extra);
  await pruneGenerations(root, { keep: previousName ? [name, previousName] : [name] });
  report.wrote = true;
  report.generation = name;
  report.chunks = meta.chunks.length;
  return report;
}

/** The new generation's manifest: the model, the versions it was read by, its files, coverage and sources. */
function manifestOf(
  opts: BuildOptions,
  o: {
    meta: Awaited<ReturnType<typeof updateGraph>>['meta'];
    nextLabel: number;
    deletedCount: number;
    plan: Plan;
    skippedStats: NonNullable<Manifest['skipped']>;
    configHash: string;
    sources: CollectedSources | null;
    embedder: Embedder | null;
  },
): Omit<Manifest, 'integrity'> {
  const { meta, plan, sources, embedder } = o;
  const files: Manifest['files'] = {};
  for (const d of meta.docs) if (!d.origin) files[d.filePath] = plan.statUpdates[d.filePath];
  return {
    formatVersion: INDEX_FORMAT_VERSION,
    modelId: opts.model.modelId,
    // A hub-loaded model is fingerprinted only once loaded: record what was really used.
    modelFingerprint:
      opts.model.modelFingerprint === 'unknown' && embedder ? embedder.modelFingerprint : opts.model.modelFingerprint,
    dimensions: opts.model.dimensions,
    maxTokens: opts.model.maxTokens,
    chunkingVersion: CHUNKING_VERSION,
    metadataVersion: METADATA_VERSION,
    includeHistory: opts.includeHistory,
    createdAt: new Date().toISOString(),
    chunkCount: meta.chunks.length,
    nextLabel: o.nextLabel,
    deletedCount: o.deletedCount,
    files,
    skipped: o.skippedStats,
    coverage: {
      standard: meta.docs.filter((d) => d.types.includes('standard')).length,
      history: meta.docs.filter((d) => d.types.includes('history')).length,
    },
    corpusConfigHash: o.configHash,
    ...(sources ? { sources: sources.state } : {}),
  };
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
