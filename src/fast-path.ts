/**
 * The commands a coding agent runs on every tool call — `hooks run <event>` and
 * `attempt check` — skip commander and the command registry: building the
 * program and importing commander cost ~20 ms of a budget of half a bare node
 * start (issues 9 and 10). Only their plain forms are recognised here; anything
 * else (help, an unknown flag, a value commander would refuse) returns null and
 * takes the normal path, which also reports the error. AGENTOS_NO_FAST_PATH=1
 * turns this off (the tests run both paths and compare).
 *
 * bin/agentos.js loads this for every line, so it imports only io.js at load time;
 * `npm run build` bundles it with what it imports into dist/fast.js
 * (scripts/bundle-fast.mjs).
 */
import type { HookRunOptions } from './hooks/run.js';
import type { CheckOptions } from './commands/attempt/index.js';
import type { IO } from './io.js';

export { processIO } from './io.js';

export type FastRoute =
  | { kind: 'hook'; event: string; opts: HookRunOptions }
  | { kind: 'attempt-check'; globals: { cwd?: string; quiet?: boolean }; words: string[]; opts: CheckOptions };

const HOOK_EVENTS = ['session-start', 'pre-tool-use', 'post-tool-use', 'post-tool-use-failure'];
const HOOK_FLAGS: Record<string, [keyof HookRunOptions, string[]]> = {
  '--format': ['format', ['claude', 'generic']],
  '--on-repeat': ['onRepeat', ['warn', 'ask']],
};

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
  const globals: { cwd?: string; quiet?: boolean } = {};
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
  if (args[i] !== 'attempt' || args[i + 1] !== 'check') return null;
  return parseAttemptCheck(args.slice(i + 2), globals);
}

function parseHook(args: string[]): FastRoute | null {
  if (args[1] !== 'run' || !HOOK_EVENTS.includes(args[2])) return null;
  const opts: HookRunOptions = { format: 'claude', onRepeat: 'warn' };
  for (let i = 3; i < args.length; ) {
    const { flag, value, used } = flagAt(args, i);
    const spec = HOOK_FLAGS[flag];
    if (!spec || !used || value === undefined || !spec[1].includes(value)) return null;
    (opts as unknown as Record<string, string>)[spec[0]] = value;
    i += used;
  }
  return { kind: 'hook', event: args[2], opts };
}

function parseAttemptCheck(args: string[], globals: { cwd?: string; quiet?: boolean }): FastRoute | null {
  const opts: CheckOptions = { tool: 'shell', tags: [] };
  for (let i = 0; i < args.length; ) {
    if (args[i] === '--') return { kind: 'attempt-check', globals, words: args.slice(i + 1), opts };
    if (args[i] === '--json') {
      opts.json = true;
      i++;
      continue;
    }
    const { flag, value, used } = flagAt(args, i);
    // A value that looks like a flag is commander's to judge (it may be an error).
    if (!used || value === undefined || (used === 2 && value.startsWith('-'))) return null;
    if (flag === '--command') opts.command = value;
    else if (flag === '--tool') opts.tool = value;
    else if (flag === '--context') opts.context = value;
    else if (flag === '--tags') opts.tags = [...opts.tags, ...value.split(',').map((t) => t.trim()).filter(Boolean)];
    else return null; // an unknown flag, or a word before `--`
    i += used;
  }
  return { kind: 'attempt-check', globals, words: [], opts };
}

/** Run a recognised line; errors are reported as the normal path reports them. */
export async function runFastRoute(route: FastRoute, io: IO): Promise<number> {
  if (route.kind === 'hook') {
    const { runHook } = await import('./hooks/run.js');
    return runHook(route.event, io, route.opts);
  }
  try {
    const { runAttemptCheck } = await import('./commands/attempt/index.js');
    return await runAttemptCheck(io, route.globals, route.words, route.opts);
  } catch (e) {
    const { reportError } = await import('./report-error.js');
    return reportError(io, e, { json: Boolean(route.opts.json), verbose: false });
  }
}
