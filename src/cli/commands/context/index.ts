import type { CommandContext } from '../../context.js';
import { readBrief } from '../../../work-memory/check/brief.js';
import { runChecks } from '../../../work-memory/check/run.js';
import { mergeContext, readManualContext } from '../../../work-memory/check/standards.js';
import { ExitCode } from '../../../shared/errors.js';
import { logRetrievedStandards } from '../../../work-memory/check/log-standards.js';
import { relevantStandardsSection, stripAgentosSections } from '../../../work-memory/output/sections.js';
import { coverageJson } from '../../../work-memory/index/refresh.js';
import { refreshIndexForCheck } from '../../ui/index-refresh.js';
import { createSpinner } from '../../ui/spinner.js';

export interface ContextOptions {
  json?: boolean;
  context: string[];
  /** false with --no-refresh. */
  refresh?: boolean;
}

/** Just the standards context of a brief, for other tools. Degrades like issue start: warn and print none. */
export async function runContext(ctx: CommandContext, briefArg: string, opts: ContextOptions): Promise<number> {
  const { io, globals } = ctx;
  const root = ctx.root();
  const { config } = await ctx.config();
  const brief = await readBrief(briefArg, io.cwd, io.stdin);
  const manual = await readManualContext(opts.context ?? [], io.cwd, root);
  const deps = await ctx.checkDeps();
  const spinner = await createSpinner(io, Boolean(globals.quiet) || Boolean(opts.json));
  const index = await refreshIndexForCheck(io, {
    root,
    config,
    model: deps.identity,
    loadEmbedder: deps.loadEmbedder,
    noRefresh: opts.refresh === false,
    spinner,
    quiet: Boolean(globals.quiet),
  });
  const outcome = await runChecks(stripAgentosSections(brief.text), config, deps, { history: false, standards: true });
  if (outcome.standards.error)
    io.stderr.write(
      `warning: ${outcome.standards.noIndex ? outcome.standards.error : `standards context unavailable: ${outcome.standards.error}`}\n`,
    );
  const items = mergeContext(manual, outcome.standards.items);
  const logger = await ctx.logger();
  logRetrievedStandards(logger, outcome.standards.items);
  if (opts.json)
    io.stdout.write(
      JSON.stringify(
        { method: outcome.standards.method, error: outcome.standards.error, items, coverage: coverageJson(index) },
        null,
        2,
      ) + '\n',
    );
  else if (items.length) io.stdout.write(relevantStandardsSection(items) + '\n');
  else io.stderr.write('No relevant standards found.\n');
  return ExitCode.Ok;
}
