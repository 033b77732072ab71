/**
 * The flags of the lines a coding agent runs around every tool call (`run -- CMD`,
 * `attempt check`, `hooks run <event>`), declared once. The commander definitions
 * (cli.ts `addFlags`) and the commander-free route's parser (fast-path.ts) are both
 * made from these specs, so the two routes cannot drift apart; bin/agentos.js
 * routes the lines that name one of HOT_WORDS (a unit test keeps it so).
 * No imports but the shared option values: the fast route loads this on every call.
 */
import { HOOK_FORMATS, HOOK_ON_REPEAT, RUN_ON_REPEAT } from '../shared/option-values.js';

export interface FlagSpec {
  /** `--tags` */
  flag: string;
  /** The placeholder in help (`<list>`); none for a boolean. */
  value?: string;
  /** The options property it sets. */
  key: string;
  kind: 'string' | 'tags' | 'boolean' | 'choice';
  choices?: readonly string[];
  default?: string | string[];
  help: string;
}

export interface HotCommand {
  /** The words that name it, after the global options. */
  words: string[];
  description: string;
  flags: FlagSpec[];
}

export const RUN: HotCommand = {
  words: ['run'],
  description: 'check the attempt memory, run a command with the terminal passed through, record the outcome',
  flags: [
    {
      flag: '--on-repeat',
      value: 'action',
      key: 'onRepeat',
      kind: 'choice',
      choices: RUN_ON_REPEAT,
      default: 'warn',
      help: 'without a terminal, what a repeat of a recent failure does',
    },
    {
      flag: '--context',
      value: 'text',
      key: 'context',
      kind: 'string',
      help: 'what the work is for (recorded, and compared with past attempts)',
    },
    {
      flag: '--tags',
      value: 'list',
      key: 'tags',
      kind: 'tags',
      default: [],
      help: 'comma-separated tags (added to the automatic ones)',
    },
    {
      flag: '--session',
      value: 'id',
      key: 'session',
      kind: 'string',
      help: 'session id to record under (default $AGENTOS_SESSION, else one per process)',
    },
    { flag: '--non-interactive', key: 'nonInteractive', kind: 'boolean', help: 'never prompt; --on-repeat decides' },
  ],
};

export const ATTEMPT_CHECK: HotCommand = {
  words: ['attempt', 'check'],
  description: 'has this failed recently? (exit 0 either way)',
  flags: [
    {
      flag: '--command',
      value: 'text',
      key: 'command',
      kind: 'string',
      help: 'the command as one string (instead of after --)',
    },
    { flag: '--tool', value: 'name', key: 'tool', kind: 'string', default: 'shell', help: 'the tool' },
    { flag: '--context', value: 'text', key: 'context', kind: 'string', help: 'what the work is for' },
    { flag: '--tags', value: 'list', key: 'tags', kind: 'tags', default: [], help: 'comma-separated tags' },
    { flag: '--json', key: 'json', kind: 'boolean', help: 'print the result as JSON on stdout' },
  ],
};

export const HOOKS_RUN: HotCommand = {
  words: ['hooks', 'run'],
  description: 'hook entry point: reads the event payload on stdin (always exits 0; errors fail open)',
  flags: [
    {
      flag: '--format',
      value: 'format',
      key: 'format',
      kind: 'choice',
      choices: HOOK_FORMATS,
      default: 'claude',
      help: 'the agent whose payloads and answers these are (install sets it)',
    },
    {
      flag: '--on-repeat',
      value: 'mode',
      key: 'onRepeat',
      kind: 'choice',
      choices: HOOK_ON_REPEAT,
      default: 'warn',
      help: 'pre-tool-use: warn, or ask for confirmation',
    },
  ],
};

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
