/** `agentos attempt check`: has this failed recently? Exits 0 either way: it informs, `run` decides. */
import type { CommandContext } from '../../../context.js';
import { HOOK_STORE_DEADLINE_MS, shareBestEffort } from '../../../../attempt-memory/share.js';
import type { Config } from '../../../../shared/config/schema.js';
import { renderRepeatWarning } from '../../../../attempt-memory/render.js';
import { ExitCode, errorMessage } from '../../../../shared/errors.js';
import { loadProject, paint, requireCommand } from '../common.js';

export interface CheckOptions {
  tool: string;
  command?: string;
  context?: string;
  tags: string[];
  json?: boolean;
}

export async function runAttemptCheck(ctx: CommandContext, words: string[], opts: CheckOptions): Promise<number> {
  const { io } = ctx;
  const command = requireCommand(words, opts.command, 'attempt check');
  const project = await loadProject(ctx);
  const threshold = project.config.attempts.repeatThreshold;
  let warnings;
  try {
    await refreshFromTeam(ctx, project.config);
    const memory = await ctx.attempts('read');
    try {
      warnings = memory.checkRepeat({ tool: opts.tool, command, context: opts.context ?? null, tags: opts.tags });
    } finally {
      memory.close();
    }
  } catch (e) {
    // The check informs; it never blocks. Say what failed.
    io.stderr.write(`agentos: attempt check failed: ${errorMessage(e)}. No history was consulted.\n`);
    if (opts.json)
      io.stdout.write(
        JSON.stringify({ command, status: 'error', error: errorMessage(e), repeat: false, warnings: [] }, null, 2) +
          '\n',
      );
    return ExitCode.Ok;
  }
  if (opts.json) {
    io.stdout.write(
      JSON.stringify(
        { command, status: 'ok', method: 'lexical:attempts', threshold, repeat: warnings.length > 0, warnings },
        null,
        2,
      ) + '\n',
    );
  } else if (warnings.length > 0) {
    io.stdout.write(
      renderRepeatWarning(warnings, threshold, project.config.attempts.failureLookbackDays, await paint(io, 'stdout')),
    );
  } else {
    io.stdout.write(`No similar failure in the last ${project.config.attempts.failureLookbackDays} days.\n`);
  }
  return ExitCode.Ok;
}

/**
 * The team's recent attempts first (attempts.scope: org; at most every few minutes, within the hooks'
 * deadline), as `run` reads them: a teammate's failure warns here too. Informs only: a refresh that
 * cannot happen (the memory busy or read-only, the store away) is said, and the local check goes on.
 */
async function refreshFromTeam(ctx: CommandContext, config: Config): Promise<void> {
  if (!config.attempts.enabled || config.attempts.scope !== 'org') return;
  try {
    const writable = await ctx.attempts('write');
    try {
      const warning = await shareBestEffort(
        ctx.root(),
        config,
        writable.queue,
        ctx.io.env,
        'refresh',
        () => new Date(),
        HOOK_STORE_DEADLINE_MS,
      );
      if (warning) ctx.io.stderr.write(`agentos: warning: ${warning}\n`);
    } finally {
      writable.close();
    }
  } catch (e) {
    ctx.io.stderr.write(
      `agentos: warning: the team's attempts were not refreshed (${errorMessage(e)}); checked against this machine's records\n`,
    );
  }
}
