/**
 * A record as the attempts table holds it (sqlite-memory.ts): its columns, the values written,
 * the record read back, and the one write both a record and a teammate's import make (a success
 * overriding the same command's failures).
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { AttemptRecord, Outcome } from './types.js';
import { commandTokens, toolFamily } from './normalise.js';

/** What the attempt memory writes: already redacted and tagged by the caller (open.ts). */
export type PreparedAttempt = Omit<AttemptRecord, 'id' | 'overriddenBy' | 'archived'>;

export const DAY = 86_400_000;

/** The key of "the very same command": normalised tokens (versions, temp paths, hashes, aliases folded). */
export const sameCommandKey = (command: string) => commandTokens(command).join(' ');

export type Row = {
  id: string;
  time: string;
  session_id: string;
  tool: string;
  command: string;
  outcome: Outcome;
  exit_code: number | null;
  duration_ms: number | null;
  error: string | null;
  context: string | null;
  tags: string;
  cwd: string;
  overridden_by: string | null;
  cause: string | null;
  work: string | null;
  branch: string | null;
  origin: string | null;
};

/** The columns a record is written with, here and when read in from the team store (origin: who, for others' records). */
export const ROW_COLUMNS =
  'id, time, session_id, tool, tool_family, command, command_norm, outcome, exit_code, duration_ms, error, context, tags, cwd, cause, work, branch, origin';
export const ROW_PARAMS = ROW_COLUMNS.split(', ')
  .map(() => '?')
  .join(', ');

export function rowValues(id: string, a: PreparedAttempt, origin: string | null): unknown[] {
  const {
    time,
    sessionId,
    tool,
    command,
    outcome,
    exitCode,
    durationMs,
    error,
    context,
    tags,
    cwd,
    cause,
    work,
    branch,
  } = a;
  return [
    id,
    time,
    sessionId,
    tool,
    toolFamily(tool),
    command,
    sameCommandKey(command),
    outcome,
    exitCode,
    durationMs,
    error,
    context,
    JSON.stringify(tags),
    cwd,
    cause,
    work,
    branch,
    origin,
  ];
}

/** Failures older than the cutoff are archived: kept, shown with --all, never warning. */
export const isArchived = (outcome: string, time: string, archiveCutoff: string): boolean =>
  outcome === 'failure' && time < archiveCutoff;

/** A row as a record; `archiveCutoff`: failures older than this are archived. */
export function toRecord(r: Row, archiveCutoff: string): AttemptRecord {
  return {
    id: r.id,
    time: r.time,
    sessionId: r.session_id,
    tool: r.tool,
    command: r.command,
    outcome: r.outcome,
    exitCode: r.exit_code,
    durationMs: r.duration_ms,
    error: r.error,
    cause: r.cause ?? null,
    work: r.work ?? null,
    branch: r.branch ?? null,
    context: r.context,
    tags: JSON.parse(r.tags) as string[],
    cwd: r.cwd,
    overriddenBy: r.overridden_by,
    archived: isArchived(r.outcome, r.time, archiveCutoff),
    ...(r.origin ? { origin: r.origin } : {}),
  };
}

/**
 * A success of the very same (normalised) command overrides its earlier failures: "what failed
 * last week might work now". INDEXED BY: without statistics the planner preferred (outcome, time),
 * a scan of every failure on each recorded success.
 */
export function overrideFailures(
  db: BetterSqlite3.Database,
  successId: string,
  a: { tool: string; command: string; time: string },
  onlyTagged?: string,
  byOrigin?: string,
): void {
  const tagged = onlyTagged ? ` AND EXISTS (SELECT 1 FROM json_each(attempts.tags) WHERE value = ?)` : '';
  // A teammate's success overrides that teammate's own failures only (issue 47): a forged later success
  // in the team store must not silence the warning of another person's real failure.
  const own = byOrigin !== undefined ? ' AND origin = ?' : '';
  db.prepare(
    `UPDATE attempts INDEXED BY attempts_open_failures SET overridden_by = ? WHERE outcome = 'failure' AND overridden_by IS NULL AND tool_family = ? AND command_norm = ? AND time <= ?${tagged}${own}`,
  ).run(
    successId,
    toolFamily(a.tool),
    sameCommandKey(a.command),
    a.time,
    ...(onlyTagged ? [onlyTagged] : []),
    ...(byOrigin !== undefined ? [byOrigin] : []),
  );
}
