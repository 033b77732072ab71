/**
 * The attempt store through its one entry point, openAttemptMemory, on a real
 * SQLite file in a temp project (fast: no model, no index). A fake clock makes
 * lookback and archive boundaries exact.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openAttemptMemory, type AttemptMemoryHandle } from '../../src/attempt-memory/open.js';
import { DEFAULT_CONFIG, type Config } from '../../src/shared/config/schema.js';
import { MAX_WARNINGS, SCHEMA_VERSION } from '../../src/attempt-memory/sqlite-memory.js';
import { features, similarity } from '../../src/attempt-memory/similarity.js';
import { autoTags } from '../../src/attempt-memory/tags.js';
import { renderAttemptLine } from '../../src/attempt-memory/render.js';
import type { AttemptRecord } from '../../src/attempt-memory/types.js';

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

const DAY = 86_400_000;
const T0 = new Date('2025-11-20T12:00:00.000Z');

function open(opts: { now?: Date; config?: Partial<Config['attempts']>; root?: string } = {}): {
  mem: AttemptMemoryHandle;
  root: string;
  clock: { now: Date };
} {
  const root = opts.root ?? mkdtempSync(path.join(os.tmpdir(), 'agentos-attempts-'));
  if (!opts.root) roots.push(root);
  const clock = { now: opts.now ?? T0 };
  const config: Config = { ...DEFAULT_CONFIG, attempts: { ...DEFAULT_CONFIG.attempts, ...opts.config } };
  const mem = openAttemptMemory(root, config, {
    now: () => clock.now,
    sessionId: 'test-session',
    cwd: root,
    home: '/home/tester',
  });
  return { mem, root, clock };
}
const daysAgo = (n: number) => new Date(T0.getTime() - n * DAY).toISOString();

describe('record and list', () => {
  it('stores every field, fills id/time/session/cwd, auto-tags, and reads back the same record', () => {
    const { mem } = open();
    const r = mem.record({
      tool: 'shell',
      command: 'npm install redis-node',
      outcome: 'failure',
      exitCode: 1,
      durationMs: 812,
      error: 'npm ERR! 404 Not Found',
      context: 'Add Redis caching',
      tags: ['Infra'],
    });
    expect(r).toMatchObject({
      time: T0.toISOString(),
      sessionId: 'test-session',
      cwd: '.',
      exitCode: 1,
      durationMs: 812,
      overriddenBy: null,
      archived: false,
    });
    expect(r.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(r.tags).toEqual(expect.arrayContaining(['infra', 'npm', 'dependency', 'redis', 'redis-node', 'caching']));
    expect(mem.list()).toEqual([r]);
    mem.close();
  });

  it('filters by outcome, tag, session and since; newest first; limit', () => {
    const { mem } = open();
    mem.record({ tool: 'shell', command: 'pytest', outcome: 'failure', time: daysAgo(3), sessionId: 'a' });
    mem.record({ tool: 'shell', command: 'cargo build', outcome: 'success', time: daysAgo(2), sessionId: 'b' });
    mem.record({ tool: 'shell', command: 'npm test', outcome: 'success', time: daysAgo(1), sessionId: 'a' });
    expect(mem.list().map((r) => r.command)).toEqual(['npm test', 'cargo build', 'pytest']);
    expect(mem.list({ outcome: 'failure' }).map((r) => r.command)).toEqual(['pytest']);
    expect(mem.list({ tag: 'testing' }).map((r) => r.command)).toEqual(['npm test', 'pytest']);
    expect(mem.list({ sessionId: 'b' }).map((r) => r.command)).toEqual(['cargo build']);
    expect(mem.list({ since: new Date(daysAgo(2.5)) }).map((r) => r.command)).toEqual(['npm test', 'cargo build']);
    expect(mem.list({ limit: 1 }).map((r) => r.command)).toEqual(['npm test']);
    mem.close();
  });

  it('a second handle (another process) sees what the first wrote', () => {
    const { mem, root } = open();
    mem.record({ tool: 'shell', command: 'make', outcome: 'success' });
    const other = open({ root }).mem;
    expect(other.list().map((r) => r.command)).toEqual(['make']);
    other.close();
    mem.close();
  });

  it('rejects an unknown outcome and a bad time', () => {
    const { mem } = open();
    expect(() => mem.record({ tool: 'shell', command: 'x', outcome: 'maybe' as never })).toThrow(/outcome/);
    expect(() => mem.record({ tool: 'shell', command: 'x', outcome: 'success', time: 'yesterday' })).toThrow(
      /not a date/,
    );
    expect(mem.list()).toEqual([]);
    mem.close();
  });

  it('bounds the error to its last lines', () => {
    const { mem } = open();
    const error = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n');
    const r = mem.record({ tool: 'shell', command: 'x', outcome: 'failure', error });
    expect(r.error!.split('\n')).toHaveLength(20);
    expect(r.error!.endsWith('line 199')).toBe(true);
    mem.close();
  });

  it('keeps the memory out of git', () => {
    const { mem, root } = open();
    expect(readFileSync(path.join(root, '.agentos', 'memory', '.gitignore'), 'utf8')).toBe('*\n');
    expect(readdirSync(path.join(root, '.agentos', 'memory'))).toContain('attempts.db');
    mem.close();
  });

  it('opened to read with nothing recorded: answers as an empty store, creates nothing, loads no SQLite', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'agentos-attempts-'));
    roots.push(root);
    const reader = openAttemptMemory(root, DEFAULT_CONFIG, { readOnly: true });
    expect(reader.checkRepeat({ tool: 'shell', command: 'npm install x' })).toEqual([]);
    expect(reader.list()).toEqual([]);
    expect(reader.stats()).toEqual({ sessions: 0, failures: 0, successes: 0, repeatsPrevented: 0 });
    expect(() => reader.record({ tool: 'shell', command: 'x', outcome: 'failure' })).toThrow(/opened for reading/);
    reader.close();
    expect(existsSync(path.join(root, '.agentos', 'memory'))).toBe(false);
    // Once something is recorded, a reader sees it.
    const { mem } = open({ root });
    mem.record({ tool: 'shell', command: 'npm install x', outcome: 'failure', time: daysAgo(1) });
    mem.close();
    const again = openAttemptMemory(root, DEFAULT_CONFIG, { now: () => T0, readOnly: true });
    expect(again.checkRepeat({ tool: 'shell', command: 'npm install x' }).map((w) => w.failure.command)).toEqual([
      'npm install x',
    ]);
    again.close();
  });

  it('upgrades a version-1 store: the open-failures index is added, records kept, and a success override uses it', async () => {
    const { mem, root } = open();
    mem.record({ tool: 'shell', command: 'npm install a', outcome: 'failure' });
    mem.close();
    const { createRequire } = await import('node:module');
    const Database = createRequire(import.meta.url)('better-sqlite3');
    const file = path.join(root, '.agentos', 'memory', 'attempts.db');
    const v1 = new Database(file);
    v1.exec('DROP INDEX attempts_open_failures');
    v1.pragma('user_version = 1');
    v1.close();
    const again = open({ root }).mem;
    expect(again.list().map((r) => r.command)).toEqual(['npm install a']);
    again.close();
    const db = new Database(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    // The statement of SqliteAttemptMemory.insert, with its parameters bound as there.
    const plan = db
      .prepare(
        `EXPLAIN QUERY PLAN UPDATE attempts INDEXED BY attempts_open_failures SET overridden_by = ? WHERE outcome = 'failure' AND overridden_by IS NULL AND tool_family = ? AND command_norm = ? AND time <= ?`,
      )
      .all('x', 'shell', 'npm install a', new Date().toISOString()) as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/USING INDEX attempts_open_failures/);
    db.close();
  });

  it('upgrades a version-2 store: the cause column is added, old rows have none, new rows get theirs', async () => {
    const { createRequire } = await import('node:module');
    const Database = createRequire(import.meta.url)('better-sqlite3');
    const { mem, root } = open();
    mem.record({
      tool: 'shell',
      command: 'npm install a',
      outcome: 'failure',
      error: 'npm error 404 Not Found - GET https://registry.npmjs.org/a',
    });
    mem.close();
    const file = path.join(root, '.agentos', 'memory', 'attempts.db');
    const v2 = new Database(file);
    // A version-2 table: no cause column.
    v2.exec(
      'CREATE TABLE attempts_old AS SELECT id, time, session_id, tool, tool_family, command, command_norm, outcome, exit_code, duration_ms, error, context, tags, cwd, overridden_by FROM attempts',
    );
    v2.exec('DROP TABLE attempts');
    v2.exec('ALTER TABLE attempts_old RENAME TO attempts');
    v2.pragma('user_version = 2');
    v2.close();
    const again = open({ root }).mem;
    expect(again.list().map((r) => [r.command, r.cause])).toEqual([['npm install a', null]]);
    again.record({
      tool: 'shell',
      command: 'npm install b',
      outcome: 'failure',
      error:
        'npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/b\nnpm error A complete log of this run can be found in: /x.log',
    });
    expect(again.list().find((r) => r.command === 'npm install b')?.cause).toBe(
      '404 Not Found - GET https://registry.npmjs.org/b',
    );
    again.close();
  });
});

describe('outcome unknown (an agent that does not say how a command went)', () => {
  it('is kept and listed, but never warns, never overrides a failure and is never what worked instead', () => {
    const { mem } = open();
    mem.record({
      tool: 'Bash',
      command: 'npm run lint',
      outcome: 'failure',
      error: 'npm error Missing script: "lint"',
      context: 'lint the project',
      time: daysAgo(2),
    });
    const unknown = mem.record({
      tool: 'Bash',
      command: 'npm run lint',
      outcome: 'unknown',
      context: 'lint the project',
      time: daysAgo(1),
    });
    expect(unknown.outcome).toBe('unknown');
    expect(mem.list({ outcome: 'unknown' }).map((r) => r.id)).toEqual([unknown.id]);
    const [warning] = mem.checkRepeat({ tool: 'Bash', command: 'npm run lint', context: 'lint the project' });
    expect(warning.failure.overriddenBy).toBeNull();
    expect(warning.workedInstead).toBeNull();
    expect(mem.checkRepeat({ tool: 'Bash', command: 'npm run lint' }).map((w) => w.failure.outcome)).toEqual([
      'failure',
    ]);
    expect(mem.stats()).toMatchObject({ failures: 1, successes: 0 });
    mem.close();
  });

  it('upgrades a version-5 store, whose CHECK refused "unknown": rows, their full-text terms and their warnings kept', async () => {
    const { createRequire } = await import('node:module');
    const Database = createRequire(import.meta.url)('better-sqlite3');
    const { mem, root } = open();
    mem.record({
      tool: 'shell',
      command: 'cargo build --release',
      outcome: 'failure',
      error: 'error[E0433]: failed to resolve: use of undeclared crate tokio',
      time: daysAgo(1),
    });
    mem.close();
    const file = path.join(root, '.agentos', 'memory', 'attempts.db');
    const v5 = new Database(file);
    const sql = (v5.prepare(`SELECT sql FROM sqlite_master WHERE name = 'attempts'`).get() as { sql: string }).sql;
    v5.exec(sql.replace("'failure', 'unknown'", "'failure'").replace('attempts (', 'attempts_old ('));
    v5.exec(
      'INSERT INTO attempts_old (rowid, ' +
        'id, time, session_id, tool, tool_family, command, command_norm, outcome, exit_code, duration_ms, error, context, tags, cwd, overridden_by, cause, work, branch, origin, sent_at) SELECT rowid, id, time, session_id, tool, tool_family, command, command_norm, outcome, exit_code, duration_ms, error, context, tags, cwd, overridden_by, cause, work, branch, origin, sent_at FROM attempts',
    );
    v5.exec('DROP TABLE attempts; ALTER TABLE attempts_old RENAME TO attempts');
    v5.pragma('user_version = 5');
    expect(() =>
      v5
        .prepare(
          `INSERT INTO attempts (id, time, session_id, tool, tool_family, command, command_norm, outcome, tags, cwd) VALUES ('x', 't', 's', 'shell', 'shell', 'c', 'c', 'unknown', '[]', '.')`,
        )
        .run(),
    ).toThrow(/CHECK/);
    v5.close();
    const again = open({ root }).mem;
    expect(again.record({ tool: 'shell', command: 'cargo test', outcome: 'unknown' }).outcome).toBe('unknown');
    expect(again.search('tokio').map((r) => r.command)).toEqual(['cargo build --release']);
    expect(again.checkRepeat({ tool: 'shell', command: 'cargo build --release' })).toHaveLength(1);
    again.close();
    const db = new Database(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(
      (
        db
          .prepare(
            `SELECT count(*) AS n FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name = 'attempts'`,
          )
          .get() as { n: number }
      ).n,
    ).toBeGreaterThanOrEqual(6);
    db.close();
  });

  it("upgrades a version-6 store: failures a different teammate's shared success had silenced warn again (issue 47)", async () => {
    const { createRequire } = await import('node:module');
    const Database = createRequire(import.meta.url)('better-sqlite3');
    const { mem, root } = open();
    const mine = mem.record({
      tool: 'shell',
      command: 'make deploy',
      outcome: 'failure',
      error: 'token refused',
      time: daysAgo(2),
    });
    mem.close();
    const file = path.join(root, '.agentos', 'memory', 'attempts.db');
    const v6 = new Database(file);
    // As version 6 left it: Mallory's shared success had overridden my failure.
    v6.prepare(
      `INSERT INTO attempts (id, time, session_id, tool, tool_family, command, command_norm, outcome, tags, cwd, origin) VALUES ('01MALLORY00000000000000000', ?, 's', 'shell', 'shell', 'make deploy', 'make deploy', 'success', '[]', '.', 'mallory (acme/a)')`,
    ).run(daysAgo(1));
    v6.prepare(`UPDATE attempts SET overridden_by = '01MALLORY00000000000000000' WHERE id = ?`).run(mine.id);
    v6.pragma('user_version = 6');
    v6.close();
    const again = open({ root }).mem;
    expect(again.checkRepeat({ tool: 'shell', command: 'make deploy' }).map((w) => w.failure.id)).toEqual([mine.id]);
    again.close();
  });

  it('clears a failure read from output (Codex never records a success), and nothing else', () => {
    const { mem } = open();
    mem.record({
      tool: 'Bash',
      command: 'npm run lint',
      outcome: 'failure',
      error: 'npm error Missing script: "lint"',
      tags: ['outcome-from-output'],
      time: daysAgo(3),
    });
    mem.record({ tool: 'Bash', command: 'npm test', outcome: 'failure', error: 'FAIL ./a.test.js', time: daysAgo(3) });
    // Interrupted or in the background: no evidence either way.
    mem.record({ tool: 'Bash', command: 'npm run lint', outcome: 'unknown', tags: ['interrupted'], time: daysAgo(2) });
    expect(mem.checkRepeat({ tool: 'Bash', command: 'npm run lint' })).toHaveLength(1);
    mem.record({ tool: 'Bash', command: 'npm run lint', outcome: 'unknown', time: daysAgo(1) });
    mem.record({ tool: 'Bash', command: 'npm test', outcome: 'unknown', time: daysAgo(1) });
    expect(mem.checkRepeat({ tool: 'Bash', command: 'npm run lint' })).toEqual([]);
    // A failure with an exit status stands until a success says otherwise.
    expect(mem.checkRepeat({ tool: 'Bash', command: 'npm test' })).toHaveLength(1);
    mem.close();
  });

  it('is listed with "?" and says so (attempt list)', () => {
    const { mem } = open();
    const line = renderAttemptLine(mem.record({ tool: 'Bash', command: 'npm run lint', outcome: 'unknown' }));
    expect(line).toMatch(/^\? \S+ \S+ {2}Bash {2}npm run lint {2}\[outcome unknown\]\n/);
    mem.close();
  });

  it('is not queued for the team store (the store holds no "unknown")', () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'agentos-attempts-'));
    roots.push(root);
    const config: Config = { ...DEFAULT_CONFIG, attempts: { ...DEFAULT_CONFIG.attempts, scope: 'org' } };
    const mem = openAttemptMemory(root, config, {
      now: () => T0,
      cwd: root,
      home: '/home/tester',
      env: { AGENTOS_DATABASE_URL: 'postgres://u@127.0.0.1:1/db' },
    });
    mem.record({ tool: 'Bash', command: 'npm test', outcome: 'unknown' });
    mem.record({ tool: 'Bash', command: 'npm run lint', outcome: 'failure' });
    expect(mem.queue?.pending(10).map((e) => (e.op === 'send' ? e.record.command : e.id))).toEqual(['npm run lint']);
    mem.close();
  });
});

describe('checkRepeat', () => {
  const failure = {
    tool: 'shell',
    command: 'npm install redis-node',
    outcome: 'failure' as const,
    error: '404 Not Found',
    context: 'Add Redis caching',
  };

  it('warns about the same command with another version, names what worked instead', () => {
    const { mem } = open();
    const f = mem.record({ ...failure, time: daysAgo(2) });
    const s = mem.record({
      tool: 'shell',
      command: 'npm install ioredis',
      outcome: 'success',
      context: 'Add Redis caching',
      time: daysAgo(1.9),
    });
    const [w, ...rest] = mem.checkRepeat({ tool: 'shell', command: 'npm i redis-node@4.1.0' });
    expect(rest).toEqual([]);
    expect(w.failure.id).toBe(f.id);
    expect(w.score).toBeGreaterThanOrEqual(0.85);
    expect(w.workedInstead?.id).toBe(s.id);
    mem.close();
  });

  it('does not warn about a different package for the same goal', () => {
    const { mem } = open();
    mem.record({ ...failure, time: daysAgo(2) });
    expect(mem.checkRepeat({ tool: 'shell', command: 'npm install ioredis', context: 'Add Redis caching' })).toEqual(
      [],
    );
    mem.close();
  });

  it('a hook-recorded Bash failure warns a shell run of the same command', () => {
    const { mem } = open();
    mem.record({ ...failure, tool: 'Bash', time: daysAgo(1) });
    expect(mem.checkRepeat({ tool: 'shell', command: 'npm install redis-node' })).toHaveLength(1);
    mem.close();
  });

  it('counts only failures inside the lookback (7 days by default)', () => {
    const { mem } = open();
    mem.record({ ...failure, time: daysAgo(7.01) });
    expect(mem.checkRepeat({ tool: 'shell', command: failure.command })).toEqual([]);
    mem.record({ ...failure, time: daysAgo(6.99) });
    expect(mem.checkRepeat({ tool: 'shell', command: failure.command })).toHaveLength(1);
    mem.close();
  });

  it('archives failures older than archiveAfterDays: kept and listed with --all, never warned about', () => {
    const { mem } = open({ config: { failureLookbackDays: 60, archiveAfterDays: 30 } });
    const old = mem.record({ ...failure, time: daysAgo(31) });
    expect(old.archived).toBe(true);
    expect(mem.checkRepeat({ tool: 'shell', command: failure.command })).toEqual([]);
    expect(mem.list()).toEqual([]);
    expect(mem.list({ includeArchived: true }).map((r) => [r.id, r.archived])).toEqual([[old.id, true]]);
    const oldSuccess = mem.record({ tool: 'shell', command: 'make', outcome: 'success', time: daysAgo(400) });
    expect(oldSuccess.archived).toBe(false); // successes are kept indefinitely
    mem.close();
  });

  it('a success after the failure (marked override) silences it for good', () => {
    const { mem } = open();
    const f = mem.record({ ...failure, time: daysAgo(1) });
    const w = mem.checkRepeat({ tool: 'shell', command: failure.command });
    expect(w).toHaveLength(1);
    const ok = mem.record({ tool: 'shell', command: 'npm install redis-node --legacy-peer-deps', outcome: 'success' });
    expect(mem.markOverridden([f.id], ok.id)).toBe(1);
    expect(mem.list({ outcome: 'failure' })[0].overriddenBy).toBe(ok.id);
    expect(mem.checkRepeat({ tool: 'shell', command: failure.command })).toEqual([]);
    mem.close();
  });

  it('a success of the very same command overrides earlier failures of it, not of other commands', () => {
    const { mem } = open();
    mem.record({ ...failure, time: daysAgo(1) });
    const other = mem.record({
      tool: 'shell',
      command: 'pytest tests/test_auth.py',
      outcome: 'failure',
      time: daysAgo(1),
    });
    mem.record({ tool: 'shell', command: 'npm install redis-node@1.0.0', outcome: 'success' });
    expect(mem.checkRepeat({ tool: 'shell', command: failure.command })).toEqual([]);
    expect(mem.checkRepeat({ tool: 'shell', command: other.command }).map((w) => w.failure.id)).toEqual([other.id]);
    mem.close();
  });

  it('honours repeatThreshold', () => {
    const strict = open({ config: { repeatThreshold: 1 } });
    strict.mem.record({ ...failure, time: daysAgo(1) });
    expect(strict.mem.checkRepeat({ tool: 'shell', command: 'npm install redis-node --save' })).toEqual([]);
    const loose = open({ config: { repeatThreshold: 0.85 }, root: strict.root });
    expect(loose.mem.checkRepeat({ tool: 'shell', command: 'npm install redis-node --save' })).toHaveLength(1);
    strict.mem.close();
    loose.mem.close();
  });
});

describe('checkRepeat skips work, never a warning', () => {
  // The store scores each distinct command once, skips rows the context cannot lift to
  // the threshold, and reads "what worked instead" with one query. It must answer exactly
  // as scoring every failure in the lookback and searching successes one failure at a
  // time does (the reference below), on a mixed store, at several thresholds.
  const programs = [
    'npm install',
    'npm i',
    'pip install',
    'cargo build --bin',
    'make',
    'pytest tests/test_',
    'git checkout',
    'docker build -t',
  ];
  const args = ['redis-node', 'redis-nodes', 'ioredis', 'auth', 'cache', 'api', 'a1b2c3d4e5', 'app:1.2.3', 'x'];
  const contexts = ['Add Redis caching', 'Add authentication', 'Fix flaky tests', null];
  const tools = ['shell', 'Bash', 'python'];

  function referenceCheck(
    all: AttemptRecord[],
    probe: { tool: string; command: string; context?: string; tags?: string[] },
    threshold: number,
  ) {
    const retrieval = DEFAULT_CONFIG.attempts;
    const since = daysAgo(Math.min(retrieval.failureLookbackDays, retrieval.archiveAfterDays));
    const query = features({ ...probe, tags: autoTags({ ...probe }) });
    const newestFirst = (a: AttemptRecord, b: AttemptRecord) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0);
    return all
      .filter((f) => f.outcome === 'failure' && f.overriddenBy === null && f.time >= since)
      .map((failure) => ({ failure, score: similarity(query, features(failure)) }))
      .filter((h) => h.score >= threshold)
      .sort((a, b) => b.score - a.score || newestFirst(a.failure, b.failure))
      .slice(0, MAX_WARNINGS)
      .map(({ failure, score }) => {
        const later = all
          .filter((r) => r.outcome === 'success' && r.time >= failure.time)
          .sort(newestFirst)
          .slice(0, 500);
        const own = new Set(failure.tags);
        let worked: AttemptRecord | null = failure.context
          ? (later.find((r) => r.context === failure.context) ?? null)
          : null;
        if (!worked) {
          let best = 0;
          for (const r of later) {
            const shared = r.tags.filter((t) => own.has(t)).length;
            if (shared > 0 && shared >= Math.ceil(Math.min(own.size, r.tags.length) / 2) && shared > best)
              [worked, best] = [r, shared];
          }
        }
        return [failure.id, score, worked?.id ?? null];
      });
  }

  it.each([0.6, 0.75, 0.85, 0.95])(
    'threshold %s: the same warnings, scores and worked-instead as scoring every row',
    (threshold) => {
      const { mem } = open({ config: { repeatThreshold: threshold } });
      let seed = 7;
      const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
      for (let i = 0; i < 400; i++) {
        mem.record({
          tool: tools[rand(tools.length)],
          command: `${programs[rand(programs.length)]} ${args[rand(args.length)]}${rand(3) === 0 ? `@${rand(9)}.${rand(9)}.0` : ''}`,
          outcome: rand(5) < 2 ? 'success' : 'failure',
          context: contexts[rand(contexts.length)],
          tags: rand(4) === 0 ? ['infra'] : [],
          time: daysAgo((i * 9) / 400), // distinct times: no ties for the order to depend on
        });
      }
      const all = mem.list({ includeArchived: true });
      let warned = 0;
      for (const probe of [
        { tool: 'shell', command: 'npm install redis-node@4.6.0', context: 'Add Redis caching' },
        { tool: 'Bash', command: 'npm i redis-nodes' },
        { tool: 'python', command: 'pip install auth', tags: ['infra'] },
        { tool: 'shell', command: 'make cache' },
        { tool: 'shell', command: 'git checkout 0123456789abcdef' },
      ]) {
        const got = mem.checkRepeat(probe).map((w) => [w.failure.id, w.score, w.workedInstead?.id ?? null]);
        expect(got).toEqual(referenceCheck(all, probe, threshold));
        warned += got.length;
      }
      expect(warned).toBeGreaterThan(0); // the comparison is not between two empty lists
      mem.close();
    },
  );
});

describe('search, forget, stats', () => {
  it('finds attempts by keyword in command, error, context and tags; FTS syntax in the query is just text', () => {
    const { mem } = open();
    mem.record({
      tool: 'shell',
      command: 'npm install redis-node',
      outcome: 'failure',
      error: 'E404 package not found',
    });
    mem.record({ tool: 'shell', command: 'cargo build', outcome: 'success', context: 'release binary' });
    expect(mem.search('E404').map((r) => r.command)).toEqual(['npm install redis-node']);
    expect(mem.search('release').map((r) => r.command)).toEqual(['cargo build']);
    expect(mem.search('rust').map((r) => r.command)).toEqual(['cargo build']);
    expect(mem.search('NEAR( "x" OR *')).toEqual([]);
    expect(mem.search('')).toEqual([]);
    mem.close();
  });

  it('forgets by id, by date, or all, and search forgets with it', () => {
    const { mem } = open();
    const a = mem.record({ tool: 'shell', command: 'echo one', outcome: 'success', time: daysAgo(10) });
    mem.record({ tool: 'shell', command: 'echo two', outcome: 'success', time: daysAgo(5) });
    mem.record({ tool: 'shell', command: 'echo three', outcome: 'success', time: daysAgo(1) });
    expect(mem.forget({ id: a.id })).toBe(1);
    expect(mem.search('one')).toEqual([]);
    expect(mem.forget({ before: new Date(daysAgo(2)) })).toBe(1);
    expect(mem.list().map((r) => r.command)).toEqual(['echo three']);
    expect(mem.forget({ all: true })).toBe(1);
    expect(mem.list({ includeArchived: true })).toEqual([]);
    expect(mem.search('three')).toEqual([]);
    mem.close();
  });

  it('counts sessions, outcomes and repeats prevented', () => {
    const { mem } = open();
    const f = mem.record({ tool: 'shell', command: 'npm install redis-node', outcome: 'failure', sessionId: 's1' });
    mem.record({ tool: 'shell', command: 'npm install ioredis', outcome: 'success', sessionId: 's2' });
    const w = mem.checkRepeat({ tool: 'shell', command: f.command });
    mem.noteWarning(w, f.command, 'declined');
    mem.noteWarning(w, f.command, 'proceeded');
    expect(mem.stats()).toEqual({ sessions: 2, failures: 1, successes: 1, repeatsPrevented: 1 });
    mem.close();
  });
});
