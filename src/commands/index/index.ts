import type { GlobalOptions } from '../../cli.js';
import { loadConfig } from '../../config/load.js';
import { modelSetup } from '../../embeddings/setup.js';
import { assertExplicitModelDir } from '../../embeddings/model-location.js';
import { ExitCode } from '../../errors.js';
import { buildIndex, type BuildReport } from '../../index/build.js';
import { useColor, type IO } from '../../io.js';
import { findProjectRoot } from '../../project.js';
import { terminalSafe } from '../../output/sanitize.js';
import { createSpinner } from '../../ui/spinner.js';

export interface IndexOptions {
  includeHistory?: boolean;
  full?: boolean;
  json?: boolean;
  wait: number;
}

export async function runIndex(io: IO, globals: GlobalOptions, opts: IndexOptions): Promise<number> {
  const started = performance.now();
  const root = findProjectRoot(io.cwd, globals.cwd);
  const { config, warnings: configWarnings } = await loadConfig(root);
  for (const w of configWarnings) io.stderr.write(`warning: ${w}\n`);
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
      includeHistory: Boolean(opts.includeHistory),
      full: Boolean(opts.full),
      model: model.identity,
      loadEmbedder: () => model.load('batch'),
      lockWaitMs: opts.wait * 1000,
      onProgress: (p) => {
        if (p.phase === 'scan') spinner.update(`Scanned ${p.files} files`);
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

  if (opts.json) {
    io.stdout.write(JSON.stringify({ root, ...report, seconds: Number(seconds.toFixed(3)), model: model.identity.modelId }, null, 2) + '\n');
  } else {
    printSummary(io, report, seconds, Boolean(opts.includeHistory));
  }
  for (const w of report.warnings) io.stderr.write(`warning: ${terminalSafe(w)}\n`);
  return ExitCode.Ok;
}

/**
 * Progress in chunks and tokens; the ETA is from the tokens embedded since the
 * embedding phase began (the cost is per token, and chunks vary 10x in length;
 * batches run shortest first, so a chunk-based ETA would be far too low).
 */
export function embedProgressLine(p: { done: number; total: number; tokens?: number; totalTokens?: number }, elapsedS: number): string {
  const chunks = `Embedding chunks ${p.done}/${p.total}`;
  if (p.tokens === undefined || !p.totalTokens) return `${chunks} (${Math.round((100 * p.done) / Math.max(1, p.total))}%)`;
  const pct = Math.round((100 * p.tokens) / p.totalTokens);
  const tokens = `tokens ${p.tokens.toLocaleString('en-US')}/${p.totalTokens.toLocaleString('en-US')} (${pct}%)`;
  const eta = p.tokens > 0 && p.tokens < p.totalTokens && elapsedS > 0 ? ` · ETA ${Math.ceil((elapsedS / p.tokens) * (p.totalTokens - p.tokens))}s` : '';
  return `${chunks} · ${tokens}${eta}`;
}

function printSummary(io: IO, r: BuildReport, seconds: number, includeHistory: boolean): void {
  const color = useColor(io, 'stdout');
  const bold = (s: string) => (color ? `\x1b[1m${s}\x1b[22m` : s);
  const out = (s = '') => io.stdout.write(s + '\n');
  if (r.fullRebuildReason) out(`Full rebuild: ${r.fullRebuildReason}.`);
  out(
    `${bold(r.wrote ? 'Index updated' : 'Index up to date')}${includeHistory ? ' (standards + history)' : ' (standards only)'} in ${seconds.toFixed(2)}s`,
  );
  out(`  files scanned  ${r.scanned}`);
  out(`  indexed        ${r.added.length + r.changed.length} (${r.added.length} new, ${r.changed.length} changed)`);
  out(`  unchanged      ${r.unchanged}`);
  out(`  removed        ${r.removed.length}`);
  out(`  skipped        ${r.skipped.length}`);
  for (const s of r.skipped) out(`    - ${terminalSafe(s.relPath)}: ${terminalSafe(s.reason)}`);
  out(`  chunks         ${r.chunks} (${r.chunksEmbedded} embedded)`);
}
