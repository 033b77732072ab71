/** `agentos attempt list`: recorded attempts, newest first. */
import type { CommandContext } from '../../../context.js';
import { renderAttemptLine } from '../../../../attempt-memory/render.js';
import { ExitCode, UsageError } from '../../../../shared/errors.js';
import { paint } from '../common.js';

export interface ListOptions {
  failures?: boolean;
  successes?: boolean;
  since?: Date;
  tag?: string;
  session?: string;
  all?: boolean;
  limit?: number;
  json?: boolean;
}

export async function runAttemptList(ctx: CommandContext, opts: ListOptions): Promise<number> {
  const { io } = ctx;
  if (opts.failures && opts.successes)
    throw new UsageError('attempt list: --failures and --successes exclude each other');
  const memory = await ctx.attempts('write');
  try {
    const records = memory.list({
      outcome: opts.failures ? 'failure' : opts.successes ? 'success' : undefined,
      since: opts.since,
      tag: opts.tag,
      sessionId: opts.session,
      includeArchived: Boolean(opts.all),
      limit: opts.limit,
    });
    if (opts.json) {
      io.stdout.write(JSON.stringify({ attempts: records }, null, 2) + '\n');
    } else {
      if (records.length === 0) io.stdout.write('No attempts recorded (that match).\n');
      const p = await paint(io, 'stdout');
      for (const r of records) io.stdout.write(renderAttemptLine(r, p));
    }
  } finally {
    memory.close();
  }
  return ExitCode.Ok;
}
