/**
 * "Has this failed recently?" on the attempts table (sqlite-memory.ts): the open failures of the
 * lookback window scored against the command about to run, the best MAX_WARNINGS kept, each with
 * what worked instead.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { AttemptRecord, RepeatWarning } from './types.js';
import {
  commandSimilarity,
  features,
  featuresFromTokens,
  mayShareToken,
  similarity,
  tokenPieces,
  WEIGHTS,
} from './similarity.js';
import { toolFamily } from './normalise.js';
import { compareText } from '../shared/text/compare.js';
import { DAY, type Row } from './sqlite-rows.js';

/** The best this many past failures are returned (each with what worked instead). */
export const MAX_WARNINGS = 20;
/** How many successes after a failure are searched for what worked instead. */
const WORKED_INSTEAD_WINDOW = 500;

export interface RepeatQuery {
  tool: string;
  command: string;
  context?: string | null;
  tags?: string[];
}

export function repeatWarnings(
  db: BetterSqlite3.Database,
  o: {
    now: Date;
    lookbackDays: number;
    archiveAfterDays: number;
    threshold: number;
    toRecord: (r: Row) => AttemptRecord;
  },
  attempt: RepeatQuery,
): RepeatWarning[] {
  const since = new Date(o.now.getTime() - Math.min(o.lookbackDays, o.archiveAfterDays) * DAY).toISOString();
  const query = features(attempt);
  const threshold = o.threshold;
  // Another tool scores at most command + context: above that, only the same tool can warn.
  const sameToolOnly = threshold > WEIGHTS.command + WEIGHTS.context;
  // Only what scoring needs; the normalised tokens were computed once, at insert.
  const rows = db
    .prepare(
      `SELECT rowid, tool, command_norm, context, tags, time FROM attempts WHERE outcome = 'failure' AND overridden_by IS NULL AND time >= ?${sameToolOnly ? ' AND tool_family = ?' : ''} ORDER BY time DESC`,
    )
    .raw()
    .all(...(sameToolOnly ? [since, query.tool] : [since])) as [
    number,
    string,
    string,
    string | null,
    string,
    string,
  ][];
  const hits: { rowid: number; time: string; score: number }[] = [];
  // The same command failing again and again is the common case: split and score each distinct one once.
  const byCommand = new Map<string, { tokens: string[]; score: number }>();
  const pieces = tokenPieces(query);
  for (const [rowid, tool, norm, context, tags, time] of rows) {
    let command = byCommand.get(norm);
    if (command === undefined) {
      const tokens = norm === '' ? [] : norm.split(' ');
      command = {
        tokens,
        score: mayShareToken(pieces, norm) ? commandSimilarity(query, featuresFromTokens({ tool }, tokens)) : 0,
      };
      byCommand.set(norm, command);
    }
    // The context adds at most its weight: most rows are out of reach before it is read.
    if (
      (query.tool === toolFamily(tool) ? WEIGHTS.tool : 0) + WEIGHTS.command * command.score + WEIGHTS.context <
      threshold - 1e-9
    )
      continue;
    const score = similarity(
      query,
      featuresFromTokens({ tool, context, tags: JSON.parse(tags) as string[] }, command.tokens),
    );
    if (score >= threshold) hits.push({ rowid, time, score });
  }
  hits.sort((a, b) => b.score - a.score || compareText(b.time, a.time));
  hits.length = Math.min(hits.length, MAX_WARNINGS);
  if (hits.length === 0) return [];
  const byRowid = db.prepare('SELECT * FROM attempts WHERE rowid = ?');
  const failures = hits.map(({ rowid }) => o.toRecord(byRowid.get(rowid) as Row));
  const successes = successesSince(
    db,
    failures.reduce((min, f) => (f.time < min ? f.time : min), failures[0].time),
  );
  const fetched = new Map<number, AttemptRecord>();
  return hits.map(({ score }, i) => {
    const found = workedInstead(failures[i], successes);
    if (found && !fetched.has(found.rowid)) fetched.set(found.rowid, o.toRecord(byRowid.get(found.rowid) as Row));
    return { failure: failures[i], score, workedInstead: found ? (fetched.get(found.rowid) as AttemptRecord) : null };
  });
}

/** A success as far as choosing "what worked instead" needs it. */
type SuccessKey = { rowid: number; time: string; context: string | null; tags: string[] };

/**
 * The latest WORKED_INSTEAD_WINDOW successes since `time`, newest first: only what
 * choosing needs (whole records are read for the chosen ones). For any later failure,
 * the newest successes since its own time are a prefix of this list, so one query
 * serves every warning.
 */
function successesSince(db: BetterSqlite3.Database, time: string): SuccessKey[] {
  const rows = db
    .prepare(
      `SELECT rowid, time, context, tags FROM attempts WHERE outcome = 'success' AND time >= ? ORDER BY time DESC LIMIT ${WORKED_INSTEAD_WINDOW}`,
    )
    .raw()
    .all(time) as [number, string, string | null, string][];
  return rows.map(([rowid, t, context, tags]) => ({ rowid, time: t, context, tags: JSON.parse(tags) as string[] }));
}

/** The latest success after this failure sharing its context, or else most of its tags (`successes` newest first). */
function workedInstead(failure: AttemptRecord, successes: SuccessKey[]): SuccessKey | null {
  const own = new Set(failure.tags);
  let best: { success: SuccessKey; shared: number } | null = null;
  for (const success of successes) {
    if (success.time < failure.time) break;
    if (failure.context && success.context === failure.context) return success;
    const shared = success.tags.filter((t) => own.has(t)).length;
    if (
      shared > 0 &&
      shared >= Math.ceil(Math.min(own.size, success.tags.length) / 2) &&
      (!best || shared > best.shared)
    )
      best = { success, shared };
  }
  return best ? best.success : null;
}
