/**
 * `agentos run -- CMD…`: check the attempt memory, warn (and at a terminal ask)
 * before repeating a known failure, run the command with the terminal passed
 * through, record the outcome, and exit with the command's own code.
 *
 * Decide, then ask, then act: the attempt memory decides whether this is a repeat, the
 * prompt only asks, runChild only runs. The memory never blocks the command:
 * if it cannot be opened, checked or written, agentos says so on stderr and
 * runs the command anyway (fail open). Only the user (N at the prompt) or
 * `--on-repeat block` stops it.
 */
import { unguarded } from '../../../shared/actions-log.js';
import type { CommandContext } from '../../context.js';
import type { AttemptMemoryHandle } from '../../../attempt-memory/open.js';
import { runChild, type ChildResult } from '../../../attempt-memory/child.js';
import { commandLine } from '../../../attempt-memory/command-line.js';
import { ConfirmCancelled, inquirerProceed, type ProceedAsker } from '../../../attempt-memory/confirm.js';
import { renderRepeatWarning } from '../../../attempt-memory/render.js';
import { shareBestEffort } from '../../../attempt-memory/share.js';
import type { RepeatWarning } from '../../../attempt-memory/types.js';
import { DEFAULT_CONFIG, type Config } from '../../../shared/config/schema.js';
import { ExitCode, UsageError, errorMessage } from '../../../shared/errors.js';
import { canPrompt, type IO } from '../../../shared/io.js';
import { styleFor } from '../../../shared/style.js';

export interface RunOptions {
  onRepeat: 'warn' | 'block';
  context?: string;
  tags: string[];
  session?: string;
  nonInteractive?: boolean;
}

export async function runRun(ctx: CommandContext, argv: string[], opts: RunOptions): Promise<number> {
  const { io, globals } = ctx;
  if (argv.length === 0) throw new UsageError('run: no command (usage: agentos run [options] -- CMD [ARGS…])');
  const command = commandLine(argv);
  const say = (line: string) => {
    if (!globals.quiet) io.stderr.write(`agentos: ${line}\n`);
  };
  // A share that failed is one line; the records wait in the outbox.
  const shared = async (warning: string | null) => {
    if (warning) io.stderr.write(`agentos: warning: ${warning}\n`);
  };
  const failOpen = (what: string, e: unknown) =>
    io.stderr.write(`agentos: ${what} failed: ${errorMessage(e)}. Running the command without attempt memory.\n`);

  // A bad -C is a usage error before anything runs (the memory's failures, below, fail open).
  ctx.root();
  let config: Config = DEFAULT_CONFIG;
  let memory: AttemptMemoryHandle | null = null;
  try {
    config = (await ctx.config()).config;
    if (config.attempts.enabled) memory = await ctx.attempts('write', opts.session);
  } catch (e) {
    failOpen('opening the attempt memory', e);
  }

  // The team's recent attempts first (attempts.scope: org; at most every few minutes), so their failures warn too.
  if (memory) await shared(await shareBestEffort(ctx.root(), config, memory.queue, io.env, 'refresh'));

  let warnings: RepeatWarning[] = [];
  if (memory && config.attempts.warnOnDuplicateFailure) {
    try {
      warnings = memory.checkRepeat({ tool: 'shell', command, context: opts.context ?? null, tags: opts.tags });
    } catch (e) {
      failOpen('the repeat check', e);
    }
  }
  if (warnings.length > 0) {
    const stopped = await warnBeforeRepeat(ctx, opts, { memory, config, command, warnings, say, failOpen });
    if (stopped !== null) return stopped;
  }

  // Under a coding agent stdout is a pipe: tee it too, since tsc, pytest and go test print their errors there.
  // The command's own output passes through as it is, past the job log's guard (shared/actions-log.ts): its commands are its own.
  const out = unguarded(io.stdout);
  const result = await runChild(argv, {
    cwd: io.cwd,
    env: io.env,
    stderr: unguarded(io.stderr),
    stdout: out.isTTY ? undefined : out,
    interactive: Boolean(io.stdin.isTTY),
  });
  if (result.spawnError) io.stderr.write(`agentos: ${result.spawnError}\n`);
  if (memory) {
    recordOutcome(io, memory, { command, result, opts, warnings, say });
    await shared(await shareBestEffort(ctx.root(), config, memory.queue, io.env, 'send'));
    memory.close();
  }
  return result.exitCode;
}

