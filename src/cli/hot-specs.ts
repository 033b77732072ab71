/**
 * The flags of the lines a coding agent runs around every tool call (`run -- CMD`,
 * `attempt check`, `hooks run <event>`): each declared once, in its command's folder
 * (commands/run/spec.ts, commands/attempt/check/spec.ts, commands/hooks/run/spec.ts).
 * The commander definitions (define.ts `addFlags`) and the commander-free route's parser
 * (fast-path.ts) are both made from those specs, so the two routes cannot drift apart;
 * bin/agentos.js routes the lines that name one of HOT_WORDS (a unit test keeps it so).
 * No imports but the specs: the fast route loads this on every call.
 */
import { RUN } from './commands/run/spec.js';
import { ATTEMPT_CHECK } from './commands/attempt/check/spec.js';
import { HOOKS_RUN } from './commands/hooks/run/spec.js';
import type { FlagSpec, HotCommand } from './flag-spec.js';

export { ATTEMPT_CHECK, HOOKS_RUN, RUN };

/** A word any hot line contains: bin/agentos.js loads the fast route only for such lines. */
export const HOT_WORDS = [...new Set([RUN, ATTEMPT_CHECK, HOOKS_RUN].map((c) => c.words[c.words.length - 1]))].sort();

/** The flags by name, as the fast route's parser reads them. */
export function flagTable(cmd: HotCommand): Record<string, FlagSpec> {
  return Object.fromEntries(cmd.flags.map((f) => [f.flag, f]));
}

/** The options before any flag is read: each flag's default. */
export function flagDefaults(cmd: HotCommand): Record<string, unknown> {
  return Object.fromEntries(
    cmd.flags
      .filter((f) => f.default !== undefined)
      .map((f) => [f.key, Array.isArray(f.default) ? [...f.default] : f.default]),
  );
}
