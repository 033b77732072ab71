/**
 * The commands a coding agent runs around every tool call — `hooks run <event>`,
 * `attempt check`, `run -- CMD` — skip commander and the command registry:
 * importing commander and building the program cost ~20 ms, against a budget of
 * half a bare node start (issues 9 and 10). Only their plain forms are
 * recognised here; anything else (help, an unknown flag, a value commander would
 * refuse) returns null and takes the normal path, which also reports the error.
 * AGENTOS_NO_FAST_PATH=1 turns this off (the tests run both paths and compare).
 *
 * `npm run build` bundles this module and what it imports into dist/fast/index.cjs
 * (scripts/bundle-fast.mjs), which bin/agentos.js loads for lines naming one of
 * HOT_WORDS (hot-specs.ts). The flags are read from the same specs commander is built from.
 */
import type { HookRunOptions } from '../agents/hooks/run.js';
import type { CheckOptions } from './commands/attempt/check/index.js';
import type { RunOptions } from './commands/run/index.js';
import type { IO } from '../shared/io.js';
import { guardActionsLog } from '../shared/actions-log.js';
import { addTags, HOOK_EVENTS } from '../shared/option-values.js';
import { ATTEMPT_CHECK, flagDefaults, flagTable, HOOKS_RUN, RUN } from './hot-specs.js';
import type { FlagSpec } from './flag-spec.js';

export { processIO } from '../shared/io.js';

type Globals = { cwd?: string; quiet?: boolean };

export type FastRoute =
  | { kind: 'hook'; event: string; opts: HookRunOptions }
  | { kind: 'attempt-check'; globals: Globals; words: string[]; opts: CheckOptions }
  | { kind: 'run'; globals: Globals; words: string[]; opts: RunOptions };

/** `--flag value` or `--flag=value`: the flag, its value, and how many words it took (0 when the value is missing). */
function flagAt(args: string[], i: number): { flag: string; value: string | undefined; used: number } {
  const eq = args[i].indexOf('=');
  if (eq > 0 && args[i].startsWith('--')) return { flag: args[i].slice(0, eq), value: args[i].slice(eq + 1), used: 1 };
  return { flag: args[i], value: args[i + 1], used: args[i + 1] === undefined ? 0 : 2 };
}

export function parseFastRoute(args: string[], env: NodeJS.ProcessEnv): FastRoute | null {
  if (env.AGENTOS_NO_FAST_PATH) return null;
  if (args[0] === 'hooks') return parseHook(args);
  // Global options first, as commander takes them: -C/--cwd DIR, -q/--quiet.
  const globals: Globals = {};
  let i = 0;
  while (i < args.length && args[i].startsWith('-')) {
    if (args[i] === '-q' || args[i] === '--quiet') {
      globals.quiet = true;
      i++;
      continue;
    }
    const { flag, value, used } = flagAt(args, i);
    if ((flag !== '-C' && flag !== '--cwd') || !used || value === undefined || value.startsWith('-')) return null;
    globals.cwd = value;
    i += used;
  }
  if (args[i] === 'attempt' && args[i + 1] === 'check') {
    const parsed = parseCommandLine(args.slice(i + 2), CHECK_FLAGS, flagDefaults(ATTEMPT_CHECK));
    return (
      parsed && { kind: 'attempt-check', globals, words: parsed.words, opts: parsed.opts as unknown as CheckOptions }
    );
  }
  if (args[i] === 'run') {
    const parsed = parseCommandLine(args.slice(i + 1), RUN_FLAGS, flagDefaults(RUN));
    // commander requires the command (`<command...>`): without one, let it say so.
    return parsed && parsed.words.length > 0
      ? { kind: 'run', globals, words: parsed.words, opts: parsed.opts as unknown as RunOptions }
      : null;
  }
  return null;
}

function parseHook(args: string[]): FastRoute | null {
  // `hooks run` takes no words after `--`: such a line is commander's to judge.
  if (args[1] !== 'run' || !(HOOK_EVENTS as readonly string[]).includes(args[2]) || args.includes('--')) return null;
  const parsed = parseCommandLine(args.slice(3), HOOK_FLAGS, flagDefaults(HOOKS_RUN));
  return parsed && { kind: 'hook', event: args[2], opts: parsed.opts as unknown as HookRunOptions };
}

// The flags and their defaults come from the same specs as the commander definitions (hot-specs.ts).
const CHECK_FLAGS = flagTable(ATTEMPT_CHECK);
const HOOK_FLAGS = flagTable(HOOKS_RUN);
const RUN_FLAGS = flagTable(RUN);

/** Flags, then `--` and the command's own words. Null for anything commander should judge. */
function parseCommandLine(
  args: string[],
  flags: Record<string, FlagSpec>,
  defaults: Record<string, unknown>,
): { words: string[]; opts: Record<string, unknown> } | null {
  const opts: Record<string, unknown> = { ...defaults };
  for (let i = 0; i < args.length; ) {
    if (args[i] === '--') return { words: args.slice(i + 1), opts };
    const spec = flags[args[i]];
    if (spec?.kind === 'boolean') {
      opts[spec.key] = true;
      i++;
      continue;
    }
    const { flag, value, used } = flagAt(args, i);
    const valued = flags[flag];
    // A missing value, or one that looks like a flag, is commander's to judge (it may be an error).
    if (!valued || valued.kind === 'boolean' || !used || value === undefined || (used === 2 && value.startsWith('-')))
      return null;
    if (valued.kind === 'tags') opts[valued.key] = addTags(value, opts[valued.key] as string[]);
    else if (valued.kind === 'choice' && !(valued.choices ?? []).includes(value)) return null;
    else opts[valued.key] = value;
    i += used;
  }
  return { words: [], opts };
}

/** Run a recognised line; errors are reported as the normal path reports them. */
export async function runFastRoute(route: FastRoute, io: IO): Promise<number> {
  if (route.kind === 'hook') {
    const { runHook } = await import('../agents/hooks/run.js');
    return runHook(route.event, io, route.opts);
  }
  // The same context the commander route builds (src/cli/context.ts): nothing opened until asked for.
  // `run` and `attempt check` print recorded text: in a job log it must not become a workflow command (cli.ts logIO).
  const { createContext } = await import('./context.js');
  io = guardActionsLog(io);
  const ctx = createContext(io, route.globals);
  try {
    if (route.kind === 'run') {
      const { runRun } = await import('./commands/run/index.js');
      return await runRun(ctx, route.words, route.opts);
    }
    const { runAttemptCheck } = await import('./commands/attempt/check/index.js');
    return await runAttemptCheck(ctx, route.words, route.opts);
  } catch (e) {
    const { reportError } = await import('./report-error.js');
    return reportError(io, e, { json: route.kind === 'attempt-check' && Boolean(route.opts.json), verbose: false });
  } finally {
    ctx.close();
  }
}
