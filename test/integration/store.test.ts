// SLOW: a real PostgreSQL 16 server with pgvector (PyPI pgserver, test/helpers/postgres.ts),
// started here on 127.0.0.1 and stopped after. `agentos store init | status` end to end
// through the built CLI: the schema created once and idempotently, eight processes
// migrating at once, the URL's password never shown, a wrong password and a server
// that is down each one clear line with exit 7.
import { createRequire } from 'node:module';
import { jest } from '@jest/globals';
import { runCli, type CliResult } from '../helpers/cli.js';
import { PG_PASSWORD, startPostgres, type TestPostgres } from '../helpers/postgres.js';

jest.setTimeout(180_000);

let pg: TestPostgres;
const require = createRequire(import.meta.url);

beforeAll(async () => {
  pg = await startPostgres();
});
afterAll(() => pg?.stop());

const store = (args: string[], url = pg.url): Promise<CliResult> => runCli(['store', ...args], { env: { AGENTOS_DATABASE_URL: url } });

async function sql<T>(query: string, url = pg.url): Promise<T[]> {
  const { Client } = require('pg') as typeof import('pg');
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(query)).rows as T[];
  } finally {
    await c.end();
  }
}

describe('agentos store, on a real PostgreSQL with pgvector', () => {
  test('init creates the schema once; a second init changes nothing; status shows it with the password masked', async () => {
    const first = await store(['init']);
    expect([first.code, first.stderr]).toEqual([0, '']);
    expect(first.stdout).toMatch(/^Store schema created: version 1 \(pgvector \d+\.\d+\.\d+\)\.\n$/);
    const again = await store(['init', '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ from: 1, to: 1 });
    const tables = await sql<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`);
    expect(tables.map((r) => r.t)).toEqual(['agentos_schema', 'chunks', 'document_terms', 'documents', 'repositories']);
    const index = await sql<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE indexname = 'chunks_embedding'`);
    expect(index[0].indexdef).toMatch(/USING hnsw \(embedding vector_ip_ops\)/);

    const status = await store(['status', '--json']);
    expect(status.code).toBe(0);
    const s = JSON.parse(status.stdout);
    expect(s).toMatchObject({ schema: { version: 1, expected: 1, state: 'current' }, repositories: [] });
    expect(s.server).toMatch(/^16\./);
    expect(s.url).toBe(`postgres://postgres:****@127.0.0.1:${pg.port}/postgres`);
    const text = await store(['status']);
    for (const out of [status.stdout, status.stderr, text.stdout, text.stderr]) expect(out).not.toContain(PG_PASSWORD);
    expect(text.stdout).toContain('Schema:  version 1');
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

  test('a wrong password: one line, exit 7, no password in the output', async () => {
    const r = await store(['status'], pg.wrongPasswordUrl);
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([`agentos: the store at 127.0.0.1:${pg.port}/postgres refused the credentials (wrong password)`]);
    expect(r.stderr).not.toContain('not-the-password');
    const json = await runCli(['store', 'status', '--json'], { env: { AGENTOS_DATABASE_URL: pg.wrongPasswordUrl } });
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: 7, kind: expect.any(String), message: expect.stringContaining('refused the credentials') } });
  });

  test('the server down: one line naming where, exit 7; up again, it answers', async () => {
    pg.kill();
    try {
      const r = await store(['status']);
      expect(r.code).toBe(7);
      expect(r.stderr.trim()).toBe(`agentos: cannot reach the store at 127.0.0.1:${pg.port}/postgres (connection refused): is the server running?`);
    } finally {
      pg.start();
    }
    expect((await store(['status'])).code).toBe(0);
  });

  test('no store configured: a usage error saying how to configure one', async () => {
    const r = await runCli(['store', 'status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no shared store configured: set AGENTOS_DATABASE_URL/);
  });
});
