// SLOW: `--scope org` against a real PostgreSQL with pgvector (test/helpers/postgres.ts).
// The demo is synced as one repository; a second, empty project checks against it
// through the team store, and must see exactly what the demo's own local index
// sees: same statuses, same documents in the same order, the same scores. Then the
// ways the store can fail a check: down, slow, the connection dropped mid-query, an
// old schema: each time the check answers from the local index and says so.
import { SCHEMA_VERSION } from '../../src/shared/team-store/schema.js';
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { jest } from '@jest/globals';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { cliEnv, indexedDemo, runCli, type CliResult, commitConfig } from '../helpers/cli.js';
import { BIN } from '../helpers/paths.js';
import { sqlAt, startPostgres, type TestPostgres } from '../helpers/postgres.js';

jest.setTimeout(300_000);

const require = createRequire(import.meta.url);
let pg: TestPostgres;
let tmp: string;
let demo: string;
let other: string;
let briefs: string[];

const sql = <T>(text: string, params: unknown[] = []): Promise<T[]> => sqlAt<T>(pg.url, text, params);

const run = (dir: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> =>
  runCli(['-C', dir, ...args], { env: { AGENTOS_DATABASE_URL: pg.url, ...env } });

interface Match {
  path: string;
  score: number;
  repository: string | null;
  id: string | null;
}
interface StartJson {
  status: string;
  method: string;
  scope: string;
  org: { where: string; repositories: string[]; fetched: number } | null;
  matches: Match[];
  nearest: Match[];
  warnings: string[];
}

async function start(
  dir: string,
  brief: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<{ r: CliResult; json: StartJson }> {
  const out = path.join(tmp, 'out', `${path.basename(dir)}-${path.basename(brief)}`);
  const r = await run(
    dir,
    [
      'issue',
      'start',
      brief,
      '--json',
      '--non-interactive',
      '--on-duplicate',
      'ignore',
      '--no-refresh',
      '-o',
      out,
      ...extra,
    ],
    env,
  );
  expect([r.code, r.stderr]).toEqual([0, expect.any(String)]);
  return { r, json: JSON.parse(r.stdout) as StartJson };
}

beforeAll(async () => {
  pg = await startPostgres();
  tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-org-'));
  demo = path.join(tmp, 'demo');
  await indexedDemo(demo);
  await commitConfig(demo, 'store:\n  repository: acme/demo\n  publish: true\n');
  // Another project of the organisation with no past work of its own: all it knows comes from the store.
  other = path.join(tmp, 'other');
  await mkdir(path.join(other, '.agentos'), { recursive: true });
  await mkdir(path.join(other, 'docs'), { recursive: true });
  await commitConfig(other, 'store:\n  repository: acme/other\n  publish: true\n');
  expect((await runCli(['store', 'init'], { env: { AGENTOS_DATABASE_URL: pg.url } })).code).toBe(0);
  expect((await run(demo, ['store', 'sync'])).code).toBe(0);
  const idx = await run(other, ['index', '--include-history', '-q']);
  expect(idx.code).toBe(0);
  briefs = (await readdir(path.join(demo, 'briefs'))).sort().map((b) => path.join(demo, 'briefs', b));
});

afterAll(async () => {
  pg?.stop();
  await rm(tmp, { recursive: true, force: true });
});

describe('--scope org on a real PostgreSQL with pgvector', () => {
  test('the team store ranks the demo as its local index does: same statuses, documents, order and scores', async () => {
    let alerts = 0;
    for (const brief of briefs) {
      const local = (await start(demo, brief)).json;
      const { r, json: org } = await start(other, brief, ['--scope', 'org']);
      expect(local.scope).toBe('repo');
      expect(org.scope).toBe('org');
      expect(org.method).toMatch(/\+pgvector$/);
      expect(org.org).toMatchObject({
        repositories: ['acme/demo'],
        where: expect.stringMatching(/^127\.0\.0\.1:\d+\/postgres$/),
      });
      expect(r.stderr).toMatch(/Compared with 1 other repository in the team store at 127\.0\.0\.1:\d+\/postgres/);
      expect(org.status).toBe(local.status);
      for (const key of ['matches', 'nearest'] as const) {
        expect(org[key].map((m) => m.path)).toEqual(local[key].map((m) => `acme/demo:${m.path}`));
        expect(org[key].map((m) => m.repository)).toEqual(local[key].map(() => 'acme/demo'));
        org[key].forEach((m, i) => expect(Math.abs(m.score - local[key][i].score)).toBeLessThan(1e-5));
      }
      if (local.status === 'duplicate_alert') alerts++;
    }
    // The comparison covers each decision the check can make, not only "clear".
    expect(alerts).toBeGreaterThan(0);
  });

  test('search --scope org lists the same documents with the same scores, named by repository', async () => {
    const query = ['structured', 'logging', 'correlation', 'ids'];
    const local = JSON.parse(
      (await run(demo, ['search', '--json', '--min-score', '0', '-k', '8', ...query])).stdout,
    ) as { results: Match[] };
    const r = await run(other, ['search', '--json', '--min-score', '0', '-k', '8', '--scope', 'org', ...query]);
    expect(r.code).toBe(0);
    const org = JSON.parse(r.stdout) as { scope: string; results: Match[] };
    expect(org.scope).toBe('org');
    expect(org.results.map((m) => m.path)).toEqual(local.results.map((m) => `acme/demo:${m.path}`));
    org.results.forEach((m, i) => expect(Math.abs(m.score - local.results[i].score)).toBeLessThan(1e-5));
  });

  test('MCP check_brief with scope "org" asks the store as issue start --scope org does', async () => {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, '-C', other, 'mcp'],
      env: cliEnv({ AGENTOS_DATABASE_URL: pg.url }) as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'agentos-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const brief = briefs.find((b) => b.endsWith('optimize-docker-build-times.md'))!;
      const cli = (await start(other, brief, ['--scope', 'org'])).json;
      const text = (await import('node:fs')).readFileSync(brief, 'utf8');
      const r = (await client.callTool({ name: 'check_brief', arguments: { brief: text, scope: 'org' } })) as {
        isError?: boolean;
        structuredContent?: { status: string; matches: Array<{ path: string; score: number }> };
      };
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent?.status).toBe(cli.status);
      expect(r.structuredContent?.matches[0].path).toBe(cli.matches[0].path);
      expect(cli.matches[0].path).toMatch(/^acme\/demo:/);
    } finally {
      await client.close();
    }
  });

  test('a project with no index of its own checks against the store alone, and says so', async () => {
    const bare = path.join(tmp, 'bare');
    await mkdir(path.join(bare, '.agentos'), { recursive: true });
    // A fresh clone of the published repository itself: its own history is in the store, not here.
    await writeFile(path.join(bare, '.agentos', 'config.yaml'), 'store:\n  repository: acme/demo\n');
    const brief = briefs.find((b) => b.endsWith('optimize-docker-build-times.md'))!;
    const viaIndex = (await start(other, brief, ['--scope', 'org'])).json;
    const { json } = await start(bare, brief, ['--scope', 'org']);
    expect(json.status).toBe(viaIndex.status);
    expect(json.matches[0].path).toBe(viaIndex.matches[0].path);
    expect(json.warnings).toContain(
      'this project has no index of its own: compared with the team store only, and no standards attached',
    );
  });

  test("a match in another repository names it; this repository's own documents come from its local index", async () => {
    // The same past work in a second repository: both are found, each where it is.
    const copy = path.join(tmp, 'copy');
    await indexedDemo(copy);
    await commitConfig(copy, 'store:\n  repository: acme/copy\n  publish: true\n');
    expect((await run(copy, ['store', 'sync'])).code).toBe(0);
    const brief = briefs.find((b) => b.endsWith('fix-logging-bug.md'))!;
    const local = (await start(demo, brief)).json;
    const org = (await start(demo, brief, ['--scope', 'org'])).json;
    expect(org.org?.repositories).toEqual(['acme/copy']);
    const top = local.nearest[0];
    expect(org.nearest.map((m) => m.path)).toEqual(expect.arrayContaining([top.path, `acme/copy:${top.path}`]));
    const mine = org.nearest.find((m) => m.path === top.path)!;
    const theirs = org.nearest.find((m) => m.path === `acme/copy:${top.path}`)!;
    expect(mine.repository).toBeNull();
    expect(theirs.repository).toBe('acme/copy');
    // Issue 12 there is not issue 12 here: two pieces of work, never grouped into one.
    expect(theirs.id).toBe(mine.id);
    expect(org.nearest.filter((m) => m.id === mine.id)).toHaveLength(2);
    // The text output names the other repository.
    const text = await run(demo, [
      'issue',
      'start',
      brief,
      '--non-interactive',
      '--on-duplicate',
      'ignore',
      '--no-refresh',
      '--scope',
      'org',
      '-o',
      path.join(tmp, 'out', 'text.md'),
    ]);
    expect(text.stderr).toContain(`acme/copy:${top.path}`);
    await sql(`DELETE FROM repositories WHERE name = 'acme/copy'`);
  });

  test('--scope org with no store configured is a usage error (exit 2)', async () => {
    const r = await runCli(['-C', other, 'issue', 'start', briefs[0], '--scope', 'org', '--non-interactive'], {
      env: { AGENTOS_DATABASE_URL: '' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--scope org needs the team store: set AGENTOS_DATABASE_URL/);
  });

  test('the server down: the check answers from the local index, says which store answered, exit 0', async () => {
    pg.kill();
    try {
      const { r, json } = await start(demo, briefs[0], ['--scope', 'org']);
      expect(json.scope).toBe('repo');
      expect(json.method).not.toMatch(/pgvector/);
      expect(r.stderr).toMatch(
        /warning: the team store could not answer \(cannot reach the store at 127\.0\.0\.1:\d+\/postgres \(connection refused\).*\); answered from this repository's local index only \(method: embedding:/,
      );
      expect(json.warnings.join('\n')).toMatch(/team store could not answer/);
    } finally {
      pg.start();
    }
  });

  test('a slow store (a table locked): bounded by store.timeout_ms, then the local index answers', async () => {
    const { Client } = require('pg') as typeof import('pg');
    const locker = new Client({ connectionString: pg.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE agentos.chunks IN ACCESS EXCLUSIVE MODE');
      await commitConfig(other, 'store:\n  repository: acme/other\n  publish: true\n  timeout_ms: 1500\n');
      const started = Date.now();
      const { r, json } = await start(other, briefs[0], ['--scope', 'org']);
      expect(Date.now() - started).toBeLessThan(60_000);
      expect(json.scope).toBe('repo');
      // A lock is waited for at most READ_LOCK_MS (or half the deadline): the warning says it was a lock, not a silent server.
      expect(r.stderr).toMatch(
        /warning: the team store could not answer \(the store at 127\.0\.0\.1:\d+\/postgres is busy: a lock on its tables was held too long/,
      );
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
      await commitConfig(other, 'store:\n  repository: acme/other\n  publish: true\n');
    }
  });

  test('the connection dropped mid-query: the check answers from the local index and says why', async () => {
    const { Client } = require('pg') as typeof import('pg');
    const locker = new Client({ connectionString: pg.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE agentos.chunks IN ACCESS EXCLUSIVE MODE');
    const out = path.join(tmp, 'out', 'dropped.json');
    const child = spawn(
      process.execPath,
      [
        BIN,
        '-C',
        other,
        'issue',
        'start',
        briefs[0],
        '--json',
        '--non-interactive',
        '--no-refresh',
        '--scope',
        'org',
        '-o',
        out,
      ],
      {
        env: cliEnv({ AGENTOS_DATABASE_URL: pg.url }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      // Wait until the check's query waits on the lock, then end its connection from the server's side.
      let terminated = 0;
      for (let i = 0; i < 200 && terminated === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const rows = await sql<{ t: boolean }>(
          `SELECT pg_terminate_backend(pid) AS t FROM pg_stat_activity WHERE application_name = 'agentos' AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
        );
        terminated = rows.filter((x) => x.t).length;
      }
      expect(terminated).toBe(1);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    expect(await exited).toBe(0);
    const json = JSON.parse(stdout) as StartJson;
    expect(json.scope).toBe('repo');
    expect(stderr).toMatch(
      /warning: the team store could not answer \(the store at 127\.0\.0\.1:\d+\/postgres failed: terminating connection due to administrator command\)/,
    );
  });

  test('a store whose schema is older than this agentos reads: the local index answers, the warning says to run store init', async () => {
    await sql(`UPDATE agentos_schema SET version = 1`);
    try {
      const { r, json } = await start(other, briefs[0], ['--scope', 'org']);
      expect(json.scope).toBe('repo');
      expect(r.stderr).toContain(
        `the store's schema is version 1, older than this agentos (${SCHEMA_VERSION}): run \`agentos store init\``,
      );
    } finally {
      await sql(`UPDATE agentos_schema SET version = ${SCHEMA_VERSION}`);
    }
  });
});
