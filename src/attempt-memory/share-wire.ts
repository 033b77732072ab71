/**
 * An attempt as it travels to and from the team store's `attempts` table: the row the
 * client writes (already redacted where it was recorded) and the row it reads back, checked
 * whole before it becomes a record (a row from before version 4, or written by hand, is input).
 */
import type { AttemptRecord } from './types.js';

export interface WireRow {
  id: string;
  repository: string;
  author: string;
  time: Date;
  session_id: string;
  tool: string;
  command: string;
  outcome: 'success' | 'failure';
  exit_code: number | null;
  duration_ms: number | null;
  error: string | null;
  cause: string | null;
  context: string | null;
  work: string | null;
  branch: string | null;
  tags: string[];
  cwd: string;
  received_at: Date;
}

/** What leaves the machine: the stored record, which open.ts redacted before it was ever written. */
export function wireRecord(a: AttemptRecord, repository: string) {
  // PostgreSQL text holds no NUL (a binary tool's stderr can), and its integer is 32-bit (a Windows status is not).
  const t = (v: string | null) => (v === null ? null : v.replace(/\u0000/g, ''));
  const int32 = (v: number | null) => (v !== null && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31 ? v : null);
  return {
    id: a.id,
    repository,
    time: a.time,
    session_id: t(a.sessionId),
    tool: t(a.tool),
    command: t(a.command),
    outcome: a.outcome,
    exit_code: int32(a.exitCode),
    duration_ms: int32(a.durationMs),
    error: t(a.error),
    cause: t(a.cause),
    context: t(a.context),
    work: t(a.work),
    branch: t(a.branch),
    tags: a.tags.map((x) => x.replace(/\u0000/g, '')),
    cwd: t(a.cwd),
  };
}

/**
 * The longest field a teammate's row may hold, in characters: about twice what agentos writes
 * (open.ts LIMITS), so a row of another version fits and a 200 MB "error" is named, not read
 * (pull selects one character more than this, so an oversized field is seen without transferring it).
 */
export const WIRE_MAX = {
  command: 8000,
  error: 4000,
  cause: 1000,
  context: 4000,
  tool: 200,
  session_id: 400,
  cwd: 8000,
  work: 2000,
  branch: 2000,
  author: 200,
  repository: 1000,
} as const;
export const WIRE_MAX_TAGS = 32;
const WIRE_MAX_TAG = 200;
/** The tags as JSON text, at most: 32 tags of 200 characters with their quotes and commas. */
export const WIRE_MAX_TAGS_BYTES = WIRE_MAX_TAGS * (WIRE_MAX_TAG * 4 + 3) + 2;
/** How far ahead of this machine's clock a record may be dated: clocks drift, but a record dated 9999-12-31 would warn, and be what worked instead, forever. */
const MAX_AHEAD_MS = 24 * 3_600_000;

/** A row read back as a record, or why it cannot be one. */
export function fromWire(w: WireRow, now: Date = new Date()): (AttemptRecord & { origin: string }) | string {
  const time = w.time instanceof Date ? w.time.getTime() : Number.NaN;
  if (!Number.isFinite(time)) return 'its time is not a date';
  if (time > now.getTime() + MAX_AHEAD_MS) return 'its time is later than today';
  if (typeof w.id !== 'string' || !/^[\w-]{1,64}$/.test(w.id)) return 'its id is not an id';
  // The team store holds no `unknown` (never sent: it warns no one and worked instead for no one).
  if (w.outcome !== 'success' && w.outcome !== 'failure') return 'its outcome is neither success nor failure';
  const text = [w.session_id, w.tool, w.command, w.cwd, w.author, w.repository];
  if (!text.every((t) => typeof t === 'string')) return 'a required field is not text';
  if (![w.error, w.cause, w.context, w.work, w.branch].every((t) => t === null || typeof t === 'string'))
    return 'an optional field is not text';
  if (![w.exit_code, w.duration_ms].every((n) => n === null || Number.isSafeInteger(n)))
    return 'an exit code or duration is not a number';
  const long = (Object.keys(WIRE_MAX) as Array<keyof typeof WIRE_MAX>).find(
    (k) => typeof w[k] === 'string' && (w[k] as string).length > WIRE_MAX[k],
  );
  if (long) return `its ${long} is longer than ${WIRE_MAX[long]} characters`;
  if (
    !Array.isArray(w.tags) ||
    w.tags.length > WIRE_MAX_TAGS ||
    !w.tags.every((t) => typeof t === 'string' && t.length <= WIRE_MAX_TAG)
  )
    return `its tags are not a list of at most ${WIRE_MAX_TAGS} short words`;
  return {
    id: w.id,
    time: new Date(time).toISOString(),
    sessionId: w.session_id,
    tool: w.tool,
    command: w.command,
    outcome: w.outcome,
    exitCode: w.exit_code,
    durationMs: w.duration_ms,
    error: w.error,
    cause: w.cause,
    context: w.context,
    work: w.work,
    branch: w.branch,
    tags: w.tags,
    cwd: w.cwd,
    overriddenBy: null,
    archived: false,
    origin: `${w.author} (${w.repository})`,
  };
}
