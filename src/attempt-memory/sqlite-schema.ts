/**
 * The attempt memory's SQLite schema and its migrations (reads and writes: sqlite-memory.ts).
 * A version below SCHEMA_VERSION is brought up to date in one IMMEDIATE transaction when the
 * attempt memory is opened: a crash leaves the previous version whole, and every step is safe to repeat
 * (two processes opening an old file at once both succeed).
 */
import type BetterSqlite3 from 'better-sqlite3';

/**
 * 2: the index of open failures by command (a success's override was a scan of every failure).
 * 3: the `cause` column (the line that says why a command failed, issue 21 §3).
 * 4: `work` and `branch`: the piece of work an attempt was made for (issue 21 §5).
 * 5: `origin` and `sent_at`: records shared with the team store.
 * 6: outcome `unknown` (an agent that does not say whether a command failed, issue 31).
 */
export const SCHEMA_VERSION = 7;

/** The attempts table under a name: SQLite changes a CHECK only by copying into a new table (rebuildAttempts). */
const attemptsTable = (name: string) => `CREATE TABLE IF NOT EXISTS ${name} (
  id TEXT NOT NULL UNIQUE,
  time TEXT NOT NULL,
  session_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  tool_family TEXT NOT NULL,
  command TEXT NOT NULL,
  command_norm TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('success', 'failure', 'unknown')),
  exit_code INTEGER,
  duration_ms INTEGER,
  error TEXT,
  context TEXT,
  tags TEXT NOT NULL,
  cwd TEXT NOT NULL,
  overridden_by TEXT,
  cause TEXT,
  work TEXT,
  branch TEXT,
  origin TEXT,
  sent_at TEXT
)`;
const ATTEMPT_COLUMNS =
  'id, time, session_id, tool, tool_family, command, command_norm, outcome, exit_code, duration_ms, error, context, tags, cwd, overridden_by, cause, work, branch, origin, sent_at';

const SCHEMA = `
${attemptsTable('attempts')};
CREATE INDEX IF NOT EXISTS attempts_outcome_time ON attempts (outcome, time);
CREATE INDEX IF NOT EXISTS attempts_time ON attempts (time);
CREATE INDEX IF NOT EXISTS attempts_work ON attempts (work, time) WHERE work IS NOT NULL;
CREATE INDEX IF NOT EXISTS attempts_open_failures ON attempts (tool_family, command_norm) WHERE outcome = 'failure' AND overridden_by IS NULL;
CREATE VIRTUAL TABLE IF NOT EXISTS attempts_fts USING fts5 (command, error, context, tags, content='attempts', content_rowid='rowid');
CREATE TRIGGER IF NOT EXISTS attempts_ai AFTER INSERT ON attempts BEGIN
  INSERT INTO attempts_fts (rowid, command, error, context, tags) VALUES (new.rowid, new.command, new.error, new.context, new.tags);
END;
CREATE TRIGGER IF NOT EXISTS attempts_ad AFTER DELETE ON attempts BEGIN
  INSERT INTO attempts_fts (attempts_fts, rowid, command, error, context, tags) VALUES ('delete', old.rowid, old.command, old.error, old.context, old.tags);
END;
CREATE TABLE IF NOT EXISTS outbox (
  id TEXT NOT NULL,
  op TEXT NOT NULL CHECK (op IN ('send', 'forget')),
  queued_at TEXT NOT NULL,
  PRIMARY KEY (id, op)
);
CREATE TABLE IF NOT EXISTS shared_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS warnings (
  time TEXT NOT NULL,
  session_id TEXT NOT NULL,
  failure_id TEXT NOT NULL,
  command TEXT NOT NULL,
  decision TEXT NOT NULL CHECK (decision IN ('proceeded', 'declined', 'blocked'))
);
`;

/** Bring an opened attempt memory up to SCHEMA_VERSION (nothing to do when it is there). */
export function migrate(db: BetterSqlite3.Database): void {
  if ((db.pragma('user_version', { simple: true }) as number) < SCHEMA_VERSION) {
    db.transaction(() => {
      // A file made before version 3 or 4 has its attempts table already: add the columns first
      // (older rows: null), then the schema's indexes on them can be made.
      const columns = new Set(
        (db.prepare(`SELECT name FROM pragma_table_info('attempts')`).all() as Array<{ name: string }>).map(
          (c) => c.name,
        ),
      );
      if (columns.size > 0)
        for (const c of ['cause', 'work', 'branch', 'origin', 'sent_at'])
          if (!columns.has(c)) db.exec(`ALTER TABLE attempts ADD COLUMN ${c} TEXT`);
      if (columns.size > 0) rebuildAttempts(db);
      db.exec(SCHEMA);
      // Version 7 (issue 47): a teammate's success answers that teammate's failures only. Failures a
      // different person's shared success marked overridden before warn again.
      if (columns.size > 0)
        db.exec(`UPDATE attempts SET overridden_by = NULL WHERE outcome = 'failure' AND overridden_by IS NOT NULL
          AND EXISTS (SELECT 1 FROM attempts s WHERE s.id = attempts.overridden_by AND s.origin IS NOT NULL AND s.origin IS NOT attempts.origin)`);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }).immediate();
  }
}

/**
 * A file from before version 6 refuses outcome `unknown` in its CHECK: its rows move to a
 * table that allows it, rowids kept (the full-text index is keyed by them), inside the
 * caller's transaction. DROP TABLE takes the old indexes and triggers; SCHEMA makes them again.
 */
function rebuildAttempts(db: BetterSqlite3.Database): void {
  const sql =
    (
      db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'attempts'`).get() as
        | { sql: string }
        | undefined
    )?.sql ?? '';
  if (sql.includes("'unknown'")) return;
  // The old table's pages hold what the new one holds (forgotten rows were zeroed when forgotten):
  // zeroing them again would double the copy's cost under the write lock (~5 s at 100,000 attempts).
  db.pragma('secure_delete = OFF');
  try {
    db.exec(`DROP TABLE IF EXISTS attempts_v6; ${attemptsTable('attempts_v6')}`);
    db.exec(`INSERT INTO attempts_v6 (rowid, ${ATTEMPT_COLUMNS}) SELECT rowid, ${ATTEMPT_COLUMNS} FROM attempts`);
    db.exec(`DROP TABLE attempts; ALTER TABLE attempts_v6 RENAME TO attempts`);
  } finally {
    db.pragma('secure_delete = ON');
  }
}
