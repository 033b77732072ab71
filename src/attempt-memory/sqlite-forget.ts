/**
 * Forgetting on the attempts table (sqlite-memory.ts): the records, everything derived from
 * them, and their full-text terms, gone from the files and not only from the queries.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { queueForget, shareable } from './sqlite-shared.js';

export type ForgetQuery = { id?: string; before?: Date; all?: boolean };

/**
 * Forget attempts and everything derived from them: the warnings that cited
 * them or were about their command, and their full-text terms (the FTS index
 * is merged so that no segment keeps them). secure_delete zeroes the freed
 * pages and the WAL is checkpointed and truncated: the text is gone from the
 * files, not only from the queries.
 */
export function forget(db: BetterSqlite3.Database, q: ForgetQuery, o: { share: boolean; now: Date }): number {
  const n = db
    .transaction(() => {
      const removed = remove(db, q, o);
      // In the same transaction: a crash cannot leave the rows gone but their terms in old segments.
      if (removed > 0) db.prepare(`INSERT INTO attempts_fts (attempts_fts) VALUES ('optimize')`).run();
      return removed;
    })
    .immediate();
  if (n > 0) db.pragma('wal_checkpoint(TRUNCATE)');
  return n;
}

function remove(db: BetterSqlite3.Database, q: ForgetQuery, o: { share: boolean; now: Date }): number {
  if (q.all) {
    queueForget(db, `SELECT id FROM attempts WHERE ${shareable(o.share)}`, [], o.now);
    db.prepare('DELETE FROM warnings').run();
    return db.prepare('DELETE FROM attempts').run().changes;
  }
  const where = q.id !== undefined ? 'id = ?' : q.before ? 'time < ?' : null;
  if (!where) return 0;
  const arg = q.id ?? q.before!.toISOString();
  queueForget(db, `SELECT id FROM attempts WHERE ${where} AND ${shareable(o.share)}`, [arg], o.now);
  // One statement each (warnings has no index: a loop per attempt would scan it per attempt under the write lock).
  db.prepare(
    `DELETE FROM warnings WHERE failure_id IN (SELECT id FROM attempts WHERE ${where}) OR command IN (SELECT command FROM attempts WHERE ${where})`,
  ).run(arg, arg);
  if (q.before) db.prepare('DELETE FROM warnings WHERE time < ?').run(arg);
  return db.prepare(`DELETE FROM attempts WHERE ${where}`).run(arg).changes;
}
