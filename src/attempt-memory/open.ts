/**
 * The one way in to the attempt memory: `openAttemptMemory(root, config)`.
 * Readers (`run`, `attempt`, hooks, `recall`) depend on the AttemptMemory
 * interface only; the SQLite file behind it can be swapped (sqlite-memory.ts;
 * failures are shared through the team store by share.ts).
 */
import { existsSync } from 'node:fs';
import { ensureMemoryDir } from '../shared/fsutil/memory-dir.js';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { Config } from '../shared/config/schema.js';
import { processSessionId } from './ids.js';
import { errorCause, stripAnsi } from './cause.js';
import { redact } from './redact.js';
import { SqliteAttemptMemory, type WarningDecision } from './sqlite-memory.js';
import { autoTags } from './tags.js';
import { workOf } from './work.js';
import { storeConfigured } from '../shared/team-store/url.js';
import {
  isOutcome,
  OUTCOMES,
  type AttemptMemory,
  type AttemptRecord,
  type NewAttempt,
  type RepeatWarning,
} from './types.js';

export const MEMORY_DIR = path.join('.agentos', 'memory');
export const MEMORY_FILE = 'attempts.db';

/** Bounds on what one record may hold (characters, after redaction). */
export const LIMITS = { command: 4000, error: 2000, errorLines: 20, context: 2000 } as const;
/** At most this much of each end of an error is read for its cause. */
const MAX_ERROR_INPUT = 64 * 1024;

export interface OpenOptions {
  /** Clock (tests). */
  now?: () => Date;
  /** Session id for records that do not name one (else AGENTOS_SESSION, else one per process). */
  sessionId?: string;
  /** Working directory recorded (relative to root) when a record does not give one; default process.cwd(). */
  cwd?: string;
  /** Environment (AGENTOS_SESSION); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Home folder replaced by `~`; default os.homedir(). */
  home?: string;
  /** How long a writer waits for the others (ms); default 30 s. */
  busyTimeoutMs?: number;
  /**
   * For reading only (a repeat check, the session context): with no memory file yet
   * there is nothing to read, so SQLite is not loaded and no file is created (15-25 ms
   * of every hook and check in a project that has recorded nothing).
   */
  readOnly?: boolean;
}

/** The attempt memory plus what `run` needs beyond the shared contract. */
export interface AttemptMemoryHandle extends AttemptMemory {
  /** Failures a later success (after a warning) proved stale: never raised again. */
  markOverridden(failureIds: string[], successId: string): number;
  /** What the user did after a warning (declined/blocked count as repeats prevented). */
  noteWarning(warnings: RepeatWarning[], command: string, decision: WarningDecision): void;
  readonly file: string;
  /** The outbox to the team store and what came from it (share.ts); null when nothing is stored here yet. */
  readonly queue: SharedQueue | null;
}

/** The local side of sharing: what waits to be sent, and the records read back from the team. */
export type SharedQueue = Pick<
  SqliteAttemptMemory,
  'pending' | 'settle' | 'importShared' | 'sharedIds' | 'sharedState' | 'setSharedState' | 'outboxSize'
>;

// better-sqlite3 is CommonJS with a native addon: loaded with require, only when memory is opened.
const require = createRequire(import.meta.url);

export function memoryFile(root: string): string {
  return path.join(root, MEMORY_DIR, MEMORY_FILE);
}

