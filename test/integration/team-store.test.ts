// SLOW: a real PostgreSQL 16 server with pgvector (PyPI pgserver, test/helpers/postgres.ts),
// started here on 127.0.0.1 and stopped after. `agentos store init | status` end to end
// through the built CLI: the schema created once and idempotently, eight processes
// migrating at once, the URL's password never shown, a wrong password and a server
// that is down each one clear line with exit 7.
import { SCHEMA_VERSION } from '../../src/shared/team-store/schema.js';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { jest } from '@jest/globals';
import { chmod, cp, mkdtemp, readdir, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { indexedDemo, runCli, type CliResult, commitConfig } from '../helpers/cli.js';
import { BIN } from '../helpers/paths.js';
import { PG_PASSWORD, pgbin, sqlAt, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { MIGRATIONS } from '../../src/shared/team-store/schema.js';

jest.setTimeout(180_000);

let pg: TestPostgres;
const require = createRequire(import.meta.url);

beforeAll(async () => {
  pg = await startPostgres();
});
afterAll(() => pg?.stop());

const store = (args: string[], url = pg.url): Promise<CliResult> =>
  runCli(['store', ...args], { env: { AGENTOS_DATABASE_URL: url } });

const sql = <T>(query: string, url = pg.url): Promise<T[]> => sqlAt<T>(url, query);

describe('agentos store, on a real PostgreSQL with pgvector', () => {
  test('init creates the schema once; a second init changes nothing; status shows it with the password masked', async () => {
    const first = await store(['init']);
    expect([first.code, first.stderr]).toEqual([0, '']);
    expect(first.stdout).toMatch(
      new RegExp(`^Store schema created: version ${SCHEMA_VERSION} \\(pgvector \\d+\\.\\d+\\.\\d+\\)\\.\\n$`),
    );
    const again = await store(['init', '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
    // The store's own schema: another application's `documents` in public is never touched.
    const tables = await sql<{ t: string }>(
      `SELECT tablename AS t FROM pg_tables WHERE schemaname = 'agentos' ORDER BY 1`,
    );
    expect(tables.map((r) => r.t)).toEqual([
      'agentos_schema',
      'attempts',
      'chunks',
      'document_terms',
      'documents',
      'forgotten_attempts',
      'repositories',
      'repository_terms',
    ]);
    const index = await sql<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE indexname = 'chunks_embedding'`,
    );
    expect(index[0].indexdef).toMatch(/USING hnsw \(embedding vector_ip_ops\)/);

    const status = await store(['status', '--json']);
    expect(status.code).toBe(0);
    const s = JSON.parse(status.stdout);
    expect(s).toMatchObject({
      schema: { version: SCHEMA_VERSION, expected: SCHEMA_VERSION, state: 'current' },
      repositories: [],
    });
    expect(s.server).toMatch(/^16\./);
    expect(s.url).toBe(`postgres://postgres:****@127.0.0.1:${pg.port}/postgres`);
    const text = await store(['status']);
    for (const out of [status.stdout, status.stderr, text.stdout, text.stderr]) expect(out).not.toContain(PG_PASSWORD);
    expect(text.stdout).toContain(`Schema:  version ${SCHEMA_VERSION}`);
  });

  test('eight processes running init at once on a fresh database: all succeed, one schema', async () => {
    await sql('CREATE DATABASE race');
    const url = pg.url.replace(/\/postgres$/, '/race');
    const runs = await Promise.all(Array.from({ length: 8 }, () => store(['init', '--json'], url)));
    for (const r of runs) expect([r.code, r.stderr]).toEqual([0, '']);
    const created = runs.map((r) => JSON.parse(r.stdout) as { from: number; to: number }).filter((r) => r.from === 0);
    expect(created).toHaveLength(1);
    expect(await sql<{ n: string }>('SELECT count(*) AS n FROM agentos_schema', url)).toEqual([{ n: '1' }]);
  });

  test('a version-1 store with documents migrates to the current version: lengths, term counts per repository and totals filled from what it holds', async () => {
    await sql('CREATE DATABASE v1_store');
    const url = pg.url.replace(/\/postgres$/, '/v1_store');
    await sql('CREATE EXTENSION vector', url);
    for (const statement of MIGRATIONS[0]) await sql(statement, url);
    await sql(`INSERT INTO agentos_schema (version) VALUES (1)`, url);
    await sql(`INSERT INTO repositories (name, model_id) VALUES ('acme/a', 'm')`, url);
    // A name from before version 5's name rule (its host not lower-case), with a document that has no chunk: counted
    // by version 3, not by version 6 (a document with no chunk counts for nothing). The upgrade recounts it, never fails on it.
    await sql(`INSERT INTO repositories (name, model_id) VALUES ('GitHub.com/acme/legacy', 'm')`, url);
    await sql(
      `INSERT INTO documents (repository_id, path, content_hash, sync_digest, types, metadata) VALUES (1, 'a.md', 'h', 'd', '{history}', '{}'), (1, 'b.md', 'h', 'd', '{standard}', '{}')`,
      url,
    );
    await sql(`INSERT INTO document_terms VALUES (1, 'redis', 3), (1, 'queue', 2), (2, 'redis', 1)`, url);
    // Both have a chunk (a document with none is never found, and counts for nothing in the statistics).
    await sql(
      `INSERT INTO chunks (document_id, ordinal, section, excerpt, embedding) SELECT id, 0, 's', 'e', ('[1' || repeat(',0', 383) || ']')::vector FROM documents`,
      url,
    );
    await sql(
      `INSERT INTO documents (repository_id, path, content_hash, sync_digest, types, metadata) VALUES (2, 'c.md', 'h', 'd', '{history}', '{"title": "c"}')`,
      url,
    );
    const r = await store(['init', '--json'], url);
    expect([r.code, r.stderr]).toEqual([0, expect.any(String)]);
    // Published before owners existed: the one repository is the migrating role's until an administrator says whose it is.
    expect(JSON.parse(r.stdout)).toMatchObject({ from: 1, to: SCHEMA_VERSION, adopted: 2 });
    expect(r.stderr).toContain('note: 2 repositories published before version 4 are owned by the role that ran this');
    expect(await sql(`SELECT owners FROM repositories ORDER BY id`, url)).toEqual([
      { owners: ['postgres'] },
      { owners: ['postgres'] },
    ]);
    expect(await sql(`SELECT docs FROM repositories WHERE name = 'GitHub.com/acme/legacy'`, url)).toEqual([
      { docs: 0 },
    ]);
    expect(await sql(`SELECT path, lexical_len FROM documents WHERE repository_id = 1 ORDER BY path`, url)).toEqual([
      { path: 'a.md', lexical_len: 5 },
      { path: 'b.md', lexical_len: 1 },
    ]);
    expect(await sql(`SELECT term, df FROM repository_terms ORDER BY term`, url)).toEqual([
      { term: 'queue', df: 1 },
      { term: 'redis', df: 2 },
    ]);
    expect(
      await sql(
        `SELECT docs, history_docs, standard_docs, lexical_len::int AS lexical_len FROM repositories WHERE name = 'acme/a'`,
        url,
      ),
    ).toEqual([{ docs: 2, history_docs: 1, standard_docs: 1, lexical_len: 6 }]);
    // The checks are back as they were: NOT VALID, judging new rows.
    expect(
      await sql(
        `SELECT conname, convalidated FROM pg_constraint WHERE conname IN ('repositories_name_form', 'documents_shape') ORDER BY conname`,
        url,
      ),
    ).toEqual([
      { conname: 'documents_shape', convalidated: false },
      { conname: 'repositories_name_form', convalidated: false },
    ]);
  });

  test('a wrong password: one line, exit 7, no password in the output', async () => {
    const r = await store(['status'], pg.wrongPasswordUrl);
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      `agentos: the store at 127.0.0.1:${pg.port}/postgres refused the credentials (wrong password)`,
    ]);
    expect(r.stderr).not.toContain('not-the-password');
    const json = await runCli(['store', 'status', '--json'], { env: { AGENTOS_DATABASE_URL: pg.wrongPasswordUrl } });
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 7, kind: expect.any(String), message: expect.stringContaining('refused the credentials') },
    });
  });

  test('the server down: one line naming where, exit 7; up again, it answers', async () => {
    pg.kill();
    try {
      const r = await store(['status']);
      expect(r.code).toBe(7);
      expect(r.stderr.trim()).toBe(
        `agentos: cannot reach the store at 127.0.0.1:${pg.port}/postgres (connection refused): is the server running?`,
      );
    } finally {
      pg.start();
    }
    expect((await store(['status'])).code).toBe(0);
  });

  test('no store configured: a usage error saying how to configure one', async () => {
    const r = await runCli(['store', 'status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no team store configured: set AGENTOS_DATABASE_URL/);
  });
});

describe('agentos store sync: the live index into the team store', () => {
  let tmp: string;
  let demo: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-store-sync-'));
    demo = path.join(tmp, 'demo');
    await indexedDemo(demo);
    await commitConfig(demo, 'store:\n  repository: demo\n  publish: true\n');
    expect((await store(['init'])).code).toBe(0);
  });
  afterAll(async () => rm(tmp, { recursive: true, force: true }));

  const agentos = (args: string[], url = pg.url) =>
    runCli(['-C', demo, ...args], { env: { AGENTOS_DATABASE_URL: url } });
  const docs = () =>
    sql<{ id: string; path: string }>(
      `SELECT d.id, d.path FROM documents d JOIN repositories r ON r.id = d.repository_id WHERE r.name = 'demo' ORDER BY d.path`,
    );

  test('the first sync sends every document with its chunks, vectors and term counts; the second sends nothing', async () => {
    const local = JSON.parse((await agentos(['status', '--json'])).stdout) as {
      index: { documents: { standard: number; history: number }; chunks: number };
    };
    const first = await agentos(['store', 'sync', '--json']);
    expect([first.code, first.stderr]).toEqual([0, '']);
    const r = JSON.parse(first.stdout) as {
      repository: string;
      added: string[];
      removed: string[];
      unchanged: number;
      chunks: number;
    };
    expect(r.repository).toBe('demo');
    expect(r.chunks).toBe(local.index.chunks);
    expect(r.added.length).toBe((await docs()).length);
    const [counts] = await sql<{ chunks: string; dims: number; terms: string }>(
      `SELECT (SELECT count(*) FROM chunks) AS chunks, (SELECT vector_dims(embedding) FROM chunks LIMIT 1) AS dims, (SELECT count(*) FROM document_terms) AS terms`,
    );
    expect(Number(counts.chunks)).toBe(local.index.chunks);
    expect(counts.dims).toBe(384);
    expect(Number(counts.terms)).toBeGreaterThan(1000);
    // Stored as sent: a chunk's own vector is nearest to itself (inner product of unit vectors).
    const [probe] = await sql<{ id: string; e: string }>(
      'SELECT id, embedding::text AS e FROM chunks ORDER BY id LIMIT 1',
    );
    const [nearest] = await sql<{ id: string }>(`SELECT id FROM chunks ORDER BY embedding <#> '${probe.e}' LIMIT 1`);
    expect(nearest.id).toBe(probe.id);

    const again = JSON.parse((await agentos(['store', 'sync', '--json'])).stdout) as {
      added: string[];
      changed: string[];
      removed: string[];
      unchanged: number;
      chunks: number;
    };
    expect([again.added, again.changed, again.removed, again.chunks]).toEqual([[], [], [], 0]);
    expect(again.unchanged).toBe(r.added.length);
  });

  test('index syncs by itself: a changed file is replaced (the others keep their rows), a deleted one is gone', async () => {
    const before = await docs();
    const changed = 'docs/adrs/0002-structured-json-logging-with-correlation-ids.md';
    await writeFile(
      path.join(demo, changed),
      '# ADR-0002: Structured JSON logging\n\nStatus: accepted\n\nLog JSON lines with a correlation id on every request, now with trace ids too.\n',
    );
    const gone = before.find((d) => d.path.startsWith('docs/audit/done/'))!.path;
    await unlink(path.join(demo, gone));
    const r = await agentos(['index', '-q']);
    expect(r.code).toBe(0);
    const after = await docs();
    expect(after.map((d) => d.path)).not.toContain(gone);
    const idOf = (list: typeof before, p: string) => list.find((d) => d.path === p)?.id;
    expect(idOf(after, changed)).not.toBe(idOf(before, changed));
    for (const d of after.filter((x) => x.path !== changed)) expect(d.id).toBe(idOf(before, d.path));
  });

  test('a URL alone never uploads: without store.publish, index says why and sends nothing, store sync is a usage error', async () => {
    const priv = path.join(tmp, 'private');
    await indexedDemo(priv);
    await writeFile(path.join(priv, '.agentos', 'config.yaml'), 'store:\n  repository: acme/private\n');
    const run = (args: string[]) => runCli(['-C', priv, ...args], { env: { AGENTOS_DATABASE_URL: pg.url } });
    const idx = await run(['index', '--full']);
    expect(idx.code).toBe(0);
    expect(idx.stderr).toContain(
      'note: the team store was not updated: this repository is not published to the team store: set store.publish: true',
    );
    const sync = await run(['store', 'sync']);
    expect(sync.code).toBe(2);
    expect(sync.stderr).toMatch(/store sync: this repository is not published/);
    expect(await sql(`SELECT name FROM repositories WHERE name = 'acme/private'`)).toEqual([]);
  });

  test("a work-in-progress branch leaves the team's copy as it is; --any-branch replaces it from there", async () => {
    const repo = path.join(tmp, 'branchy');
    await indexedDemo(repo);
    await rm(path.join(repo, '.git'), { recursive: true, force: true });
    await commitConfig(repo, 'store:\n  repository: acme/branchy\n  publish: true\n');
    const git = (args: string[]) =>
      execFileSync('git', ['-c', 'user.email=a@b.c', '-c', 'user.name=A', ...args], { cwd: repo, stdio: 'ignore' });
    git(['init', '-q', '-b', 'main']);
    git(['add', '-A']);
    git(['commit', '-q', '-m', 'all']);
    const run = (args: string[]) => runCli(['-C', repo, ...args], { env: { AGENTOS_DATABASE_URL: pg.url } });
    expect((await run(['store', 'sync'])).code).toBe(0);
    const count = async () =>
      (
        await sql<{ n: string }>(
          `SELECT count(*) AS n FROM documents d JOIN repositories r ON r.id = d.repository_id WHERE r.name = 'acme/branchy'`,
        )
      )[0].n;
    const before = await count();
    git(['checkout', '-q', '-b', 'wip']);
    const gone = (await readdir(path.join(repo, 'docs', 'audit', 'done')))[0];
    await rm(path.join(repo, 'docs', 'audit', 'done', gone), { recursive: true });
    const idx = await run(['index']);
    expect(idx.code).toBe(0);
    expect(idx.stderr).toContain(
      "note: the team store was not updated: on branch wip, not the default branch main: the team's copy is left as it is",
    );
    expect(await count()).toBe(before);
    const refused = await run(['store', 'sync']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('(--any-branch replaces it from here)');
    expect(await count()).toBe(before);
    expect((await run(['store', 'sync', '--any-branch'])).code).toBe(0);
    expect(Number(await count())).toBeLessThan(Number(before));
  });

  test("no history, an uncommitted publish: true or repository, no default branch: nothing replaces the team's copy (issue 47)", async () => {
    const repo = path.join(tmp, 'unpublished');
    await indexedDemo(repo);
    await rm(path.join(repo, '.git'), { recursive: true, force: true });
    const git = (args: string[]) =>
      execFileSync('git', ['-c', 'user.email=a@b.c', '-c', 'user.name=A', ...args], { cwd: repo, stdio: 'ignore' });
    git(['init', '-q', '-b', 'main']);
    await writeFile(
      path.join(repo, '.agentos', 'config.yaml'),
      'store:\n  repository: acme/unpublished\n  publish: true\n',
    );
    const run = (args: string[]) => runCli(['-C', repo, ...args], { env: { AGENTOS_DATABASE_URL: pg.url } });
    // An empty clone: it once published nothing over the team's copy.
    let r = await run(['store', 'sync']);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining('this repository has no git history')]);
    // --any-branch is about branches: it publishes neither a folder without history nor an uncommitted config.
    r = await run(['store', 'sync', '--any-branch']);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining('this repository has no git history')]);
    expect(r.stderr).not.toContain('--any-branch');
    // History, but the publish: true is one person's edit, not committed.
    git(['add', 'README.md']);
    git(['commit', '-q', '-m', 'readme']);
    r = await run(['store', 'sync']);
    expect([r.code, r.stderr]).toEqual([
      2,
      expect.stringContaining('store.publish: true is not in the committed .agentos/config.yaml (HEAD)'),
    ]);
    r = await run(['store', 'sync', '--any-branch']);
    expect([r.code, r.stderr]).toEqual([
      2,
      expect.stringContaining('store.publish: true is not in the committed .agentos/config.yaml (HEAD)'),
    ]);
    // Committed, but another name to publish under edited in: one person's too (the team's documents would go elsewhere).
    git(['add', '-f', '.agentos/config.yaml']);
    git(['commit', '-q', '-m', 'config']);
    await writeFile(
      path.join(repo, '.agentos', 'config.yaml'),
      'store:\n  repository: acme/elsewhere\n  publish: true\n',
    );
    r = await run(['store', 'sync']);
    expect([r.code, r.stderr]).toEqual([
      2,
      expect.stringContaining(
        'store.repository in .agentos/config.yaml (acme/elsewhere) is not the committed one (acme/unpublished)',
      ),
    ]);
    r = await run(['store', 'sync', '--any-branch']);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining('is not the committed one')]);
    git(['checkout', '--', '.agentos/config.yaml']);
    // Committed, on a branch no default goes by, with no origin/HEAD to say which is the default.
    git(['branch', '-m', 'main', 'wip']);
    r = await run(['store', 'sync']);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining('no default branch is known here')]);
    expect(await sql(`SELECT 1 FROM repositories WHERE name = 'acme/unpublished' OR name = 'acme/elsewhere'`)).toEqual(
      [],
    );
    // There, --any-branch is what it is for: the committed config's repository published from wip.
    r = await run(['store', 'sync', '--any-branch']);
    expect(r.code).toBe(0);
    expect(await sql(`SELECT name FROM repositories WHERE name = 'acme/unpublished'`)).toEqual([
      { name: 'acme/unpublished' },
    ]);
  });

  test("clones of the team's repository, named by their origin: an empty one and one on a WIP branch without origin/HEAD leave the team's copy as it is (issue 47)", async () => {
    const origin = 'https://git.example.com/acme/team.git';
    const gitAt = (cwd: string, args: string[]) =>
      execFileSync('git', ['-c', 'user.email=a@b.c', '-c', 'user.name=A', ...args], { cwd, stdio: 'ignore' });
    const run = (dir: string, args: string[]) =>
      runCli(['-C', dir, ...args], { env: { AGENTOS_DATABASE_URL: pg.url } });
    const teamDocs = () =>
      sql<{ path: string; content_hash: string }>(
        `SELECT d.path, d.content_hash FROM documents d JOIN repositories r ON r.id = d.repository_id WHERE r.name = 'git.example.com/acme/team' ORDER BY d.path`,
      );
    // The team's copy, published from main (the name comes from origin).
    const team = path.join(tmp, 'team');
    await indexedDemo(team);
    await commitConfig(team, 'store:\n  publish: true\n');
    gitAt(team, ['remote', 'add', 'origin', origin]);
    expect((await run(team, ['store', 'sync'])).code).toBe(0);
    const published = await teamDocs();
    expect(published.length).toBeGreaterThan(5);
    // An empty clone with the same origin and the team's config: it once published nothing over the team's copy.
    const empty = path.join(tmp, 'team-empty');
    await cp(path.join(team, '.agentos'), path.join(empty, '.agentos'), { recursive: true });
    gitAt(empty, ['init', '-q', '-b', 'main']);
    gitAt(empty, ['remote', 'add', 'origin', origin]);
    let r = await run(empty, ['store', 'sync']);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining('this repository has no git history')]);
    // A clone on a WIP branch whose origin/HEAD was never fetched: no default branch is known, nothing publishes.
    const wip = path.join(tmp, 'team-wip');
    await cp(team, wip, { recursive: true });
    gitAt(wip, ['checkout', '-q', '-b', 'wip']);
    await writeFile(path.join(wip, 'docs', 'wip.md'), '# WIP\n\nHalf a design.\n');
    gitAt(wip, ['add', '-f', 'docs/wip.md']);
    gitAt(wip, ['commit', '-q', '-m', 'wip']);
    gitAt(wip, ['branch', '-D', 'main']);
    expect((await run(wip, ['index', '--include-history', '-q'])).code).toBe(0);
    r = await run(wip, ['store', 'sync']);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining('no default branch is known here')]);
    expect(await teamDocs()).toEqual(published);
  });

  test('a hostile title is stored as text; every table is still there', async () => {
    const title = `x'); DROP TABLE chunks; --`;
    await writeFile(
      path.join(demo, 'docs', 'adrs', '0099-hostile.md'),
      `# ${title}\n\nStatus: accepted\n\nA decision whose title tries to end the SQL statement.\n`,
    );
    expect((await agentos(['index', '-q'])).code).toBe(0);
    const [row] = await sql<{ title: string }>(
      `SELECT metadata->>'title' AS title FROM documents WHERE path = 'docs/adrs/0099-hostile.md'`,
    );
    expect(row.title).toContain(`DROP TABLE chunks`);
    expect(Number((await sql<{ n: string }>('SELECT count(*) AS n FROM chunks'))[0].n)).toBeGreaterThan(0);
  });

  test('the server down: index still updates the local index and says the store was not updated', async () => {
    await writeFile(
      path.join(demo, 'docs', 'adrs', '0100-offline.md'),
      '# ADR-0100: Offline decision\n\nStatus: accepted\n\nWritten while the store was down.\n',
    );
    pg.kill();
    try {
      const r = await agentos(['index', '-q']);
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(
        /warning: the team store was not updated \(cannot reach the store at 127\.0\.0\.1:\d+\/postgres \(connection refused\).*run `agentos store sync` when the store is back/,
      );
    } finally {
      pg.start();
    }
    const r = JSON.parse((await agentos(['store', 'sync', '--json'])).stdout) as { added: string[] };
    expect(r.added).toEqual(['docs/adrs/0100-offline.md']);
  });

  test('a store without the schema: sync says to run store init, exit 7', async () => {
    await sql('CREATE DATABASE empty_store');
    const r = await agentos(['store', 'sync'], pg.url.replace(/\/postgres$/, '/empty_store'));
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/no agentos schema yet: run `agentos store init`/);
  });
});

