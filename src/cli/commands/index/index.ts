import type { CommandContext } from '../../context.js';
import { modelSetup } from '../../../work-memory/index/model-setup.js';
import { assertExplicitModelDir } from '../../../work-memory/embeddings/model-location.js';
import { errorMessage, ExitCode, UsageError } from '../../../shared/errors.js';
import { buildIndex, type BuildReport } from '../../../work-memory/index/build.js';
import { resolveHistoryScope } from '../../../work-memory/index/freshness.js';
import { emptyGlobWarnings } from './empty-globs.js';
import { debugLine, type IO } from '../../../shared/io.js';
import { styleFor } from '../../../shared/style.js';
import { terminalSafe } from '../../../shared/sanitize.js';
import { createSpinner } from '../../ui/spinner.js';

export interface IndexOptions {
  includeHistory?: boolean;
  /** false with --no-history (commander's negated option). */
  history?: boolean;
  full?: boolean;
  json?: boolean;
  wait: number;
}

export async function runIndex(ctx: CommandContext, opts: IndexOptions): Promise<number> {
  const { io, globals } = ctx;
  const started = performance.now();
  const root = ctx.root();
  if (opts.includeHistory && opts.history === false)
    throw new UsageError('--include-history and --no-history contradict each other; choose one');
  const { config, warnings: configWarnings } = await ctx.config();
  for (const w of configWarnings) io.stderr.write(`warning: ${w}\n`);
  // The index remembers whether it covers history; flags change that on purpose.
  const scope = resolveHistoryScope(root, { includeHistory: opts.includeHistory, noHistory: opts.history === false });
  if (scope.kept && !globals.quiet)
    io.stderr.write('Keeping history: the index already covers completed work (--no-history drops it).\n');
  if (scope.dropped && !globals.quiet)
    io.stderr.write('Dropping history: --no-history removes completed work from the index.\n');
  const model = modelSetup(io.env, config, root);
  assertExplicitModelDir(model.location);
  const spinner = await createSpinner(io, Boolean(globals.quiet));
  let embedStart = 0;

  spinner.start('Scanning corpus…');
  let report: BuildReport;
  try {
    report = await buildIndex({
      root,
      config,
      includeHistory: scope.includeHistory,
      full: Boolean(opts.full),
      model: model.identity,
      loadEmbedder: () => model.load('batch'),
      lockWaitMs: opts.wait * 1000,
      fetchSources: true,
      onProgress: (p) => {
        if (p.phase === 'scan') spinner.update(`Found ${plural(p.files, 'document')}`);
        else if (p.phase === 'model') spinner.update(`Loading model ${model.identity.modelId}…`);
        else if (p.phase === 'embed') {
          spinner.update(embedProgressLine(p, embedStart ? (performance.now() - embedStart) / 1000 : 0));
          if (!embedStart) embedStart = performance.now();
        } else spinner.update('Writing index…');
      },
    });
  } catch (e) {
    spinner.fail('Indexing failed');
    throw e;
  }
  const seconds = (performance.now() - started) / 1000;
  spinner.stop();
  debugLine(
    io,
    globals,
    `index: ${report.scanned} scanned, ${report.chunksEmbedded} chunks / ${report.tokensEmbedded} tokens embedded in ${seconds.toFixed(2)} s${embedStart ? ` (embedding from ${((embedStart - started) / 1000).toFixed(2)} s)` : ''}; model ${model.identity.modelId} from ${model.location.source}`,
  );

  const empty = await emptyGlobWarnings(root, config, report, scope.includeHistory);
  await logIndexRun(root, report, seconds, scope.includeHistory);
  if (opts.json) {
    const history = { includeHistory: scope.includeHistory, historyKept: scope.kept, historyDropped: scope.dropped };
    io.stdout.write(
      JSON.stringify(
        {
          root,
          ...report,
          ...history,
          emptyGlobs: empty.globs,
          seconds: Number(seconds.toFixed(3)),
          model: model.identity.modelId,
        },
        null,
        2,
      ) + '\n',
    );
  } else {
    await printSummary(io, report, seconds, scope.includeHistory);
  }
  for (const w of [...report.warnings, ...empty.warnings]) io.stderr.write(`warning: ${terminalSafe(w)}\n`);
  await syncIfConfigured(ctx);
  return ExitCode.Ok;
}

/**
 * With a team store configured, the index just built goes there too. The local index
 * stands whatever the server does: a failure is one warning saying what to run later.
 */
async function syncIfConfigured(ctx: CommandContext): Promise<void> {
  const { storeUrl } = await import('../../../shared/team-store/url.js');
  if (!storeUrl(ctx.io.env, (await ctx.config()).config)) return;
  const { syncTeamStore, describeSync, notPublishing } = await import('../../publish.js');
  try {
    const why = await notPublishing(ctx, { explicit: false, anyBranch: false });
    if (why) {
      if (!ctx.globals.quiet) ctx.io.stderr.write(`note: the team store was not updated: ${why}\n`);
      return;
    }
    const r = await syncTeamStore(ctx);
    if (!ctx.globals.quiet) ctx.io.stderr.write(describeSync(r) + '\n');
  } catch (e) {
    ctx.io.stderr.write(
      `warning: the team store was not updated (${errorMessage(e)}); the local index is; run \`agentos store sync\` when the store is back\n`,
    );
  }
}

