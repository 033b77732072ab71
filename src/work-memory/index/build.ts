import { scanCorpus } from '../corpus/scan.js';
import { DamagedPointerError, readCurrent } from './hnsw-index.js';
import { indexPaths } from './layout.js';
import { acquireLock } from './lock.js';
import { tryAppend } from './append.js';
import { pruneGenerations, setAsideCurrent } from './write.js';
import type { Embedder } from '../embeddings/embedder.js';
import { metadataOutdated, refreshKeptMetadata } from './refresh-metadata.js';
import { readPreviousSources } from './source-plan.js';
import { collectSources, sourcesConfigured, type CollectedSources } from '../sources/collect.js';
import {
  embedPrepared,
  incompatibility,
  newReport,
  openPrevious,
  planAll,
  prepareDocuments,
  writeIndex,
} from './build-steps.js';

export type { BuildOptions, BuildProgress, BuildReport, ModelIdentity } from './build-types.js';
import type { BuildOptions, BuildReport } from './build-types.js';

export { MAX_DOC_CHUNKS } from './chunk-doc.js';
export { incompatibility } from './build-steps.js';

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
  const { appended, appendFailed } = await appendOnly(opts, previousName);
  if (appended) return appended;
  const { existing, fullRebuildReason } = await openPrevious(opts, previousName, damaged);

  const scan = await scanCorpus(root, config.corpus, opts.includeHistory);
  // Work that lives in git or a tracker export, read beside the files (history only).
  const sources: CollectedSources | null =
    opts.includeHistory && sourcesConfigured(config)
      ? await collectSources(root, config, existing ? await readPreviousSources(existing, previousName!, root) : null, {
          fetch: opts.fetchSources,
        })
      : null;
  opts.onProgress?.({ phase: 'scan', files: scan.files.length + (sources?.docs.length ?? 0) });
  const report = newReport({ scan, sources, appendFailed, fullRebuildReason, previousName, existing });

  // 1. Plan: what is kept, what must be embedded, what is gone (no model yet).
  const planned = await planAll(opts, existing, scan, sources, report);
  const { plan, oldDocs, sourcePlan, configHash } = planned;
  let metaOnlyChange = planned.metaOnlyChange;

  // 2. Read, describe and chunk what must be embedded; the model loads only now.
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
  const { prepared, skippedStats, embedder } = await prepareDocuments(opts, {
    plan,
    sourcePlan,
    oldDocs,
    readTexts,
    report,
  });

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
  const vectors = await embedPrepared(opts, embedder, prepared, report);

  // 4. The graph and the metadata (graph-update.ts), then the generation, swapped in atomically.
  return writeIndex(opts, {
    ...{ existing, previousName, plan, oldDocs, report, prepared, vectors, embedder },
    ...{ skippedStats, configHash, sources, readTexts, linkBase: Boolean(nothingToDo) },
  });
}

/** The update as an append, when only new commits' work is to be added (append.ts); why it failed, if it did. */
async function appendOnly(
  opts: BuildOptions,
  previousName: string | null,
): Promise<{ appended: BuildReport | null; appendFailed: string | null }> {
  if (!previousName || opts.full) return { appended: null, appendFailed: null };
  try {
    return { appended: await tryAppend(opts, previousName, (m) => incompatibility(m, opts.model)), appendFailed: null };
  } catch (e) {
    // An append that fails (a base file that cannot be linked or copied, say) leaves nothing live: the whole update follows, and says so.
    return { appended: null, appendFailed: (e as Error).message.split('\n')[0] };
  }
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
