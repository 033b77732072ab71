// SLOW: one careless or hostile teammate against the shared store (issue 30), on a real
// PostgreSQL with pgvector (test/helpers/postgres.ts). The demo is synced as acme/demo and a
// small project as acme/evil; a third project checks the demo's briefs at org scope. Then
// evil's rows are broken the ways issue 30 found (a vector scaled by 50, a document without
// a title, negative term statistics, negative totals, an attempt at time `infinity`): every
// other person's check keeps its status and first match, and the bad row is named once.
import { jest } from '@jest/globals';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { indexedDemo, runCli, type CliResult } from '../helpers/cli.js';
import { sqlAt, startPostgres, type TestPostgres } from '../helpers/postgres.js';

jest.setTimeout(300_000);

let pg: TestPostgres;
let tmp: string;
let demo: string;
let evil: string;
let other: string;
let briefs: string[];
let baseline: Array<{ status: string; first: string | null }>;

const sql = <T>(text: string, params: unknown[] = []): Promise<T[]> => sqlAt<T>(pg.url, text, params);
const run = (dir: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> => runCli(['-C', dir, ...args], { cwd: dir, env: { AGENTOS_DATABASE_URL: pg.url, ...env } });

interface StartJson {
  status: string;
  matches: Array<{ path: string; repository: string | null; score: number }>;
  warnings: string[];
}

async function check(brief: string): Promise<{ json: StartJson; r: CliResult }> {
  const out = path.join(tmp, 'out', path.basename(brief));
  const r = await run(other, ['issue', 'start', brief, '--json', '--non-interactive', '--on-duplicate', 'ignore', '--no-refresh', '--scope', 'org', '-o', out]);
  expect([r.code, r.stderr]).toEqual([0, expect.any(String)]);
  return { json: JSON.parse(r.stdout) as StartJson, r };
}

const decisions = async () =>
  Promise.all(
    briefs.map(async (b) => {
      const { json } = await check(b);
      expect(json.matches.every((m) => Number.isFinite(m.score))).toBe(true);
      return { status: json.status, first: json.matches[0] ? `${json.matches[0].repository}:${json.matches[0].path}` : null, warnings: json.warnings };
    }),
  );

async function evilDocs(): Promise<Array<{ id: string; path: string }>> {
  return sql<{ id: string; path: string }>(`SELECT d.id::text AS id, d.path FROM documents d JOIN repositories r ON r.id = d.repository_id WHERE r.name = 'acme/evil' ORDER BY d.path`);
}

beforeAll(async () => {
  pg = await startPostgres();
  tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-hostile-'));
  demo = path.join(tmp, 'demo');
  await indexedDemo(demo);
  await writeFile(path.join(demo, '.agentos', 'config.yaml'), 'store:\n  repository: acme/demo\n');
  evil = path.join(tmp, 'evil');
  const issue = (n: number, title: string, body: string) => [`docs/audit/done/${n}-x/001-issue.md`, `# Issue #${n}: ${title}\n\n${body}\n`];
  for (const [rel, text] of [
    issue(500, 'Rename the admin console colours', 'The admin console uses an old palette; rename the colour tokens to the new names.'),
    issue(501, 'Move the nightly export to a new bucket', 'The nightly CSV export writes to a bucket we are retiring; point it at the new one.'),
  ]) {
    await mkdir(path.dirname(path.join(evil, rel)), { recursive: true });
    await writeFile(path.join(evil, rel), text);
  }
  await mkdir(path.join(evil, '.agentos'), { recursive: true });
  await writeFile(path.join(evil, '.agentos', 'config.yaml'), 'store:\n  repository: acme/evil\ncorpus:\n  history: ["docs/audit/done/**/*.md"]\n');
  other = path.join(tmp, 'other');
  await mkdir(path.join(other, '.agentos'), { recursive: true });
  await writeFile(path.join(other, '.agentos', 'config.yaml'), 'store:\n  repository: acme/other\nattempts:\n  scope: org\n');
  expect((await runCli(['store', 'init'], { env: { AGENTOS_DATABASE_URL: pg.url } })).code).toBe(0);
  expect((await run(demo, ['store', 'sync'])).code).toBe(0);
  expect((await run(evil, ['index', '--include-history', '-q'])).code).toBe(0);
  expect((await run(evil, ['store', 'sync'])).code).toBe(0);
  expect((await run(other, ['index', '--include-history', '-q'])).code).toBe(0);
  briefs = (await readdir(path.join(demo, 'briefs'))).sort().map((b) => path.join(demo, 'briefs', b));
  baseline = (await decisions()).map(({ status, first }) => ({ status, first }));
  // The demo's duplicates are found through the store: the baseline is worth protecting.
  expect(baseline.filter((d) => d.status === 'duplicate_alert').length).toBeGreaterThanOrEqual(2);
});

afterAll(async () => {
  pg?.stop();
  await rm(tmp, { recursive: true, force: true });
});

describe("one teammate's rows cannot change anybody else's check", () => {
  test('a vector scaled by 50 and a document without a title: skipped and named; every status and first match as before', async () => {
    const [a, b] = await evilDocs();
    const [chunk] = await sql<{ id: string; v: string }>(`SELECT id::text AS id, embedding::text AS v FROM chunks WHERE document_id = $1 ORDER BY ordinal LIMIT 1`, [a.id]);
    const scaled = `[${chunk.v
      .slice(1, -1)
      .split(',')
      .map((x) => Number(x) * 50)
      .join(',')}]`;
    await sql(`UPDATE chunks SET embedding = $1::vector WHERE id = $2`, [scaled, chunk.id]);
    await sql(`UPDATE documents SET metadata = metadata - 'title' WHERE id = $1`, [b.id]);
    const after = await decisions();
    expect(after.map(({ status, first }) => ({ status, first }))).toEqual(baseline);
    const said = after.flatMap((d) => d.warnings).join('\n');
    expect(said).toContain(`store: skipped acme/evil:${a.path}: a vector of length`);
    expect(said).toContain(`store: skipped acme/evil:${b.path}: metadata has no title`);
  });

  test('negative term statistics: no score becomes NaN, every status and first match as before', async () => {
    await sql(`UPDATE repository_terms SET df = -1000 WHERE repository_id = (SELECT id FROM repositories WHERE name = 'acme/evil')`);
    const after = await decisions();
    expect(after.map(({ status, first }) => ({ status, first }))).toEqual(baseline);
  });

  test('negative document totals: the repository is left out and named', async () => {
    await sql(`UPDATE repositories SET docs = -5 WHERE name = 'acme/evil'`);
    const after = await decisions();
    expect(after.map(({ status, first }) => ({ status, first }))).toEqual(baseline);
    expect(after[0].warnings.join('\n')).toContain('store: skipped repository acme/evil: its document totals are not non-negative counts');
  });

  test("an attempt at time `infinity` is left on the server and named; the team's other records still warn", async () => {
    await mkdir(path.join(other, 'scripts'), { recursive: true });
    await writeFile(path.join(other, 'scripts', 'deploy.sh'), '#!/bin/sh\necho "error: staging refused the token" >&2\nexit 3\n');
    await chmod(path.join(other, 'scripts', 'deploy.sh'), 0o755);
    const row = (id: string, time: string) =>
      sql(
        `INSERT INTO attempts (id, repository, author, time, session_id, tool, command, outcome, exit_code, error, tags, cwd) VALUES ($1, 'acme/other', 'alice@acme.test', $2::timestamptz, 's1', 'Bash', './scripts/deploy.sh --target staging', 'failure', 3, 'error: staging refused the token', '[]'::jsonb, '.')`,
        [id, time],
      );
    await row('01HZZZZZZZZZZZZZZZZZZZZZZ1', 'infinity');
    await row('01HZZZZZZZZZZZZZZZZZZZZZZ2', new Date().toISOString());
    const r = await run(other, ['run', '--', './scripts/deploy.sh', '--target', 'staging'], { AGENTOS_AUTHOR: 'bob@acme.test' });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/This resembles a failure/);
    expect(r.stderr).toContain("1 of the team's attempt records were not imported: 01HZZZZZZZZZZZZZZZZZZZZZZ1 (alice@acme.test): its time is not a date");
    expect(r.stderr).not.toMatch(/Invalid time value|not shared with the team/);
  });
});