export function openAttemptMemory(root: string, config: Config, options: OpenOptions = {}): AttemptMemoryHandle {
  if (options.readOnly && !existsSync(memoryFile(root))) return emptyMemory(memoryFile(root));
  ensureMemoryDir(root);
  const Database = require('better-sqlite3') as typeof BetterSqlite3;
  const now = options.now ?? (() => new Date());
  const file = memoryFile(root);
  const memory = SqliteAttemptMemory.open(Database, file, {
    lookbackDays: config.attempts.failureLookbackDays,
    archiveAfterDays: config.attempts.archiveAfterDays,
    threshold: config.attempts.repeatThreshold,
    now,
    busyTimeoutMs: options.busyTimeoutMs ?? 30_000,
    share: sharingAttempts(options.env ?? process.env, config),
  });
  const env = options.env ?? process.env;
  const home = options.home ?? os.homedir();
  const defaultSession = () => options.sessionId ?? (env.AGENTOS_SESSION?.trim() || processSessionId());
  const cwd = options.cwd ?? process.cwd();

  const prepare = (a: NewAttempt) => {
    const command = bound(redact(a.command, home), LIMITS.command);
    const context = a.context ? bound(redact(a.context, home), LIMITS.context) : null;
    const plainError = a.error ? stripAnsi(a.error) : null;
    const error = plainError ? tail(plainError, home) : null;
    // The cause is read from the whole (bounded) text, redacted first: a secret never becomes the cause.
    const cause = plainError ? errorCause(redact(bothEnds(plainError, MAX_ERROR_INPUT), home)) : null;
    const time = a.time ? validTime(a.time) : now().toISOString();
    // Tags come from redacted text only, so no secret becomes a tag.
    const tags = autoTags({ tool: a.tool, command, context, tags: (a.tags ?? []).map((t) => redact(t, home)) });
    const { work, branch } = workOf(root, a.work, env, (t) => redact(t, home));
    return {
      time,
      sessionId: redact(a.sessionId?.trim() || defaultSession(), home).slice(0, 200),
      tool: redact(a.tool, home).slice(0, 100),
      command,
      outcome: a.outcome,
      exitCode: a.exitCode ?? null,
      durationMs: a.durationMs ?? null,
      error,
      cause,
      context,
      tags,
      cwd: relativeCwd(root, a.cwd ?? cwd, home),
      work,
      branch,
    };
  };

  return {
    file,
    record: (a: NewAttempt): AttemptRecord => {
      if (!isOutcome(a.outcome))
        throw new Error(`outcome must be ${OUTCOMES.join(', ')}; got ${JSON.stringify(a.outcome)}`);
      if (typeof a.command !== 'string' || typeof a.tool !== 'string' || a.tool.trim() === '')
        throw new Error('an attempt needs a tool and a command');
      return memory.insert(prepare(a));
    },
    list: (q) => memory.list(q),
    checkRepeat: (a) =>
      memory.checkRepeat({
        ...a,
        command: redact(a.command, home),
        context: a.context ? redact(a.context, home) : a.context,
        tags: autoTags({ ...a, command: redact(a.command, home) }),
      }),
    search: (text, limit) => memory.search(text, limit),
    forget: (q) => memory.forget(q),
    stats: () => memory.stats(),
    markOverridden: (ids, by) => memory.markOverridden(ids, by),
    noteWarning: (w, command, decision) => memory.noteWarning(w, redact(command, home), defaultSession(), decision),
    close: () => memory.close(),
    queue: memory,
  };
}

/** attempts.scope is org and a store is configured (a malformed URL counts: sending then says what is wrong with it). */
export function sharingAttempts(env: NodeJS.ProcessEnv, config: Config): boolean {
  return config.attempts.scope === 'org' && storeConfigured(env, config);
}

/** What an attempt memory with nothing recorded answers (`readOnly` with no memory file). */
function emptyMemory(file: string): AttemptMemoryHandle {
  return {
    file,
    record: () => {
      throw new Error('the attempt memory was opened for reading');
    },
    list: () => [],
    checkRepeat: () => [],
    search: () => [],
    forget: () => 0,
    stats: () => ({ sessions: 0, failures: 0, successes: 0, repeatsPrevented: 0 }),
    markOverridden: () => 0,
    noteWarning: () => {},
    close: () => {},
    queue: null,
  };
}

/** At most `max` characters of each end of a text, cut at line boundaries (a secret is never split by the cut). */
function bothEnds(text: string, max: number): string {
  if (text.length <= 2 * max) return text;
  const head = text.slice(0, max);
  const tailPart = text.slice(-max);
  return `${head.slice(0, Math.max(0, head.lastIndexOf('\n')))}\n${tailPart.slice(tailPart.indexOf('\n') + 1)}`;
}

function bound(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The last lines of an error, bounded. Redacted before cutting, so a cut never leaves half a secret. */
function tail(error: string, home: string): string {
  const lines = redact(error.slice(-4 * LIMITS.error), home)
    .replace(/\s+$/, '')
    .split('\n');
  const last = lines.slice(-LIMITS.errorLines).join('\n');
  return last.length <= LIMITS.error ? last : `…${last.slice(-(LIMITS.error - 1))}`;
}

function validTime(t: string): string {
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) throw new Error(`time is not a date: ${JSON.stringify(t)}`);
  return d.toISOString();
}

function relativeCwd(root: string, cwd: string, home: string): string {
  const rel = path.relative(root, path.resolve(root, cwd));
  if (rel === '') return '.';
  // Outside the project: the absolute path (home redacted) says more than ../../..
  if (rel.startsWith('..') || path.isAbsolute(rel)) return redact(path.resolve(root, cwd), home);
  return redact(rel.split(path.sep).join('/'), home);
}
