/**
 * An update that only adds work (issue 46): new commits on the branch the index read, nothing
 * else changed. Decided from the manifest, a stat scan of the files and the new commits alone —
 * the base's metadata, vectors, lexical counts and source texts are never read — and written as a
 * delta beside the linked base (delta.ts), so a new commit costs the same at any history size.
 * Anything else (a file changed, a revert among the new commits, the branch rewritten, trackers
 * configured, the delta grown past its share) returns null: build.ts writes the generation whole.
 */
import path from 'node:path';
import { readFileSync, rmSync } from 'node:fs';
import { scanCorpus } from '../corpus/scan.js';
import type { Embedder } from '../embeddings/embedder.js';
import { lexicalTokens, readTemplates, templatesHold, LEXICAL_FILE } from '../lexical/file.js';
import { readTextFile } from '../corpus/read.js';
import { termCounts } from '../lexical/tokenize.js';
import { readGitSource } from '../sources/git-source.js';
import { unreadableWarning } from '../sources/collect.js';
import type { BuildOptions, BuildReport } from './build-types.js';
import { chunkDoc } from './chunk-doc.js';
import { corpusConfigHash } from './corpus-config.js';
import {
  APPEND_FORMAT_VERSION,
  DELTA_FILE,
  DELTA_VECTORS,
  deltaFits,
  emptyDelta,
  readChecked,
  readDelta,
  type DeltaJson,
} from './delta.js';
import { embedAll } from './embed-schedule.js';
import { excerptOf } from './graph-update.js';
import { readManifest } from './hnsw-index.js';
import { HNSW_EF_CONSTRUCTION, HNSW_M, loadHnswlib, type HnswGraph } from './hnswlib.js';
import { indexPaths } from './layout.js';
import { metadataOutdated } from './refresh-metadata.js';
import type { Manifest, StoredChunk } from './types.js';
import { statDiff } from './update-plan.js';
import { appendGeneration, pruneGenerations } from './write.js';

/** Whether this configuration's sources can be appended to: git alone (a tracker export is read whole on each update). */
const appendable = (o: BuildOptions) =>
  !o.full &&
  o.includeHistory &&
  o.config.sources.git.enabled &&
  o.config.sources.trackers.length === 0 &&
  !o.config.sources.github;

/**
 * The update as an append to generation `previous`, or null when it is not one. `incompatible`
 * says why the manifest cannot be updated in place at all (build.ts incompatibility).
 */
export async function tryAppend(
  o: BuildOptions,
  previous: string,
  incompatible: (m: Manifest) => string | null,
): Promise<BuildReport | null> {
  if (!appendable(o)) return null;
  const { root } = o;
  const base = appendableBase(o, previous, incompatible);
  if (!base) return null;
  const { dir, manifest, templates } = base;
  const files = await filesAsBefore(o, manifest);
  if (!files) return null;
  const git = await readGitSource({
    root,
    branch: o.config.sources.git.branch,
    rules: o.config.sources.git,
    previous: { state: base.gitState, docs: [] },
    appendOnly: true,
  });
  if (!git) return null;
  o.onProgress?.({ phase: 'scan', files: files.scan.files.length + git.state.documents });
  const report = appendReport(manifest, previous, files, git);
  if (git.read.mode === 'unchanged') {
    await pruneGenerations(root, { tempOnly: true });
    return report;
  }

  const delta = manifest.delta ? readDeltaOrNull(dir, manifest) : emptyDelta();
  if (!delta) return null;
  // The boilerplate found before holds for this many more documents, as it would for a whole update (lexical/file.ts).
  if (!templatesHold(templates, base.changed + delta.docs.length + git.docs.length)) return null;
  const chunked = await chunkNewWork(o, manifest, git.docs, report);
  if (!chunked) return null;
  const { prepared, embedder } = chunked;
  const newChunks = prepared.reduce((n, p) => n + p.chunks.length, 0);
  const baseChunks = manifest.chunkCount - (manifest.delta?.chunks ?? 0);
  // Grown past its share of the base: this update writes the generation whole, the delta folded in.
  if (!deltaFits(delta.chunks.length + newChunks, baseChunks)) return null;

  const texts = prepared.flatMap((p) => p.chunks.map((c) => c.embedText));
  const before = embedder?.stats?.tokens ?? 0;
  const vectors = embedder ? await embedAll(embedder, texts, (p) => o.onProgress?.({ phase: 'embed', ...p })) : [];
  report.chunksEmbedded = texts.length;
  report.tokensEmbedded = (embedder?.stats?.tokens ?? 0) - before;
  o.onProgress?.({ phase: 'write' });

  const graph = await deltaGraph(dir, manifest, delta, newChunks);
  if (!graph) return null;
  const added = addToDelta(graph, delta, prepared, vectors, manifest.nextLabel, templates);
  report.added.push(...added.paths);
  const written: Record<string, Buffer> = {};
  if (delta.docs.length) {
    written[DELTA_FILE] = Buffer.from(JSON.stringify(delta));
    written[DELTA_VECTORS] = graphBytes(graph, indexPaths(root).dir);
  }
  const next: Manifest = {
    ...manifest,
    formatVersion: delta.docs.length ? APPEND_FORMAT_VERSION : manifest.formatVersion,
    createdAt: new Date().toISOString(),
    chunkCount: manifest.chunkCount + newChunks,
    nextLabel: added.nextLabel,
    coverage: { standard: manifest.coverage.standard, history: manifest.coverage.history + added.history },
    sources: { ...manifest.sources, git: git.state },
    ...(delta.docs.length
      ? {
          delta: {
            docs: delta.docs.length,
            chunks: delta.chunks.length,
            firstLabel: manifest.delta?.firstLabel ?? manifest.nextLabel,
          },
        }
      : {}),
  };
  const name = await appendGeneration(root, previous, next, written);
  await pruneGenerations(root, { keep: [name, previous] });
  report.wrote = true;
  report.generation = name;
  report.chunks = next.chunkCount;
  return report;
}