// A process killed, or the server killed, in the middle of a sync: the transaction is
// rolled back by the server, so the repository holds what it held before, nothing half.
// The faults are placed exactly by a --require preload that wraps node-postgres' query:
// at the first INSERT of term counts, after documents and their chunks were sent.
const FAULT_PRELOAD = `
const { execFileSync } = require('node:child_process');
const pg = require(process.env.AGENTOS_TEST_PG_MODULE);
const at = Number(process.env.AGENTOS_TEST_STORE_FAULT_AT);
let inserts = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (text, ...rest) {
  if (typeof text === 'string' && text.startsWith('INSERT INTO document_terms') && ++inserts === at) {
    if (process.env.AGENTOS_TEST_STORE_FAULT === 'kill-agentos') process.kill(process.pid, 'SIGKILL');
    if (process.env.AGENTOS_TEST_STORE_FAULT === 'kill-server') {
      const cmd = JSON.parse(process.env.AGENTOS_TEST_STORE_KILL);
      execFileSync(cmd[0], cmd.slice(1), { stdio: 'ignore' });
    }
  }
  return query.call(this, text, ...rest);
};
`;

describe("the repository's name", () => {
  test('its git remote origin, without the credentials in it; none and no store.repository: a usage error, nothing sent', async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-store-name-'));
    try {
      const repo = path.join(tmp, 'payments');
      await indexedDemo(repo);
      await rm(path.join(repo, '.git'), { recursive: true, force: true });
      const git = (args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
      git(['init', '-q']);
      await commitConfig(repo, 'store:\n  publish: true\n');
      const none = await runCli(['-C', repo, 'store', 'sync'], { env: { AGENTOS_DATABASE_URL: pg.url } });
      expect(none.code).toBe(2);
      expect(none.stderr).toMatch(/no git remote "origin"; set store.repository/);
      git(['remote', 'add', 'origin', 'https://ci-bot:ghp_secret123@github.com/acme/payments.git']);
      const r = await runCli(['-C', repo, 'store', 'sync', '--json'], { env: { AGENTOS_DATABASE_URL: pg.url } });
      expect(r.code).toBe(0);
      expect((JSON.parse(r.stdout) as { repository: string }).repository).toBe('github.com/acme/payments');
      expect(JSON.stringify(await sql('SELECT name FROM repositories'))).not.toContain('ghp_secret123');
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });

  test('a store URL the driver cannot use is a usage error (exit 2), not an unexpected one', async () => {
    const r = await runCli(['store', 'status'], { env: { AGENTOS_DATABASE_URL: 'postgres://u:pw@h:70000/db' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the store URL is not usable/);
    expect(r.stderr).not.toContain(':pw@');
  });

  test("sslmode as libpq reads it: prefer falls back to this server's plain text, require refuses it, an unknown mode is exit 2", async () => {
    const prefer = await store(['status', '--json'], `${pg.url}?sslmode=prefer`);
    expect([prefer.code, prefer.stderr]).toEqual([0, '']);
    const require = await store(['status'], `${pg.url}?sslmode=require`);
    expect(require.code).toBe(7);
    expect(require.stderr).toMatch(/does not support SSL/);
    expect(require.stderr).not.toContain(PG_PASSWORD);
    const unknown = await store(['status'], `${pg.url}?sslmode=no-such-mode`);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/sslmode "no-such-mode" is not one of libpq's/);
    expect(unknown.stderr).not.toContain(PG_PASSWORD);
  });
});

describe('faults in the middle of a sync leave nothing half-written', () => {
  let tmp: string;
  let demo: string;
  let preload: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-store-fault-'));
    demo = path.join(tmp, 'demo');
    await indexedDemo(demo);
    await commitConfig(demo, 'store:\n  repository: faulty\n  publish: true\n');
    preload = path.join(tmp, 'fault.cjs');
    await writeFile(preload, FAULT_PRELOAD);
    expect((await store(['init'])).code).toBe(0);
  });
  afterAll(async () => rm(tmp, { recursive: true, force: true }));

  const faulty = () =>
    sql<{ docs: string; repos: string }>(
      `SELECT (SELECT count(*) FROM documents d JOIN repositories r ON r.id = d.repository_id WHERE r.name = 'faulty') AS docs, (SELECT count(*) FROM repositories WHERE name = 'faulty') AS repos`,
    );
  const syncWithFault = (fault: string) =>
    runCli(['--require', preload, BIN, '-C', demo, 'store', 'sync'], {
      node: true,
      env: {
        AGENTOS_DATABASE_URL: pg.url,
        AGENTOS_TEST_PG_MODULE: require.resolve('pg'),
        AGENTOS_TEST_STORE_FAULT: fault,
        AGENTOS_TEST_STORE_FAULT_AT: '1',
        AGENTOS_TEST_STORE_KILL: JSON.stringify(pg.killCommand),
      },
    });

  test('agentos killed after some documents were sent: the server has none of them', async () => {
    const r = await syncWithFault('kill-agentos');
    expect(r.signal).toBe('SIGKILL');
    // The server ends the dead connection's transaction; a moment later nothing of it is visible.
    await new Promise((done) => setTimeout(done, 500));
    expect(await faulty()).toEqual([{ docs: '0', repos: '0' }]);
  });

  test('the server killed mid-sync: one line, exit 7; restarted, nothing of the sync is there; the next sync sends it all', async () => {
    const r = await syncWithFault('kill-server');
    try {
      expect(r.code).toBe(7);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^agentos: .*store at 127\.0\.0\.1:\d+\/postgres/);
    } finally {
      pg.start();
    }
    expect(await faulty()).toEqual([{ docs: '0', repos: '0' }]);
    const ok = await runCli(['-C', demo, 'store', 'sync', '--json'], { env: { AGENTOS_DATABASE_URL: pg.url } });
    expect(ok.code).toBe(0);
    const [after] = await faulty();
    expect(Number(after.docs)).toBe((JSON.parse(ok.stdout) as { added: string[] }).added.length);
    expect(Number(after.docs)).toBeGreaterThan(20);
  });
});