/**
 * Progress in chunks and tokens; the ETA is from the tokens embedded since the
 * embedding phase began (the cost is per token, and chunks vary 10x in length;
 * batches run shortest first, so a chunk-based ETA would be far too low).
 */
export function embedProgressLine(
  p: { done: number; total: number; tokens?: number; totalTokens?: number },
  elapsedS: number,
): string {
  const chunks = `Embedding chunks ${p.done}/${p.total}`;
  if (p.tokens === undefined || !p.totalTokens)
    return `${chunks} (${Math.round((100 * p.done) / Math.max(1, p.total))}%)`;
  const pct = Math.round((100 * p.tokens) / p.totalTokens);
  const tokens = `tokens ${p.tokens.toLocaleString('en-US')}/${p.totalTokens.toLocaleString('en-US')} (${pct}%)`;
  const eta =
    p.tokens > 0 && p.tokens < p.totalTokens && elapsedS > 0
      ? ` · ETA ${Math.ceil((elapsedS / p.tokens) * (p.totalTokens - p.tokens))}s`
      : '';
  return `${chunks} · ${tokens}${eta}`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Index runs go in the audit log beside the decisions (never fatal: the index is written already). */
async function logIndexRun(root: string, r: BuildReport, seconds: number, includeHistory: boolean): Promise<void> {
  try {
    const { createFileLogger } = await import('../../../shared/log/logger.js');
    const logger = await createFileLogger(root);
    logger.info(
      {
        event: 'index',
        includeHistory,
        wrote: r.wrote,
        scanned: r.scanned,
        added: r.added.length,
        changed: r.changed.length,
        removed: r.removed.length,
        skipped: r.skipped.length,
        chunks: r.chunks,
        fullRebuildReason: r.fullRebuildReason,
        seconds: Number(seconds.toFixed(3)),
      },
      r.wrote ? 'index updated' : 'index up to date',
    );
  } catch {
    /* a read-only .agentos/logs must not fail an index that succeeded */
  }
}

/** "1273 pieces of work on main (1854 commits read)" and, on a line of its own, the commits left out by reason. */
function gitLine(g: NonNullable<NonNullable<BuildReport['sources']>['git']>): string {
  const ref = g.ref.replace(/^refs\/(heads|remotes)\//, '');
  const out = Object.entries(g.notWork)
    .sort((a, b) => b[1] - a[1])
    .map(([why, n]) => `${n} ${why}`)
    .join(', ');
  const read =
    g.mode === 'unchanged'
      ? 'no new commit'
      : g.mode === 'incremental'
        ? `${plural(g.commits, 'new commit')} read`
        : `${plural(g.commits, 'commit')} read${g.reason && g.reason !== 'first read' ? `: ${g.reason}` : ''}`;
  return `${plural(g.documents, 'piece')} of work on ${terminalSafe(ref)} (${read})${g.shallow ? `\n  shallow clone  ${g.shallow.replace(/^a shallow clone: /, '')}` : ''}${out ? `\n  not work       ${out}` : ''}`;
}

async function printSummary(io: IO, r: BuildReport, seconds: number, includeHistory: boolean): Promise<void> {
  const { bold } = await styleFor(io, 'stdout');
  const out = (s = '') => io.stdout.write(s + '\n');
  if (r.fullRebuildReason) out(`Full rebuild: ${r.fullRebuildReason}.`);
  else if (r.firstBuild && r.wrote) out('First build of the index.');
  out(
    `${bold(r.wrote ? 'Index updated' : 'Index up to date')}${includeHistory ? ' (standards + history)' : ' (standards only)'} in ${seconds.toFixed(2)}s`,
  );
  out(`  files scanned  ${r.scanned - (r.sources?.documents ?? 0)}`);
  if (r.sources?.git) out(`  git history    ${gitLine(r.sources.git)}`);
  for (const t of r.sources?.trackers ?? [])
    out(`  tracker        ${terminalSafe(t.path)}: ${plural(t.documents, 'piece')} of completed work`);
  out(`  indexed        ${r.added.length + r.changed.length} (${r.added.length} new, ${r.changed.length} changed)`);
  out(
    `  unchanged      ${r.unchanged}${r.metadataRefreshed ? ` (${r.metadataRefreshed} re-read: issue ids and relations as this agentos reads them)` : ''}`,
  );
  out(`  removed        ${r.removed.length}`);
  out(`  skipped        ${r.skipped.length}`);
  for (const s of r.skipped) out(`    - ${terminalSafe(s.relPath)}: ${terminalSafe(s.reason)}`);
  out(`  chunks         ${r.chunks} (${r.chunksEmbedded} embedded)`);
}
