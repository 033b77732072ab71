/** `agentos forget`: the user owns the attempt memory and can erase any of it. */
import type { CommandContext } from '../../context.js';
import { ExitCode, UsageError } from '../../../shared/errors.js';

export interface ForgetOptions {
  id?: string;
  before?: Date;
  all?: boolean;
  json?: boolean;
}

export async function runForget(ctx: CommandContext, opts: ForgetOptions): Promise<number> {
  const { io } = ctx;
  const given = [opts.id !== undefined, opts.before !== undefined, Boolean(opts.all)].filter(Boolean).length;
  if (given !== 1) throw new UsageError('forget: give exactly one of --id ID, --before DATE, --all');
  const memory = await ctx.attempts('write');
  try {
    const n = memory.forget({ id: opts.id, before: opts.before, all: opts.all });
    if (opts.json) io.stdout.write(JSON.stringify({ forgotten: n }, null, 2) + '\n');
    else io.stdout.write(`Forgot ${n} attempt${n === 1 ? '' : 's'}.\n`);
    if (opts.id !== undefined && n === 0) io.stderr.write(`agentos: no attempt with id ${opts.id}\n`);
  } finally {
    memory.close();
  }
  return ExitCode.Ok;
}