/** The previous generation, when an append can build on it: its manifest, git state and boilerplate templates. */
function appendableBase(o: BuildOptions, previous: string, incompatible: (m: Manifest) => string | null) {
  const dir = indexPaths(o.root).generation(previous).dir;
  let manifest: Manifest;
  try {
    manifest = readManifest(path.join(dir, 'manifest.json'));
  } catch {
    return null;
  }
  const gitState = manifest.sources?.git;
  if (
    !gitState ||
    manifest.sources?.trackers?.length ||
    incompatible(manifest) ||
    metadataOutdated(manifest) ||
    !manifest.includeHistory
  )
    return null;
  if (
    manifest.corpusConfigHash !== corpusConfigHash(o.config, true) ||
    !manifest.integrity.extra?.[LEXICAL_FILE] ||
    !manifest.coverage
  )
    return null;
  // The model as recorded, field by field (incompatibility() lets an empty index change model: it has nothing to keep).
  if (
    manifest.modelId !== o.model.modelId ||
    manifest.dimensions !== o.model.dimensions ||
    manifest.maxTokens !== o.model.maxTokens
  )
    return null;
  const found = readTemplates(dir, manifest);
  if (!found) return null;
  return { dir, manifest: manifest as Manifest & { coverage: NonNullable<Manifest['coverage']> }, gitState, ...found };
}

/** The files exactly as the manifest has them, or null (a touched file is a change here: the whole update reads its hash). */
async function filesAsBefore(
  o: BuildOptions,
  manifest: Manifest,
): Promise<{ scan: Awaited<ReturnType<typeof scanCorpus>>; stillSkipped: BuildReport['skipped'] } | null> {
  const scan = await scanCorpus(o.root, o.config.corpus, true);
  const diff = statDiff(manifest, scan.files);
  if (diff.changed.length || diff.added.length || diff.removed.length) return null;
  // A file skipped before is looked at again, as a whole update does: one that reads now is a change.
  const stillSkipped: BuildReport['skipped'] = [];
  for (const f of diff.skippedSame) {
    const why = manifest.skipped?.[f.relPath]?.reason ?? 'skipped';
    const read = await readTextFile(f.absPath, o.config.corpus.maxFileBytes);
    if (read.ok && why !== 'no text to index') return null;
    stillSkipped.push({ relPath: f.relPath, reason: read.ok ? why : read.reason });
  }
  return { scan, stillSkipped };
}

type GitRead = NonNullable<Awaited<ReturnType<typeof readGitSource>>>;

function appendReport(
  manifest: Manifest,
  previous: string,
  files: NonNullable<Awaited<ReturnType<typeof filesAsBefore>>>,
  git: GitRead,
): BuildReport {
  const total = Object.keys(manifest.files).length + git.state.documents;
  return {
    scanned: files.scan.files.length + git.state.documents,
    added: [],
    changed: [],
    unchanged: total - git.docs.length,
    removed: [],
    skipped: [...files.scan.skipped, ...files.stillSkipped],
    warnings: git.read.unreadable ? [unreadableWarning(git.read.unreadable)] : [],
    chunks: manifest.chunkCount,
    chunksEmbedded: 0,
    tokensEmbedded: 0,
    fullRebuildReason: null,
    firstBuild: false,
    wrote: false,
    generation: previous,
    sources: {
      documents: git.state.documents,
      git: { ...git.read, ref: git.state.ref, documents: git.state.documents, notWork: git.state.skipped },
      trackers: [],
    },
  };
}