/** The warning before a known failure is repeated, and the decision: null to run it, else the exit code (not run). */
async function warnBeforeRepeat(
  ctx: CommandContext,
  opts: RunOptions,
  o: {
    memory: AttemptMemoryHandle | null;
    config: Config;
    command: string;
    warnings: RepeatWarning[];
    say: (line: string) => void;
    failOpen: (what: string, e: unknown) => void;
  },
): Promise<number | null> {
  const { io } = ctx;
  const { memory, config, command, warnings, say, failOpen } = o;
  io.stderr.write(
    renderRepeatWarning(
      warnings,
      config.attempts.repeatThreshold,
      config.attempts.failureLookbackDays,
      await styleFor(io, 'stderr'),
    ),
  );
  const decision = await decide(io, opts, ctx.prompts.proceed);
  if (decision === 'proceeded') {
    safely(
      () => memory!.noteWarning(warnings, command, 'proceeded'),
      (e) => failOpen('noting the warning', e),
    );
    return null;
  }
  safely(
    () => memory!.noteWarning(warnings, command, decision === 'cancelled' ? 'declined' : decision),
    (e) => failOpen('noting the warning', e),
  );
  memory?.close();
  if (decision === 'cancelled') return ExitCode.Cancelled;
  say(decision === 'blocked' ? 'not run: it repeats a recent failure (--on-repeat block).' : 'not run.');
  return ExitCode.RepeatBlocked;
}

/**
 * The command's outcome recorded; a success after a warning marks those failures overridden (stale, never raised
 * again for it). A failure to record is said, and the command's result stands.
 */
function recordOutcome(
  io: IO,
  m: AttemptMemoryHandle,
  o: { command: string; result: ChildResult; opts: RunOptions; warnings: RepeatWarning[]; say: (line: string) => void },
): void {
  const { command, result, opts, warnings, say } = o;
  safely(
    () => {
      const rec = m.record({
        tool: 'shell',
        command,
        outcome: result.exitCode === 0 ? 'success' : 'failure',
        exitCode: result.exitCode,
        durationMs: result.durationMs,
        error: result.exitCode === 0 ? null : failureText(result),
        context: opts.context ?? null,
        tags: opts.tags,
        sessionId: opts.session,
      });
      if (rec.outcome === 'success' && warnings.length > 0) {
        m.markOverridden(
          warnings.map((w) => w.failure.id),
          rec.id,
        );
        say(
          `it worked this time: ${warnings.length === 1 ? 'the old failure is' : `${warnings.length} old failures are`} marked overridden.`,
        );
      }
    },
    (e) => io.stderr.write(`agentos: recording the attempt failed: ${errorMessage(e)}. The command's result stands.\n`),
  );
}

/** np's rule: decide (the policy), then ask (a person at a terminal), then act. */
async function decide(
  io: IO,
  opts: RunOptions,
  asker: ProceedAsker | undefined,
): Promise<'proceeded' | 'declined' | 'blocked' | 'cancelled'> {
  if (canPrompt(io, Boolean(opts.nonInteractive))) {
    const ask = asker ?? inquirerProceed(io.stdin, io.stderr);
    try {
      return (await ask()) ? 'proceeded' : 'declined';
    } catch (e) {
      if (e instanceof ConfirmCancelled) return 'cancelled';
      throw e;
    }
  }
  return opts.onRepeat === 'block' ? 'blocked' : 'proceeded';
}

function safely(fn: () => void, onError: (e: unknown) => void): void {
  try {
    fn();
  } catch (e) {
    onError(e);
  }
}

/**
 * What a failure said: its stdout (when teed) first, then stderr, so that the cause
 * reader (src/attempt-memory/cause.ts) finds a tool's own error line on either stream and,
 * falling back to the last line that says error, prefers stderr's.
 */
function failureText(r: ChildResult): string | null {
  const text = [r.stdoutTail, r.stderrTail]
    .map((t) => t?.replace(/\s+$/, '') ?? '')
    .filter(Boolean)
    .join('\n');
  return text || (r.signal ? `killed by ${r.signal}` : null);
}
