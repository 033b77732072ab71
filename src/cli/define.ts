/**
 * What every command's definition (commands/<name>/define.ts) is made with: the exit-code
 * lines of its help, examples, the option parsers, addFlags (a hot command's flags from its spec.ts), and
 * the dependencies a definition's action needs. cli.ts is the registry that calls each define.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { packageRoot } from '../shared/package-root.js';
import type { IO } from '../shared/io.js';
import { addTags } from '../shared/option-values.js';
import { isCalendarDate } from '../shared/text/calendar.js';
import { RENAMED_METHODS, SCORING_METHODS } from '../shared/config/model-values.js';
import type { CommandContext } from './context.js';
import type { HotCommand } from './flag-spec.js';

/** What a definition's action uses: the run's context (built on first use), where its exit code goes, and the I/O. */
export interface CommandDeps {
  context: () => CommandContext;
  setCode: (code: number) => void;
  io: IO;
}

/** Every exit code; each command's help lists only the ones it can return. */
export const EXIT_CODE_LINES: Record<number, string> = {
  0: '0    success (for issue start: proceed — clear, related, linked, ignored, or failed open)',
  1: '1    unexpected error',
  2: '2    usage error or bad input (flags, brief, config)',
  3: '3    aborted as a duplicate of past work',
  4: '4    index unavailable (missing, corrupt, locked; issue start only with --strict)',
  5: '5    model unavailable (run `agentos model fetch`)',
  6: '6    run: not run, it repeats a recent failure (declined, or --on-repeat block)',
  7: '7    team store unavailable (unreachable, credentials refused, no pgvector, another schema)',
  8: '8    ci github: GitHub refused a call or could not be reached (token permissions, rate limit)',
  130: '130  cancelled at a prompt (Ctrl-C)',
};
export function exitCodesHelp(codes: number[]): string {
  return `\nExit codes:\n${codes.map((c) => `  ${EXIT_CODE_LINES[c]}`).join('\n')}`;
}

export const EXIT_CODES_HELP = exitCodesHelp([0, 1, 2, 3, 4, 5, 6, 7, 8, 130]);

export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`;
}

/** The version of the installed package, not a copy that drifts. */
export function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** A hot command's flags on its commander definition, from the spec the fast route also reads (hot-specs.ts). */
export function addFlags(cmd: Command, spec: HotCommand): Command {
  for (const f of spec.flags) {
    const flags = f.value ? `${f.flag} <${f.value}>` : f.flag;
    if (f.kind === 'choice') cmd.addOption(new Option(flags, f.help).choices(f.choices ?? []).default(f.default));
    else if (f.kind === 'tags') cmd.option(flags, f.help, addTags, [...((f.default as string[] | undefined) ?? [])]);
    else if (f.default !== undefined) cmd.option(flags, f.help, f.default as string);
    else cmd.option(flags, f.help);
  }
  return cmd;
}

export function parseScore(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new InvalidArgumentError('expected a score from 0 to 1');
  return n;
}

// Option parsers of the attempt-memory commands (kept here, tiny, so parsing needs no extra import).
export function attemptInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || Math.abs(n) > 2 ** 31) throw new InvalidArgumentError('expected a whole number');
  return n;
}

export function attemptSince(v: string): Date {
  const m = /^(\d{1,6})([mhdw])$/.exec(v.trim());
  if (m)
    return new Date(
      Date.now() -
        Number(m[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[m[2] as 'm' | 'h' | 'd' | 'w'],
    );
  const d =
    /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v.trim()) && isCalendarDate(v.trim().slice(0, 10))
      ? new Date(v.trim())
      : new Date(NaN);
  if (Number.isNaN(d.getTime()))
    throw new InvalidArgumentError(`expected a duration (7d, 12h, 2w) or a date (2025-11-18), got "${v}"`);
  return d;
}

export function parseShare(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || n > 1) throw new InvalidArgumentError('expected a share above 0 and at most 1');
  return n;
}

/** `--method`: a scoring method, or one of its earlier names (`hybrid`, `standout`): still taken, the run warns. */
export function parseScoringMethod(v: string): string {
  if (!(v in RENAMED_METHODS) && !(SCORING_METHODS as readonly string[]).includes(v))
    throw new InvalidArgumentError(`expected ${SCORING_METHODS.join(', ')}`);
  return v;
}

export function parseSizes(v: string): number[] {
  const sizes = v.split(',').map((x) => Number(x.trim()));
  if (!sizes.length || sizes.some((n) => !Number.isInteger(n) || n < 1))
    throw new InvalidArgumentError('expected document counts such as 5,10,30');
  return sizes;
}

export function parseCount(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number >= 0');
  return n;
}

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function parsePositiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new InvalidArgumentError('expected a whole number from 1 to 1000');
  return n;
}

export function parseSeconds(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number of seconds (>= 0)');
  return n;
}
