/**
 * The attempt memory on SQLite (better-sqlite3), WAL mode, one file per
 * project under `.agentos/memory/` (docs/adrs/0009-attempt-memory-on-sqlite.md).
 *
 * Durability and concurrency are SQLite's: each record is one transaction
 * (BEGIN IMMEDIATE, WAL, synchronous=NORMAL), so an acknowledged record survives
 * kill -9, a killed writer leaves no half row, and many
 * processes write at once (busy_timeout queues them). FTS5 (external content,
 * kept in step by triggers) gives the keyword search.
 *
 * This class opens the file and writes and reads records; each other job has its module:
 * the rows (sqlite-rows.ts), "has this failed?" (sqlite-repeat.ts), the team store's outbox
 * and imports (sqlite-shared.ts), forgetting (sqlite-forget.ts), the schema (sqlite-schema.ts).
 */
import type BetterSqlite3 from 'better-sqlite3';
import {
  BACKGROUND_TAG,
  INTERRUPTED_TAG,
  OUTCOME_FROM_OUTPUT_TAG,
  type AttemptMemory,
  type AttemptQuery,
  type AttemptRecord,
  type AttemptStats,
  type RepeatWarning,
} from './types.js';
import { ulid } from './ids.js';
import { migrate } from './sqlite-schema.js';
import {
  DAY,
  isArchived,
  overrideFailures,
  ROW_COLUMNS,
  ROW_PARAMS,
  rowValues,
  toRecord,
  type PreparedAttempt,
  type Row,
} from './sqlite-rows.js';
import { repeatWarnings, type RepeatQuery } from './sqlite-repeat.js';
import * as shared from './sqlite-shared.js';
import { forget, type ForgetQuery } from './sqlite-forget.js';
export { SCHEMA_VERSION } from './sqlite-schema.js';
export { MAX_WARNINGS } from './sqlite-repeat.js';
export type { PreparedAttempt } from './sqlite-rows.js';

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

export type WarningDecision = 'proceeded' | 'declined' | 'blocked';

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
      if (this.opts.share && a.outcome !== 'unknown')
        this.db
          .prepare(`INSERT OR IGNORE INTO outbox (id, op, queued_at) VALUES (?, 'send', ?)`)
          .run(id, this.opts.now().toISOString());
      if (a.outcome === 'success') overrideFailures(this.db, id, a);
      // An agent that gives no exit status (Codex) never records a success: the same command's output
      // no longer saying it failed is the evidence there is, and clears the failures read from output.
      if (a.outcome === 'unknown' && !a.tags.includes(INTERRUPTED_TAG) && !a.tags.includes(BACKGROUND_TAG))
        overrideFailures(this.db, id, a, OUTCOME_FROM_OUTPUT_TAG);
    });
    write.immediate();
    return { ...a, id, overriddenBy: null, archived: this.isArchived(a.outcome, a.time) };
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
    const stmt = this.db.prepare(
      `INSERT INTO warnings (time, session_id, failure_id, command, decision) VALUES (?, ?, ?, ?, ?)`,
    );
    const time = this.opts.now().toISOString();
    this.db
      .transaction(() => warnings.forEach((w) => stmt.run(time, sessionId, w.failure.id, command, decision)))
      .immediate();
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

  checkRepeat(attempt: RepeatQuery): RepeatWarning[] {
    const o = this.opts;
    return repeatWarnings(
      this.db,
      {
        now: o.now(),
        lookbackDays: o.lookbackDays,
        archiveAfterDays: o.archiveAfterDays,
        threshold: o.threshold,
        toRecord: (r) => this.toRecord(r),
      },
      attempt,
    );
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
      .prepare(
        `SELECT a.* FROM attempts_fts f JOIN attempts a ON a.rowid = f.rowid WHERE attempts_fts MATCH ? ORDER BY bm25(attempts_fts), a.time DESC LIMIT ?`,
      )
      .all(match, limit) as Row[];
    return rows.map((r) => this.toRecord(r));
  }

  /** Forget attempts and everything derived from them (sqlite-forget.ts). */
  forget(q: ForgetQuery): number {
    return forget(this.db, q, { share: Boolean(this.opts.share), now: this.opts.now() });
  }

  /** What waits for the team store, oldest first: records to send (whole) and ids forgotten here. */
  pending(limit: number): shared.OutboxEntry[] {
    return shared.pending(this.db, limit, (r) => this.toRecord(r));
  }

  /** Entries the team store has committed: off the outbox. */
  settle(entries: Array<{ id: string; op: 'send' | 'forget' }>): void {
    shared.settle(this.db, entries, this.opts.now());
  }

  outboxSize(): number {
    return shared.outboxSize(this.db);
  }

  /** Other agents' attempts from the team store (already redacted where they were made); returns how many were new. */
  importShared(
    records: Array<AttemptRecord & { origin: string }>,
    forgotten: string[],
  ): { added: number; removed: number } {
    return shared.importShared(this.db, records, forgotten);
  }

  /** Ids of the teammates' records this machine holds a copy of (what a forget on the server can still drop here). */
  sharedIds(): string[] {
    return shared.sharedIds(this.db);
  }

  sharedState(key: string): string | null {
    return shared.sharedState(this.db, key);
  }

  setSharedState(key: string, value: string): void {
    shared.setSharedState(this.db, key, value);
  }

  stats(): AttemptStats {
    const r = this.db
      .prepare(
        `SELECT COUNT(DISTINCT session_id) AS sessions, SUM(outcome = 'failure') AS failures, SUM(outcome = 'success') AS successes FROM attempts WHERE origin IS NULL`,
      )
      .get() as {
      sessions: number;
      failures: number | null;
      successes: number | null;
    };
    const prevented = this.db
      .prepare(`SELECT COUNT(DISTINCT time || session_id || command) AS n FROM warnings WHERE decision != 'proceeded'`)
      .get() as { n: number };
    return {
      sessions: r.sessions,
      failures: r.failures ?? 0,
      successes: r.successes ?? 0,
      repeatsPrevented: prevented.n,
    };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private archiveCutoff(): string {
    return new Date(this.opts.now().getTime() - this.opts.archiveAfterDays * DAY).toISOString();
  }

  private isArchived(outcome: string, time: string): boolean {
    return isArchived(outcome, time, this.archiveCutoff());
  }

  private toRecord(r: Row): AttemptRecord {
    return toRecord(r, this.archiveCutoff());
  }
}
