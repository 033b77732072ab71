// SLOW: a real PostgreSQL 16 server with pgvector (PyPI pgserver, test/helpers/postgres.ts),
// started here on 127.0.0.1 and stopped after. `agentos store init | status` end to end
// through the built CLI: the schema created once and idempotently, eight processes
// migrating at once, the URL's password never shown, a wrong password and a server
// that is down each one clear line with exit 7.
import { createRequire } from 'node:module';
import { jest } from '@jest/globals';
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { indexedDemo, runCli, type CliResult } from '../helpers/cli.js';
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

describe('agentos store sync: the live index into the shared store', () => {
  let tmp: string;
  let demo: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-store-sync-'));
    demo = path.join(tmp, 'demo');
    await indexedDemo(demo);
    expect((await store(['init'])).code).toBe(0);
  });
  afterAll(async () => rm(tmp, { recursive: true, force: true }));

  const agentos = (args: string[], url = pg.url) => runCli(['-C', demo, ...args], { env: { AGENTOS_DATABASE_URL: url } });
  const docs = () => sql<{ id: string; path: string }>(`SELECT d.id, d.path FROM documents d JOIN repositories r ON r.id = d.repository_id WHERE r.name = 'demo' ORDER BY d.path`);

  test('the first sync sends every document with its chunks, vectors and term counts; the second sends nothing', async () => {
    const local = JSON.parse((await agentos(['status', '--json'])).stdout) as { index: { documents: { standard: number; history: number }; chunks: number } };
    const first = await agentos(['store', 'sync', '--json']);
    expect([first.code, first.stderr]).toEqual([0, '']);
    const r = JSON.parse(first.stdout) as { repository: string; added: string[]; removed: string[]; unchanged: number; chunks: number };
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
    const [probe] = await sql<{ id: string; e: string }>('SELECT id, embedding::text AS e FROM chunks ORDER BY id LIMIT 1');
    const [nearest] = await sql<{ id: string }>(`SELECT id FROM chunks ORDER BY embedding <#> '${probe.e}' LIMIT 1`);
    expect(nearest.id).toBe(probe.id);

    const again = JSON.parse((await agentos(['store', 'sync', '--json'])).stdout) as { added: string[]; changed: string[]; removed: string[]; unchanged: number; chunks: number };
    expect([again.added, again.changed, again.removed, again.chunks]).toEqual([[], [], [], 0]);
    expect(again.unchanged).toBe(r.added.length);
  });

  test('index syncs by itself: a changed file is replaced (the others keep their rows), a deleted one is gone', async () => {
    const before = await docs();
    const changed = 'docs/adrs/0002-structured-json-logging-with-correlation-ids.md';
    await writeFile(path.join(demo, changed), '# ADR-0002: Structured JSON logging\n\nStatus: accepted\n\nLog JSON lines with a correlation id on every request, now with trace ids too.\n');
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

  test('a hostile title is stored as text; every table is still there', async () => {
    const title = `x'); DROP TABLE chunks; --`;
    await writeFile(path.join(demo, 'docs', 'adrs', '0099-hostile.md'), `# ${title}\n\nStatus: accepted\n\nA decision whose title tries to end the SQL statement.\n`);
    expect((await agentos(['index', '-q'])).code).toBe(0);
    const [row] = await sql<{ title: string }>(`SELECT metadata->>'title' AS title FROM documents WHERE path = 'docs/adrs/0099-hostile.md'`);
    expect(row.title).toContain(`DROP TABLE chunks`);
    expect(Number((await sql<{ n: string }>('SELECT count(*) AS n FROM chunks'))[0].n)).toBeGreaterThan(0);
  });

  test('the server down: index still updates the local index and says the store was not updated', async () => {
    await writeFile(path.join(demo, 'docs', 'adrs', '0100-offline.md'), '# ADR-0100: Offline decision\n\nStatus: accepted\n\nWritten while the store was down.\n');
    pg.kill();
    try {
      const r = await agentos(['index', '-q']);
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(
        /warning: the shared store was not updated \(cannot reach the store at 127\.0\.0\.1:\d+\/postgres \(connection refused\).*run `agentos store sync` when the store is back/,
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
