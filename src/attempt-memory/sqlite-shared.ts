/**
 * The attempts table's side of the team store (attempts.scope: org; share.ts talks to the
 * server): the outbox of records to send and forgets to tell, the teammates' records read in,
 * and what the last pull reached.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { AttemptRecord } from './types.js';
import { overrideFailures, ROW_COLUMNS, ROW_PARAMS, rowValues, type Row } from './sqlite-rows.js';

export type OutboxEntry = { op: 'send'; record: AttemptRecord } | { op: 'forget'; id: string };

/**
 * Which records' forgetting the team store must hear of: with sharing on, all; with it off
 * in this run (another shell, no URL), those it already has (sent from here, or read from it).
 * An attempt of unknown outcome is never sent, so the team store never hears of its forgetting.
 */
export function shareable(share: boolean): string {
  return share ? "outcome != 'unknown'" : '(sent_at IS NOT NULL OR origin IS NOT NULL)';
}

/** Records being forgotten: the team store is told (a send not yet made is dropped). It deletes those its author recorded; others' stay there. */
export function queueForget(db: BetterSqlite3.Database, select: string, args: unknown[], now: Date): void {
  db.prepare(`DELETE FROM outbox WHERE op = 'send' AND id IN (${select})`).run(...args);
  db.prepare(`INSERT OR IGNORE INTO outbox (id, op, queued_at) SELECT id, 'forget', ? FROM (${select})`).run(
    now.toISOString(),
    ...args,
  );
}

/** What waits for the team store, oldest first: records to send (whole) and ids forgotten here. */
export function pending(db: BetterSqlite3.Database, limit: number, toRecord: (r: Row) => AttemptRecord): OutboxEntry[] {
  const rows = db
    .prepare(
      `SELECT o.id, o.op, a.rowid AS r FROM outbox o LEFT JOIN attempts a ON a.id = o.id ORDER BY o.queued_at, o.id LIMIT ?`,
    )
    .all(limit) as Array<{
    id: string;
    op: 'send' | 'forget';
    r: number | null;
  }>;
  const byRowid = db.prepare('SELECT * FROM attempts WHERE rowid = ?');
  const out: OutboxEntry[] = [];
  for (const row of rows) {
    if (row.op === 'forget') out.push({ op: 'forget', id: row.id });
    else if (row.r !== null) out.push({ op: 'send', record: toRecord(byRowid.get(row.r) as Row) });
    else db.prepare(`DELETE FROM outbox WHERE id = ? AND op = 'send'`).run(row.id); // gone since: nothing to send
  }
  return out;
}

/** Entries the team store has committed: off the outbox. */
export function settle(
  db: BetterSqlite3.Database,
  entries: Array<{ id: string; op: 'send' | 'forget' }>,
  now: Date,
): void {
  const stmt = db.prepare('DELETE FROM outbox WHERE id = ? AND op = ?');
  const sent = db.prepare('UPDATE attempts SET sent_at = ? WHERE id = ?');
  const time = now.toISOString();
  db.transaction(() =>
    entries.forEach((e) => {
      stmt.run(e.id, e.op);
      if (e.op === 'send') sent.run(time, e.id);
    }),
  ).immediate();
}

export function outboxSize(db: BetterSqlite3.Database): number {
  return (db.prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n;
}

/** Other agents' attempts from the team store (already redacted where they were made); returns how many were new. */
export function importShared(
  db: BetterSqlite3.Database,
  records: Array<AttemptRecord & { origin: string }>,
  forgotten: string[],
): { added: number; removed: number } {
  const insert = db.prepare(`INSERT OR IGNORE INTO attempts (${ROW_COLUMNS}) VALUES (${ROW_PARAMS})`);
  const drop = db.prepare('DELETE FROM attempts WHERE id = ? AND origin IS NOT NULL');
  return db
    .transaction(() => {
      let added = 0;
      let removed = 0;
      for (const a of records) {
        const n = insert.run(...rowValues(a.id, a, a.origin)).changes;
        added += n;
        // A teammate's success of the same command overrides that teammate's failures before it (not anyone else's).
        if (n && a.outcome === 'success') overrideFailures(db, a.id, a, undefined, a.origin);
      }
      for (const id of forgotten) removed += drop.run(id).changes;
      return { added, removed };
    })
    .immediate();
}

/** Ids of the teammates' records this machine holds a copy of (what a forget on the server can still drop here). */
export function sharedIds(db: BetterSqlite3.Database): string[] {
  return (db.prepare('SELECT id FROM attempts WHERE origin IS NOT NULL').all() as Array<{ id: string }>).map(
    (r) => r.id,
  );
}

export function sharedState(db: BetterSqlite3.Database, key: string): string | null {
  return (
    (db.prepare('SELECT value FROM shared_state WHERE key = ?').get(key) as { value: string } | undefined)?.value ??
    null
  );
}

export function setSharedState(db: BetterSqlite3.Database, key: string, value: string): void {
  db.prepare(
    'INSERT INTO shared_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  ).run(key, value);
}
