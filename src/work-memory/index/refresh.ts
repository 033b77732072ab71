import type { Config } from '../../shared/config/schema.js';
import type { Embedder } from '../embeddings/embedder.js';
import { errorMessage } from '../../shared/errors.js';
import { buildIndex, type BuildProgress, type BuildReport, type ModelIdentity } from './build.js';
import { checkFreshness, indexAgeSeconds, type Freshness } from './freshness.js';
import { readLiveManifest } from './hnsw-index.js';
import type { Manifest } from './types.js';

/** Why a stale index was not brought up to date before a check. */
export type RefreshSkip = 'no-refresh' | 'incompatible' | 'no-model';

export interface RefreshOutcome {
  /** The index as found, before any refresh. */
  before: Freshness;
  ran: boolean;
  /** Set when the index was stale and not refreshed. */
  skipped: RefreshSkip | null;
  report: BuildReport | null;
  /** The refresh was tried and failed (lock timeout, model load…): the check uses the index as it is. */
  error: string | null;
  refreshMs: number;
  /** The live manifest after the refresh (or as found). */
  manifest: Manifest | null;
}

export interface RefreshOptions {
  root: string;
  config: Config;
  /** Needed to update the index; without it a stale index is only reported. */
  model?: ModelIdentity;
  loadEmbedder?: () => Promise<Embedder>;
  noRefresh: boolean;
  lockWaitMs: number;
  onProgress?: (p: BuildProgress | { phase: 'start'; freshness: Freshness }) => void;
}

/**
 * Before a check: stat the corpus against the index and, when files were
 * added, changed or deleted, update the index incrementally (under the index
 * lock, like `agentos index`, keeping the history coverage it was built with).
 * Never throws: a failed refresh is reported and the check goes on with the
 * index as it is.
 */
export async function refreshIfStale(opts: RefreshOptions): Promise<RefreshOutcome> {
  const before = await checkFreshness(opts.root, opts.config, opts.model);
  const outcome: RefreshOutcome = {
    before,
    ran: false,
    skipped: null,
    report: null,
    error: null,
    refreshMs: 0,
    manifest: before.manifest,
  };
  if (before.state !== 'stale' || !before.manifest) return outcome;
  if (opts.noRefresh) return { ...outcome, skipped: 'no-refresh' };
  // A model or chunking change means a full rebuild: too long to do silently before a check.
  if (before.incompatible) return { ...outcome, skipped: 'incompatible' };
  if (!opts.model || !opts.loadEmbedder) return { ...outcome, skipped: 'no-model' };
  const started = performance.now();
  opts.onProgress?.({ phase: 'start', freshness: before });
  try {
    const report = await buildIndex({
      root: opts.root,
      config: opts.config,
      includeHistory: before.manifest.includeHistory,
      full: false,
      model: opts.model,
      loadEmbedder: opts.loadEmbedder,
      lockWaitMs: opts.lockWaitMs,
      onProgress: opts.onProgress,
      // A corrupt or unreadable index is not rebuilt in full before a check: the check fails open saying so.
      incrementalOnly: true,
    });
    return {
      ...outcome,
      ran: true,
      report,
      refreshMs: performance.now() - started,
      manifest: readLiveManifest(opts.root) ?? before.manifest,
    };
  } catch (e) {
    return { ...outcome, error: errorMessage(e), refreshMs: performance.now() - started };
  }
}

/** What the check covered, for `--json` (see docs/json.md "coverage"). */
export interface CoverageJson {
  /** Documents of each type in the index the check used; null when unknown (no index, or an older index). */
  documents: { standard: number; history: number } | null;
  includeHistory: boolean | null;
  generation: string | null;
  indexedAt: string | null;
  indexAgeSeconds: number | null;
  refresh: {
    /** fresh | refreshed | stale | no_index | unreadable | refresh_failed */
    state: 'fresh' | 'refreshed' | 'stale' | 'no_index' | 'unreadable' | 'refresh_failed';
    ran: boolean;
    skipped: RefreshSkip | null;
    error: string | null;
    added: string[];
    changed: string[];
    removed: string[];
    /** Git or tracker exports that moved since the index was built, one line each. */
    sources: string[];
    configChanged: boolean;
    scanMs: number;
    refreshMs: number;
  };
  /** Files newer than the index the check used (empty when it was fresh or refreshed). */
  staleFiles: string[];
}

export function coverageJson(o: RefreshOutcome, now = Date.now()): CoverageJson {
  const m = o.manifest;
  const b = o.before;
  const state: CoverageJson['refresh']['state'] = o.ran ? 'refreshed' : o.error ? 'refresh_failed' : b.state;
  const pending = o.ran ? [] : [...b.added, ...b.changed, ...b.removed];
  return {
    documents: m?.coverage ? { ...m.coverage } : null,
    includeHistory: m ? m.includeHistory : null,
    generation: o.ran ? (o.report?.generation ?? b.generation) : b.generation,
    indexedAt: m?.createdAt ?? null,
    indexAgeSeconds: indexAgeSeconds(m, now),
    refresh: {
      state,
      ran: o.ran,
      skipped: o.skipped,
      error: o.error,
      added: b.added,
      changed: b.changed,
      removed: b.removed,
      sources: b.sources,
      configChanged: b.configChanged,
      scanMs: Math.round(b.scanMs * 10) / 10,
      refreshMs: Math.round(o.refreshMs),
    },
    staleFiles: pending,
  };
}
