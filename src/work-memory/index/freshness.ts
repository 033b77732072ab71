import type { Config } from '../../shared/config/schema.js';
import { scanCorpus } from '../corpus/scan.js';
import { compareText } from '../../shared/text/compare.js';
import type { CorpusFile } from '../corpus/types.js';
import { errorMessage } from '../../shared/errors.js';
import { incompatibility, type ModelIdentity } from './build.js';
import { corpusConfigHash } from './corpus-config.js';
import { readCurrent, readLiveManifest, readManifest } from './hnsw-index.js';
import { indexPaths } from './layout.js';
import { metadataOutdated } from './refresh-metadata.js';
import type { Manifest } from './types.js';
import { statDiff } from './update-plan.js';
import { sourceChanges } from '../sources/changes.js';
import { sourcesConfigured } from '../sources/collect.js';

/**
 * How the live index compares with the corpus on disk, from a stat-only scan
 * (no file is read). The checks use it so that "no similar past work" is never
 * said about an index that did not look at the newest files.
 */
export interface Freshness {
  state: 'fresh' | 'stale' | 'no_index' | 'unreadable';
  generation: string | null;
  manifest: Manifest | null;
  /** In the corpus, not in the index (and not a file the index skipped as it is). */
  added: string[];
  /** Size or mtime differs from what the index recorded. */
  changed: string[];
  /** In the index, gone from the corpus (or no longer matched by the globs). */
  removed: string[];
  /** Sources besides files (git, tracker exports) that moved since the index was built, one line each. */
  sources: string[];
  /** The corpus globs or size limit differ from the ones the index was built with. */
  configChanged: boolean;
  /** The index's issue ids and relations were read by older rules (refresh-metadata.ts): an update re-reads them without the model. */
  metadataOutdated?: boolean;
  /** Why the index cannot be updated in place (model/chunking change), or null. */
  incompatible: string | null;
  /** Why the manifest could not be read, when state is "unreadable". */
  error: string | null;
  scanMs: number;
}

/** Pure comparison of a stat scan with the manifest (update-plan.ts statDiff, as the build makes it); every list sorted by byte order. */
export function compareWithManifest(
  manifest: Pick<Manifest, 'files' | 'skipped'>,
  files: Pick<CorpusFile, 'relPath' | 'size' | 'mtimeMs'>[],
) {
  const d = statDiff(manifest, files);
  const paths = (fs: Array<{ relPath: string }>) => fs.map((f) => f.relPath).sort(compareText);
  return { added: paths(d.added), changed: paths(d.changed), removed: d.removed };
}

/** Read the live manifest (never the vectors) and compare it with a stat scan of the corpus. */
export async function checkFreshness(root: string, config: Config, model?: ModelIdentity): Promise<Freshness> {
  const started = performance.now();
  const base: Freshness = {
    state: 'no_index',
    generation: null,
    manifest: null,
    added: [],
    changed: [],
    removed: [],
    sources: [],
    configChanged: false,
    incompatible: null,
    error: null,
    scanMs: 0,
  };
  let generation: string | null;
  let manifest: Manifest;
  try {
    generation = readCurrent(root);
    if (!generation) return { ...base, scanMs: performance.now() - started };
    manifest = readManifest(indexPaths(root).generation(generation).manifest);
  } catch (e) {
    return { ...base, state: 'unreadable', error: errorMessage(e), scanMs: performance.now() - started };
  }
  // The index covers what it was built to cover: history only if it was built with it.
  const scan = await scanCorpus(root, config.corpus, manifest.includeHistory);
  const diff = compareWithManifest(manifest, scan.files);
  const configChanged =
    manifest.corpusConfigHash !== undefined &&
    manifest.corpusConfigHash !== corpusConfigHash(config, manifest.includeHistory);
  const sources =
    manifest.includeHistory && sourcesConfigured(config) ? await sourceChanges(root, config, manifest.sources) : [];
  const outdated = metadataOutdated(manifest);
  const stale =
    diff.added.length + diff.changed.length + diff.removed.length + sources.length > 0 || configChanged || outdated;
  return {
    ...base,
    state: stale ? 'stale' : 'fresh',
    generation,
    manifest,
    ...diff,
    sources,
    configChanged,
    metadataOutdated: outdated,
    incompatible: model ? incompatibility(manifest, model) : null,
    scanMs: performance.now() - started,
  };
}

/** Seconds since the index was written. */
export function indexAgeSeconds(manifest: Manifest | null, now = Date.now()): number | null {
  if (!manifest) return null;
  const t = Date.parse(manifest.createdAt);
  return Number.isFinite(t) ? Math.max(0, Math.round((now - t) / 1000)) : null;
}

/** "2 files changed since the index: a.md (new), b.md (changed)" style list, capped for the terminal. */
export function describeChanges(
  f: Pick<Freshness, 'added' | 'changed' | 'removed'> & { sources?: string[] },
  max = 5,
): string {
  const all = [
    ...(f.sources ?? []),
    ...f.added.map((p) => `${p} (new)`),
    ...f.changed.map((p) => `${p} (changed)`),
    ...f.removed.map((p) => `${p} (deleted)`),
  ];
  const shown = all.slice(0, max).join(', ');
  return all.length > max ? `${shown}, and ${all.length - max} more` : shown;
}

export interface HistoryScope {
  includeHistory: boolean;
  /** No flag was given and the previous index held history: it is kept. */
  kept: boolean;
  /** `--no-history` removed history the previous index held. */
  dropped: boolean;
}

/**
 * Whether an `index` run covers history. The index remembers: without a flag a
 * run keeps what the previous index covered (a plain `index` after
 * `--include-history` must not silently drop completed work); `--include-history`
 * and `--no-history` change it on purpose.
 */
export function resolveHistoryScope(
  root: string,
  flags: { includeHistory?: boolean; noHistory?: boolean },
): HistoryScope {
  // An unreadable index remembers nothing; the build says why it rebuilds.
  const previous = readLiveManifest(root)?.includeHistory === true;
  if (flags.includeHistory) return { includeHistory: true, kept: false, dropped: false };
  if (flags.noHistory) return { includeHistory: false, kept: false, dropped: previous };
  return { includeHistory: previous, kept: previous, dropped: false };
}