describe('many at once', () => {
  test('eight processes syncing eight repositories, and two syncing the same one: nothing lost, nothing twice', async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-store-many-'));
    try {
      expect((await store(['init'])).code).toBe(0);
      const roots: string[] = [];
      for (let i = 1; i <= 8; i++) {
        const root = path.join(tmp, `r${i}`);
        await indexedDemo(root);
        await commitConfig(root, `store:\n  repository: team/r${i}\n  publish: true\n`);
        roots.push(root);
      }
      // r1 twice: the second waits for the first (its row is locked) and then finds nothing to send.
      const runs = await Promise.all(
        [...roots, roots[0]].map((root) =>
          runCli(['-C', root, 'store', 'sync', '--json'], { env: { AGENTOS_DATABASE_URL: pg.url } }),
        ),
      );
      for (const r of runs) expect([r.code, r.stderr]).toEqual([0, '']);
      const sent = runs.map((r) => (JSON.parse(r.stdout) as { added: string[] }).added.length);
      const rows = await sql<{ name: string; docs: string; distinct_paths: string }>(
        `SELECT r.name, count(d.id) AS docs, count(DISTINCT d.path) AS distinct_paths FROM repositories r JOIN documents d ON d.repository_id = r.id WHERE r.name LIKE 'team/%' GROUP BY r.name ORDER BY r.name`,
      );
      expect(rows.map((r) => r.name)).toEqual(roots.map((_, i) => `team/r${i + 1}`));
      for (const r of rows) expect([r.docs, r.distinct_paths]).toEqual([String(sent[1]), String(sent[1])]);
      // Of the two syncs of r1, one sent everything and the other nothing.
      expect([sent[0], sent[8]].sort((a, b) => a - b)).toEqual([0, sent[1]]);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe('a server without pgvector', () => {
  // The same PostgreSQL with the extension's files removed from a copy of its installation.
  let bare: TestPostgres;
  let install: string;
  beforeAll(async () => {
    install = await mkdtemp(path.join(os.tmpdir(), 'agentos-pg-novector-'));
    // The wheel's binaries find their libraries at $ORIGIN/../../../pgserver.libs: the copy keeps that layout.
    const from = path.dirname(pgbin());
    const copy = path.join(install, 'pkg', 'pginstall');
    await cp(from, copy, { recursive: true });
    await symlink(path.join(from, '..', '..', 'pgserver.libs'), path.join(install, 'pgserver.libs'));
    for (const dir of ['share/postgresql/extension', 'lib/postgresql']) {
      for (const f of await readdir(path.join(copy, dir)).catch(() => [] as string[]))
        if (/^vector[.-]/.test(f)) await rm(path.join(copy, dir, f));
    }
    for (const d of [install, path.join(install, 'pkg')]) await chmod(d, 0o755);
    bare = await startPostgres({ pgbin: path.join(copy, 'bin') });
  });
  afterAll(async () => {
    bare?.stop();
    await rm(install, { recursive: true, force: true });
  });

  test('store init: one line saying the server has no pgvector, exit 7, nothing created', async () => {
    const r = await store(['init'], bare.url);
    expect(r.code).toBe(7);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/the server has no pgvector extension .*install pgvector on the PostgreSQL server/);
    expect(await sql(`SELECT to_regclass('agentos_schema') AS t`, bare.url)).toEqual([{ t: null }]);
  });

  test('issue start --scope org: the local index answers and the warning says why', async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-novector-'));
    try {
      const demo = path.join(tmp, 'demo');
      await indexedDemo(demo);
      await commitConfig(demo, 'store:\n  repository: demo\n  publish: true\n');
      const r = await runCli(
        [
          '-C',
          demo,
          'issue',
          'start',
          path.join(demo, 'briefs', 'fix-logging-bug.md'),
          '--json',
          '--non-interactive',
          '--no-refresh',
          '--scope',
          'org',
          '-o',
          path.join(tmp, 'out.md'),
        ],
        {
          env: { AGENTOS_DATABASE_URL: bare.url },
        },
      );
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        scope: 'repo',
        status: expect.stringMatching(/duplicate_alert|related_context|clear/),
      });
      expect(r.stderr).toContain(
        "the team store could not answer (the store has no agentos schema yet: run `agentos store init`); answered from this repository's local index only",
      );
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});
