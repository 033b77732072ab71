import type { GlobalOptions } from '../../globals.js';
import { readBrief } from '../../../work-memory/check/brief.js';
import { defaultCheckDeps, withSharedEmbedder } from '../../../work-memory/check/deps.js';
import { runChecks, type CheckDeps } from '../../../work-memory/check/run.js';
import { mergeContext, readManualContext } from '../../../work-memory/check/standards.js';
import { loadConfig } from '../../../shared/config/load.js';
import type { Config } from '../../../shared/config/schema.js';
import { ExitCode } from '../../../shared/errors.js';
import type { IO } from '../../../shared/io.js';
import { createFileLogger } from '../../../shared/log/logger.js';
import { logRetrievedStandards } from '../../../work-memory/check/log-standards.js';
import { relevantStandardsSection, stripAgentosSections } from '../../../work-memory/output/sections.js';
import { findProjectRoot } from '../../../shared/project.js';
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
export async function runContext(
  io: IO,
  globals: GlobalOptions,
  briefArg: string,
  opts: ContextOptions,
  seams: { deps?: (config: Config, root: string) => CheckDeps } = {},
): Promise<number> {
  const root = findProjectRoot(io.cwd, globals.cwd);
  const { config } = await loadConfig(root);
  const brief = await readBrief(briefArg, io.cwd, io.stdin);
  const manual = await readManualContext(opts.context ?? [], io.cwd, root);
  const deps: CheckDeps = withSharedEmbedder(seams.deps ? seams.deps(config, root) : defaultCheckDeps(io.env, config, root));
  const spinner = await createSpinner(io, Boolean(globals.quiet) || Boolean(opts.json));
  const index = await refreshIndexForCheck(io, { root, config, model: deps.identity, loadEmbedder: deps.loadEmbedder, noRefresh: opts.refresh === false, spinner, quiet: Boolean(globals.quiet) });
  const outcome = await runChecks(stripAgentosSections(brief.text), config, deps, { history: false, standards: true });
  if (outcome.standards.error) io.stderr.write(`warning: ${outcome.standards.noIndex ? outcome.standards.error : `standards context unavailable: ${outcome.standards.error}`}\n`);
  const items = mergeContext(manual, outcome.standards.items);
  const logger = await createFileLogger(root);
  logRetrievedStandards(logger, outcome.standards.items);
  if (opts.json) io.stdout.write(JSON.stringify({ method: outcome.standards.method, error: outcome.standards.error, items, coverage: coverageJson(index) }, null, 2) + '\n');
  else if (items.length) io.stdout.write(relevantStandardsSection(items) + '\n');
  else io.stderr.write('No relevant standards found.\n');
  return ExitCode.Ok;
}
