/**
 * The attempt memory on SQLite (better-sqlite3), WAL mode, one file per
 * project under `.agentos/memory/` (docs/adrs/0009-attempt-memory-on-sqlite.md).
 *
 * Durability and concurrency are SQLite's: each record is one transaction
 * (BEGIN IMMEDIATE, WAL, synchronous=NORMAL), so an acknowledged record survives
 * kill -9, a killed writer leaves no half row, and many
 * processes write at once (busy_timeout queues them). FTS5 (external content,
 * kept in step by triggers) gives the keyword search.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { BACKGROUND_TAG, INTERRUPTED_TAG, OUTCOME_FROM_OUTPUT_TAG, type AttemptMemory, type AttemptQuery, type AttemptRecord, type AttemptStats, type Outcome, type RepeatWarning } from './types.js';
import { ulid } from './ids.js';
import { migrate } from './sqlite-schema.js';
export { SCHEMA_VERSION } from './sqlite-schema.js';
import { commandSimilarity, features, featuresFromTokens, mayShareToken, similarity, tokenPieces, WEIGHTS } from './similarity.js';
import { commandTokens, toolFamily } from './normalise.js';
import { compareText } from '../shared/text/compare.js';

/** The key of "the very same command": normalised tokens (versions, temp paths, hashes, aliases folded). */
const sameCommandKey = (command: string) => commandTokens(command).join(' ');

const DAY = 86_400_000;
/** The best this many past failures are returned (each with what worked instead). */
export const MAX_WARNINGS = 20;
/** How many successes after a failure are searched for what worked instead. */
const WORKED_INSTEAD_WINDOW = 500;

export interface AttemptMemoryOptions {
  /** Only failures this recent warn (days). */
  lookbackDays: number;
  /** Failures older than this are archived (days). */
  archiveAfterDays: number;
  /** Score at or above which a failure is a repeat. */
  threshold: number;
  now: () => Date;
  /** How long a writer waits for another (ms). */
  busyTimeoutMs: number;
  /** Attempts go to the team store too (attempts.scope: org): each record and forget is queued in the outbox. */
  share?: boolean;
}

