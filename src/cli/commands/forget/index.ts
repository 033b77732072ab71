/** `agentos forget`: the user owns the attempt memory and can erase any of it. */
import type { CommandContext } from '../../context.js';
import { ExitCode, UsageError } from '../../../shared/errors.js';
import { sharingAttempts, type AttemptMemoryHandle } from '../../../attempt-memory/open.js';
import { shareAttempts, shareWarning } from '../../../attempt-memory/share.js';

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
    // Shared attempts: the store is told now (your own records only); when it is away, the next run tells it.
    const shared = await forgetShared(ctx, memory);
    if (opts.json) io.stdout.write(JSON.stringify({ forgotten: n, shared }, null, 2) + '\n');
    else {
      io.stdout.write(`Forgot ${n} attempt${n === 1 ? '' : 's'}.\n`);
      if (shared?.state === 'sent')
        io.stdout.write(
          `Team store: ${shared.forgotten} of yours deleted${shared.keptOthers ? `; ${shared.keptOthers} recorded by others kept there (only their authors may delete them; gone from this machine)` : ''}.\n`,
        );
    }
    if (shared?.state === 'queued') io.stderr.write(`agentos: warning: ${shared.warning}\n`);
    if (opts.id !== undefined && n === 0) io.stderr.write(`agentos: no attempt with id ${opts.id}\n`);
  } finally {
    memory.close();
  }
  return ExitCode.Ok;
}

/** Tell the team store what was forgotten (attempts.scope: org), ignoring the back-off: the user asked now. */
async function forgetShared(ctx: CommandContext, memory: AttemptMemoryHandle) {
  const { config } = await ctx.config();
  if (!memory.queue || !sharingAttempts(ctx.io.env, config)) return null;
  try {
    const r = await shareAttempts(ctx.root(), config, memory.queue, { pull: false, force: true, env: ctx.io.env });
    return r ? { state: 'sent' as const, forgotten: r.forgotten, keptOthers: r.keptOthers } : null;
  } catch (e) {
    return { state: 'queued' as const, warning: shareWarning(e, memory.queue.outboxSize()) };
  }
}