/** The new work chunked, the model loaded for the first; null when the model's weights are not the index's. */
async function chunkNewWork(o: BuildOptions, manifest: Manifest, docs: GitRead['docs'], report: BuildReport) {
  let embedder: Embedder | null = null;
  const prepared: Array<{ doc: GitRead['docs'][number]; chunks: ReturnType<typeof chunkDoc> }> = [];
  for (const d of docs) {
    if (!embedder) {
      o.onProgress?.({ phase: 'model' });
      embedder = await o.loadEmbedder();
      // Other weights under the same name: the whole update says so and rebuilds.
      if (
        manifest.modelFingerprint !== 'unknown' &&
        embedder.modelFingerprint !== 'unknown' &&
        embedder.modelFingerprint !== manifest.modelFingerprint
      )
        return null;
    }
    const chunks = chunkDoc(embedder, d.metadata.filePath, d.text, d.metadata.title, report.warnings);
    if (chunks.length) prepared.push({ doc: d, chunks });
    else report.skipped.push({ relPath: d.metadata.filePath, reason: 'no text to index' });
  }
  return { prepared, embedder };
}

/** The delta's graph: the one before it (checked first), or a new one, with room for the new points; null when damaged. */
async function deltaGraph(dir: string, manifest: Manifest, delta: DeltaJson, newChunks: number) {
  const hnsw = await loadHnswlib();
  const graph = new hnsw.HierarchicalNSW('ip', manifest.dimensions);
  if (delta.chunks.length) {
    // Checked before hnswlib reads it: a damaged delta is not carried on under a fresh hash.
    try {
      readChecked(dir, DELTA_VECTORS, manifest);
    } catch {
      return null;
    }
    graph.readIndexSync(path.join(dir, DELTA_VECTORS), true);
  } else graph.initIndex(Math.max(16, newChunks), HNSW_M, HNSW_EF_CONSTRUCTION, 100, true);
  if (graph.getCurrentCount() + newChunks > graph.getMaxElements())
    graph.resizeIndex(Math.ceil((graph.getCurrentCount() + newChunks) * 1.5));
  return graph;
}

/** The new work's points, chunks, documents, term counts and texts added to the delta (labels go on from `nextLabel`). */
function addToDelta(
  graph: HnswGraph,
  delta: DeltaJson,
  prepared: NonNullable<Awaited<ReturnType<typeof chunkNewWork>>>['prepared'],
  vectors: Float32Array[],
  nextLabel: number,
  templates: Parameters<typeof lexicalTokens>[1],
): { nextLabel: number; history: number; paths: string[] } {
  let label = nextLabel;
  let v = 0;
  let history = 0;
  const paths: string[] = [];
  for (const p of prepared) {
    const docIndex = delta.docs.length;
    const labels: number[] = [];
    for (const c of p.chunks) {
      graph.addPoint(Array.from(vectors[v++]), label);
      delta.chunks.push([label, docIndex, c.section, excerptOf(c.text)] as StoredChunk);
      labels.push(label++);
    }
    delta.docs.push({ ...p.doc.metadata, labels });
    const tokens = lexicalTokens(p.doc.text, templates);
    delta.lexical.push([p.doc.metadata.filePath, tokens.length, [...termCounts(tokens)]]);
    delta.texts[p.doc.metadata.filePath] = p.doc.text;
    if (p.doc.metadata.types.includes('history')) history++;
    paths.push(p.doc.metadata.filePath);
  }
  return { nextLabel: label, history, paths };
}

function readDeltaOrNull(dir: string, manifest: Manifest): DeltaJson | null {
  try {
    return readDelta(dir, manifest);
  } catch {
    return null; // damaged: the whole update reads the generation and says so
  }
}

/** hnswlib writes only to a path: through a temp file beside the generations (pruned if a crash leaves it), read back; the delta's graph is small. */
function graphBytes(graph: { writeIndexSync(file: string): void }, indexDir: string): Buffer {
  const file = path.join(indexDir, `.tmp-delta-${process.pid}-${Date.now().toString(36)}.hnsw`);
  try {
    graph.writeIndexSync(file);
    return readFileSync(file);
  } finally {
    rmSync(file, { force: true });
  }
}