type Row = {
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

/** What the attempt memory writes: already redacted and tagged by the caller (open.ts). */
export type PreparedAttempt = Omit<AttemptRecord, 'id' | 'overriddenBy' | 'archived'>;

export type WarningDecision = 'proceeded' | 'declined' | 'blocked';

/** The columns a record is written with, here and when read in from the team store (origin: who, for others' records). */
const ROW_COLUMNS = 'id, time, session_id, tool, tool_family, command, command_norm, outcome, exit_code, duration_ms, error, context, tags, cwd, cause, work, branch, origin';
const ROW_PARAMS = ROW_COLUMNS.split(', ')
  .map(() => '?')
  .join(', ');

function rowValues(id: string, a: PreparedAttempt, origin: string | null): unknown[] {
  const { time, sessionId, tool, command, outcome, exitCode, durationMs, error, context, tags, cwd, cause, work, branch } = a;
  return [id, time, sessionId, tool, toolFamily(tool), command, sameCommandKey(command), outcome, exitCode, durationMs, error, context, JSON.stringify(tags), cwd, cause, work, branch, origin];
}

export class SqliteAttemptMemory implements Omit<AttemptMemory, 'record'> {
  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly opts: AttemptMemoryOptions,
  ) {}

  static open(Database: typeof BetterSqlite3, file: string, opts: AttemptMemoryOptions): SqliteAttemptMemory {
    const db = new Database(file, { timeout: opts.busyTimeoutMs });
    try {
      db.pragma(`busy_timeout = ${Math.floor(opts.busyTimeoutMs)}`);
      if (db.pragma('journal_mode', { simple: true }) !== 'wal') db.pragma('journal_mode = WAL');
      // WAL + NORMAL: a commit is in the WAL (the OS has it) before record() returns, so
      // kill -9 loses nothing acknowledged; only an OS crash or power cut can drop the last
      // commits (never corrupt). FULL fsyncs every commit while holding the write lock:
      // under load 8 writers then starve past any busy timeout (ADR-0009).
      db.pragma('synchronous = NORMAL');
      // Forgotten records are overwritten on disk, not left in free pages.
      db.pragma('secure_delete = ON');
      migrate(db);
    } catch (e) {
      db.close();
      throw e;
    }
    return new SqliteAttemptMemory(db, opts);
  }

  insert(a: PreparedAttempt): AttemptRecord {
    const id = ulid(Date.parse(a.time));
    const write = this.db.transaction(() => {
      this.db.prepare(`INSERT INTO attempts (${ROW_COLUMNS}) VALUES (${ROW_PARAMS})`).run(...rowValues(id, a, null));
      // Queued in the same transaction: recorded means it will reach the team store, whenever it is reachable.
      // An attempt of unknown outcome stays here: it warns no one and worked instead for no one (the team store refuses it).
      if (this.opts.share && a.outcome !== 'unknown') this.db.prepare(`INSERT OR IGNORE INTO outbox (id, op, queued_at) VALUES (?, 'send', ?)`).run(id, this.opts.now().toISOString());
      if (a.outcome === 'success') this.overrideFailures(id, a);
      // An agent that gives no exit status (Codex) never records a success: the same command's output
      // no longer saying it failed is the evidence there is, and clears the failures read from output.
      if (a.outcome === 'unknown' && !a.tags.includes(INTERRUPTED_TAG) && !a.tags.includes(BACKGROUND_TAG)) this.overrideFailures(id, a, OUTCOME_FROM_OUTPUT_TAG);
    });
    write.immediate();
    return { ...a, id, overriddenBy: null, archived: this.isArchived(a.outcome, a.time) };
  }

  /**
   * A success of the very same (normalised) command overrides its earlier failures: "what failed
   * last week might work now". INDEXED BY: without statistics the planner preferred (outcome, time),
   * a scan of every failure on each recorded success.
   */
  private overrideFailures(successId: string, a: { tool: string; command: string; time: string }, onlyTagged?: string, byOrigin?: string): void {
    const tagged = onlyTagged ? ` AND EXISTS (SELECT 1 FROM json_each(attempts.tags) WHERE value = ?)` : '';
    // A teammate's success overrides that teammate's own failures only (issue 47): a forged later success
    // in the team store must not silence the warning of another person's real failure.
    const own = byOrigin !== undefined ? ' AND origin = ?' : '';
    this.db
      .prepare(
        `UPDATE attempts INDEXED BY attempts_open_failures SET overridden_by = ? WHERE outcome = 'failure' AND overridden_by IS NULL AND tool_family = ? AND command_norm = ? AND time <= ?${tagged}${own}`,
      )
      .run(successId, toolFamily(a.tool), sameCommandKey(a.command), a.time, ...(onlyTagged ? [onlyTagged] : []), ...(byOrigin !== undefined ? [byOrigin] : []));
  }

  /** Mark failures as overridden by a later success (a warning the user proceeded past, which then worked). */
  markOverridden(failureIds: string[], successId: string): number {
    if (failureIds.length === 0) return 0;
    const stmt = this.db.prepare(`UPDATE attempts SET overridden_by = ? WHERE id = ? AND outcome = 'failure'`);
    let n = 0;
    this.db.transaction(() => failureIds.forEach((f) => (n += stmt.run(successId, f).changes))).immediate();
    return n;
  }

  /** Remember what the user did after a repeat warning (for stats: repeats prevented). */
  noteWarning(warnings: RepeatWarning[], command: string, sessionId: string, decision: WarningDecision): void {
    if (warnings.length === 0) return;
    const stmt = this.db.prepare(`INSERT INTO warnings (time, session_id, failure_id, command, decision) VALUES (?, ?, ?, ?, ?)`);
    const time = this.opts.now().toISOString();
    this.db.transaction(() => warnings.forEach((w) => stmt.run(time, sessionId, w.failure.id, command, decision))).immediate();
  }

  list(q: AttemptQuery = {}): AttemptRecord[] {
    const where: string[] = [];
    const args: unknown[] = [];
    const and = (clause: string, arg: unknown) => {
      where.push(clause);
      args.push(arg);
    };
    if (q.outcome) and('outcome = ?', q.outcome);
    if (q.since) and('time >= ?', q.since.toISOString());
    if (q.sessionId) and('session_id = ?', q.sessionId);
    if (q.work) {
      if (q.work.length === 0) return [];
      where.push(`work IN (${q.work.map(() => '?').join(', ')})`);
      args.push(...q.work);
    }
    if (q.tag) and('EXISTS (SELECT 1 FROM json_each(attempts.tags) WHERE value = ?)', q.tag.toLowerCase());
    if (q.whose) where.push(q.whose === 'own' ? 'origin IS NULL' : 'origin IS NOT NULL');
    if (!q.includeArchived) and(`NOT (outcome = 'failure' AND time < ?)`, this.archiveCutoff());
    const sql = `SELECT * FROM attempts ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY time DESC, id DESC ${q.limit ? 'LIMIT ?' : ''}`;
    if (q.limit) args.push(q.limit);
    return (this.db.prepare(sql).all(...args) as Row[]).map((r) => this.toRecord(r));
  }

  checkRepeat(attempt: { tool: string; command: string; context?: string | null; tags?: string[] }): RepeatWarning[] {
    const now = this.opts.now().getTime();
    const since = new Date(now - Math.min(this.opts.lookbackDays, this.opts.archiveAfterDays) * DAY).toISOString();
    const query = features(attempt);
    const threshold = this.opts.threshold;
    // Another tool scores at most command + context: above that, only the same tool can warn.
    const sameToolOnly = threshold > WEIGHTS.command + WEIGHTS.context;
    // Only what scoring needs; the normalised tokens were computed once, at insert.
    const rows = this.db
      .prepare(
        `SELECT rowid, tool, command_norm, context, tags, time FROM attempts WHERE outcome = 'failure' AND overridden_by IS NULL AND time >= ?${sameToolOnly ? ' AND tool_family = ?' : ''} ORDER BY time DESC`,
      )
      .raw()
      .all(...(sameToolOnly ? [since, query.tool] : [since])) as [number, string, string, string | null, string, string][];
    const hits: { rowid: number; time: string; score: number }[] = [];
    // The same command failing again and again is the common case: split and score each distinct one once.
    const byCommand = new Map<string, { tokens: string[]; score: number }>();
    const pieces = tokenPieces(query);
    for (const [rowid, tool, norm, context, tags, time] of rows) {
      let command = byCommand.get(norm);
      if (command === undefined) {
        const tokens = norm === '' ? [] : norm.split(' ');
        command = { tokens, score: mayShareToken(pieces, norm) ? commandSimilarity(query, featuresFromTokens({ tool }, tokens)) : 0 };
        byCommand.set(norm, command);
      }
      // The context adds at most its weight: most rows are out of reach before it is read.
      if ((query.tool === toolFamily(tool) ? WEIGHTS.tool : 0) + WEIGHTS.command * command.score + WEIGHTS.context < threshold - 1e-9) continue;
      const score = similarity(query, featuresFromTokens({ tool, context, tags: JSON.parse(tags) as string[] }, command.tokens));
      if (score >= threshold) hits.push({ rowid, time, score });
    }
    hits.sort((a, b) => b.score - a.score || compareText(b.time, a.time));
    hits.length = Math.min(hits.length, MAX_WARNINGS);
    if (hits.length === 0) return [];
    const byRowid = this.db.prepare('SELECT * FROM attempts WHERE rowid = ?');
    const failures = hits.map(({ rowid }) => this.toRecord(byRowid.get(rowid) as Row));
    const successes = this.successesSince(failures.reduce((min, f) => (f.time < min ? f.time : min), failures[0].time));
    const fetched = new Map<number, AttemptRecord>();
    return hits.map(({ score }, i) => {
      const found = workedInstead(failures[i], successes);
      if (found && !fetched.has(found.rowid)) fetched.set(found.rowid, this.toRecord(byRowid.get(found.rowid) as Row));
      return { failure: failures[i], score, workedInstead: found ? (fetched.get(found.rowid) as AttemptRecord) : null };
    });
  }

  /**
   * The latest WORKED_INSTEAD_WINDOW successes since `time`, newest first: only what
   * choosing needs (whole records are read for the chosen ones). For any later failure,
   * the newest successes since its own time are a prefix of this list, so one query
   * serves every warning.
   */
  private successesSince(time: string): SuccessKey[] {
    const rows = this.db.prepare(`SELECT rowid, time, context, tags FROM attempts WHERE outcome = 'success' AND time >= ? ORDER BY time DESC LIMIT ${WORKED_INSTEAD_WINDOW}`).raw().all(time) as [
      number,
      string,
      string | null,
      string,
    ][];
    return rows.map(([rowid, t, context, tags]) => ({ rowid, time: t, context, tags: JSON.parse(tags) as string[] }));
  }

  search(text: string, limit = 10): AttemptRecord[] {
    // Each word a quoted FTS5 string: user text is never parsed as FTS syntax.
    const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
    if (words.length === 0) return [];
    const match = words
      .slice(0, 32)
      .map((w) => `"${w}"`)
      .join(' OR ');
    const rows = this.db
      .prepare(`SELECT a.* FROM attempts_fts f JOIN attempts a ON a.rowid = f.rowid WHERE attempts_fts MATCH ? ORDER BY bm25(attempts_fts), a.time DESC LIMIT ?`)
      .all(match, limit) as Row[];
    return rows.map((r) => this.toRecord(r));
  }

  /**
   * Forget attempts and everything derived from them: the warnings that cited
   * them or were about their command, and their full-text terms (the FTS index
   * is merged so that no segment keeps them). secure_delete zeroes the freed
   * pages and the WAL is checkpointed and truncated: the text is gone from the
   * files, not only from the queries.
   */
  forget(q: { id?: string; before?: Date; all?: boolean }): number {
    const n = this.db
      .transaction(() => {
        const removed = this.remove(q);
        // In the same transaction: a crash cannot leave the rows gone but their terms in old segments.
        if (removed > 0) this.db.prepare(`INSERT INTO attempts_fts (attempts_fts) VALUES ('optimize')`).run();
        return removed;
      })
      .immediate();
    if (n > 0) this.db.pragma('wal_checkpoint(TRUNCATE)');
    return n;
  }

  private remove(q: { id?: string; before?: Date; all?: boolean }): number {
    if (q.all) {
      this.queueForget(`SELECT id FROM attempts WHERE ${this.shareable()}`, []);
      this.db.prepare('DELETE FROM warnings').run();
      return this.db.prepare('DELETE FROM attempts').run().changes;
    }
    const where = q.id !== undefined ? 'id = ?' : q.before ? 'time < ?' : null;
    if (!where) return 0;
    const arg = q.id ?? q.before!.toISOString();
    this.queueForget(`SELECT id FROM attempts WHERE ${where} AND ${this.shareable()}`, [arg]);
    // One statement each (warnings has no index: a loop per attempt would scan it per attempt under the write lock).
    this.db.prepare(`DELETE FROM warnings WHERE failure_id IN (SELECT id FROM attempts WHERE ${where}) OR command IN (SELECT command FROM attempts WHERE ${where})`).run(arg, arg);
    if (q.before) this.db.prepare('DELETE FROM warnings WHERE time < ?').run(arg);
    return this.db.prepare(`DELETE FROM attempts WHERE ${where}`).run(arg).changes;
  }

  /**
   * Records being forgotten: the team store is told (a send not yet made is dropped).
   * It deletes those its author recorded; others' stay there, and only leave this machine.
   */
  /**
   * Which records' forgetting the team store must hear of: with sharing on, all; with it off
   * in this run (another shell, no URL), those it already has (sent from here, or read from it).
   */
  private shareable(): string {
    // An attempt of unknown outcome is never sent, so the team store never hears of its forgetting.
    return this.opts.share ? "outcome != 'unknown'" : '(sent_at IS NOT NULL OR origin IS NOT NULL)';
  }

  private queueForget(select: string, args: unknown[]): void {
    const time = this.opts.now().toISOString();
    this.db.prepare(`DELETE FROM outbox WHERE op = 'send' AND id IN (${select})`).run(...args);
    this.db.prepare(`INSERT OR IGNORE INTO outbox (id, op, queued_at) SELECT id, 'forget', ? FROM (${select})`).run(time, ...args);
  }

  /** What waits for the team store, oldest first: records to send (whole) and ids forgotten here. */
  pending(limit: number): Array<{ op: 'send'; record: AttemptRecord } | { op: 'forget'; id: string }> {
    const rows = this.db.prepare(`SELECT o.id, o.op, a.rowid AS r FROM outbox o LEFT JOIN attempts a ON a.id = o.id ORDER BY o.queued_at, o.id LIMIT ?`).all(limit) as Array<{
      id: string;
      op: 'send' | 'forget';
      r: number | null;
    }>;
    const byRowid = this.db.prepare('SELECT * FROM attempts WHERE rowid = ?');
    const out: Array<{ op: 'send'; record: AttemptRecord } | { op: 'forget'; id: string }> = [];
    for (const row of rows) {
      if (row.op === 'forget') out.push({ op: 'forget', id: row.id });
      else if (row.r !== null) out.push({ op: 'send', record: this.toRecord(byRowid.get(row.r) as Row) });
      else this.db.prepare(`DELETE FROM outbox WHERE id = ? AND op = 'send'`).run(row.id); // gone since: nothing to send
    }
    return out;
  }

  /** Entries the team store has committed: off the outbox. */
  settle(entries: Array<{ id: string; op: 'send' | 'forget' }>): void {
    const stmt = this.db.prepare('DELETE FROM outbox WHERE id = ? AND op = ?');
    const sent = this.db.prepare('UPDATE attempts SET sent_at = ? WHERE id = ?');
    const time = this.opts.now().toISOString();
    this.db
      .transaction(() =>
        entries.forEach((e) => {
          stmt.run(e.id, e.op);
          if (e.op === 'send') sent.run(time, e.id);
        }),
      )
      .immediate();
  }

  outboxSize(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n;
  }

  /** Other agents' attempts from the team store (already redacted where they were made); returns how many were new. */
  importShared(records: Array<AttemptRecord & { origin: string }>, forgotten: string[]): { added: number; removed: number } {
    const insert = this.db.prepare(`INSERT OR IGNORE INTO attempts (${ROW_COLUMNS}) VALUES (${ROW_PARAMS})`);
    const drop = this.db.prepare('DELETE FROM attempts WHERE id = ? AND origin IS NOT NULL');
    return this.db
      .transaction(() => {
        let added = 0;
        let removed = 0;
        for (const a of records) {
          const n = insert.run(...rowValues(a.id, a, a.origin)).changes;
          added += n;
          // A teammate's success of the same command overrides that teammate's failures before it (not anyone else's).
          if (n && a.outcome === 'success') this.overrideFailures(a.id, a, undefined, a.origin);
        }
        for (const id of forgotten) removed += drop.run(id).changes;
        return { added, removed };
      })
      .immediate();
  }

  /** Ids of the teammates' records this machine holds a copy of (what a forget on the server can still drop here). */
  sharedIds(): string[] {
    return (this.db.prepare('SELECT id FROM attempts WHERE origin IS NOT NULL').all() as Array<{ id: string }>).map((r) => r.id);
  }

  sharedState(key: string): string | null {
    return (this.db.prepare('SELECT value FROM shared_state WHERE key = ?').get(key) as { value: string } | undefined)?.value ?? null;
  }

  setSharedState(key: string, value: string): void {
    this.db.prepare('INSERT INTO shared_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  stats(): AttemptStats {
    const r = this.db
      .prepare(`SELECT COUNT(DISTINCT session_id) AS sessions, SUM(outcome = 'failure') AS failures, SUM(outcome = 'success') AS successes FROM attempts WHERE origin IS NULL`)
      .get() as {
      sessions: number;
      failures: number | null;
      successes: number | null;
    };
    const prevented = this.db.prepare(`SELECT COUNT(DISTINCT time || session_id || command) AS n FROM warnings WHERE decision != 'proceeded'`).get() as { n: number };
    return { sessions: r.sessions, failures: r.failures ?? 0, successes: r.successes ?? 0, repeatsPrevented: prevented.n };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private archiveCutoff(): string {
    return new Date(this.opts.now().getTime() - this.opts.archiveAfterDays * DAY).toISOString();
  }

  private isArchived(outcome: string, time: string): boolean {
    return outcome === 'failure' && time < this.archiveCutoff();
  }

  private toRecord(r: Row): AttemptRecord {
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
      archived: this.isArchived(r.outcome, r.time),
      ...(r.origin ? { origin: r.origin } : {}),
    };
  }
}

/** A success as far as choosing "what worked instead" needs it. */
type SuccessKey = { rowid: number; time: string; context: string | null; tags: string[] };

/** The latest success after this failure sharing its context, or else most of its tags (`successes` newest first). */
function workedInstead(failure: AttemptRecord, successes: SuccessKey[]): SuccessKey | null {
  const own = new Set(failure.tags);
  let best: { success: SuccessKey; shared: number } | null = null;
  for (const success of successes) {
    if (success.time < failure.time) break;
    if (failure.context && success.context === failure.context) return success;
    const shared = success.tags.filter((t) => own.has(t)).length;
    if (shared > 0 && shared >= Math.ceil(Math.min(own.size, success.tags.length) / 2) && (!best || shared > best.shared)) best = { success, shared };
  }
  return best ? best.success : null;
}
