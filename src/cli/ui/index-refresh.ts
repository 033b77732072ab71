import type { Config } from '../../shared/config/schema.js';
import type { Embedder } from '../../work-memory/embeddings/embedder.js';
import type { ModelIdentity } from '../../work-memory/index/build.js';
import { describeChanges, type Freshness } from '../../work-memory/index/freshness.js';
import { refreshIfStale, type RefreshOutcome } from '../../work-memory/index/refresh.js';
import type { IO } from '../../shared/io.js';
import { terminalSafe } from '../../shared/sanitize.js';
import type { Spinner } from './spinner.js';

/** How long a check waits for a running `agentos index` before using the index as it is. */
export const REFRESH_LOCK_WAIT_MS = 30_000;

export interface IndexRefreshContext {
  root: string;
  config: Config;
  model?: ModelIdentity;
  loadEmbedder?: () => Promise<Embedder>;
  noRefresh: boolean;
  spinner: Spinner;
  /** Progress and notes off (--quiet); warnings still go to stderr. */
  quiet: boolean;
}

/**
 * The terminal side of the freshness check before `issue start`, `context` and
 * `search`: progress while the index is brought up to date, and a warning
 * naming the files when it is not (`--no-refresh`, a model change, a failure).
 */
export async function refreshIndexForCheck(io: IO, ctx: IndexRefreshContext): Promise<RefreshOutcome> {
  // File names and error texts come from the corpus: no terminal escapes through.
  const err = (s: string) => io.stderr.write(terminalSafe(s) + '\n');
  // Every caller needs the model next (and a refresh may too): start loading it now so the
  // stat scan overlaps the load. `loadEmbedder` is shared (withSharedEmbedder), so this is the
  // load the check uses; a failure is reported by whoever awaits it next.
  ctx.loadEmbedder?.().catch(() => undefined);
  const outcome = await refreshIfStale({
    root: ctx.root,
    config: ctx.config,
    model: ctx.model,
    loadEmbedder: ctx.loadEmbedder,
    noRefresh: ctx.noRefresh,
    lockWaitMs: REFRESH_LOCK_WAIT_MS,
    onProgress: (p) => {
      if (p.phase === 'start') ctx.spinner.start(refreshStartLine(p.freshness));
      else if (p.phase === 'model') ctx.spinner.update('Updating the index: loading the model…');
      // Nothing to embed (only removals, or ids read again): no "0/0".
      else if (p.phase === 'embed' && p.total > 0)
        ctx.spinner.update(`Updating the index: embedding chunks ${p.done}/${p.total}`);
      else if (p.phase === 'write') ctx.spinner.update('Updating the index: writing…');
    },
  });
  const b = outcome.before;
  if (outcome.ran && outcome.report) {
    const r = outcome.report;
    ctx.spinner.stop();
    const reread = r.metadataRefreshed ? `, ${r.metadataRefreshed} re-read` : '';
    if (!ctx.quiet)
      err(
        `Index updated before the check (${r.added.length} new, ${r.changed.length} changed, ${r.removed.length} removed${reread}; ${(outcome.refreshMs / 1000).toFixed(1)}s).`,
      );
  } else if (outcome.error) {
    ctx.spinner.stop();
    err(
      `warning: could not update the index (${outcome.error}); checking against the index as it is, which misses ${missed(b)}`,
    );
  } else if (outcome.skipped === 'no-refresh') {
    err(`warning: --no-refresh: the index misses ${missed(b)}; run \`agentos index\``);
  } else if (outcome.skipped === 'incompatible') {
    err(
      `warning: the index needs a full rebuild (${b.incompatible}) and misses ${missed(b)}; run \`agentos index --full\``,
    );
  } else if (outcome.skipped === 'no-model') {
    err(`warning: the index misses ${missed(b)}; run \`agentos index\``);
  }
  return outcome;
}

/** What a freshness scan found changed (freshness.ts), as these lines read it. */
type Changes = Pick<Freshness, 'added' | 'changed' | 'removed' | 'sources' | 'configChanged' | 'metadataOutdated'>;

/** What the spinner says when a refresh starts: what changed, or that only the rules reading ids and relations did. */
export function refreshStartLine(f: Changes): string {
  const n = f.added.length + f.changed.length + f.removed.length + f.sources.length;
  if (n === 0 && !f.configChanged && f.metadataOutdated)
    return 'Updating the index: re-reading issue ids and relations as this agentos reads them (no embedding)…';
  if (n === 0 && f.configChanged) return 'Updating the index: the corpus settings changed…';
  return `Updating the index: ${changeCount(f)} since it was built${f.sources.length ? ` (${f.sources.join('; ')})` : ''}…`;
}

/** "changes to 2 files: a.md (new), b.md (changed)", or the config change when no file differs. */
function missed(f: Changes): string {
  const list = describeChanges(f);
  if (!list && !f.configChanged && f.metadataOutdated)
    return 'the issue ids and relations this agentos reads (an update re-reads them without the model)';
  if (!list) return 'the corpus settings changed in .agentos/config.yaml';
  return `changes to ${changeCount(f)}: ${list}`;
}

function changeCount(f: Changes): string {
  const n = f.added.length + f.changed.length + f.removed.length;
  const sources = f.sources.length ? (f.sources.length === 1 ? 'one source' : `${f.sources.length} sources`) : '';
  if (n === 0) return sources || 'the corpus settings';
  const files = `${n} file${n === 1 ? '' : 's'} (${f.added.length} new, ${f.changed.length} changed, ${f.removed.length} deleted)`;
  return sources ? `${files} and ${sources}` : files;
}
