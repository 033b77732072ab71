// SLOW: the real server (bin/agentos.js mcp), the real model and index, the SDK's own client.
// `agentos mcp` spawned by the MCP TypeScript SDK's StdioClientTransport, as an agent
// starts it: initialize, list tools, call each tool, malformed and huge arguments, an
// index rebuilt under a running server, and the client going away mid-call.
import { cliEnv, indexedDemo, runCli } from '../helpers/cli.js';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { jest } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN } from '../helpers/paths.js';

jest.setTimeout(240_000);

let tmp: string;
let root: string;
const env = () => cliEnv({ HOME: tmp }) as Record<string, string>;
const brief = (name: string) => readFileSync(path.join(root, 'briefs', `${name}.md`), 'utf8');

function cli(args: string[]): Promise<number | null> {
  return new Promise((resolve) =>
    spawn(process.execPath, [BIN, '-C', root, ...args], { env: { ...env(), CI: 'true' }, stdio: 'ignore' }).on(
      'close',
      resolve,
    ),
  );
}

async function connect(): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '-C', root, 'mcp'],
    env: env(),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'agentos-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

type Result = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
};
const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as Result;
const text = (r: Result) => r.content.map((c) => c.text ?? '').join('\n');

let shared: Awaited<ReturnType<typeof connect>>;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-mcp-'));
  root = path.join(tmp, 'demo');
  await indexedDemo(root);
  shared = await connect();
});

afterAll(async () => {
  await shared?.client.close();
  await rm(tmp, { recursive: true, force: true });
});

test('the demo copied from the once-per-run index is fresh (its files keep the mtimes the manifest recorded)', async () => {
  const r = await runCli(['-C', root, 'status', '--json']);
  expect((JSON.parse(r.stdout) as { index: { state: string } }).index.state).toBe('fresh');
});

describe('agentos mcp with the SDK client', () => {
  test('initialize names the server and says when to use it; the seven tools are listed with their schemas', async () => {
    const { client } = shared;
    expect(client.getServerVersion()?.name).toBe('agentos');
    expect(client.getInstructions()).toMatch(/check_brief/);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'attempt_check',
      'attempt_record',
      'check_brief',
      'recall',
      'search_history',
      'standards_for',
      'worked_on',
    ]);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.check_brief.inputSchema).toMatchObject({ type: 'object', required: ['brief'] });
    expect(byName.attempt_record.inputSchema.required?.sort()).toEqual(['command', 'outcome']);
    expect(byName.check_brief.annotations?.readOnlyHint).toBe(true);
    expect(byName.attempt_record.annotations?.readOnlyHint).toBe(false);
    for (const t of tools) expect(t.description?.length).toBeGreaterThan(40);
  });

  test('check_brief decides as issue start does: the re-filed work alerts, the unrelated brief is clear, the logging brief gets its ADR', async () => {
    const dup = await call(shared.client, 'check_brief', { brief: brief('optimize-docker-build-times') });
    expect(dup.isError).toBeFalsy();
    const s = dup.structuredContent as {
      status: string;
      matches: Array<{ id: string; kind: string; why: string[]; score: number }>;
      standards: Array<{ path: string }>;
    };
    expect(s.status).toBe('duplicate_alert');
    expect(s.matches[0]).toMatchObject({ id: '27', kind: 'duplicate' });
    expect(s.matches[0].why.length).toBeGreaterThan(0);
    expect(text(dup)).toMatch(/^Status: duplicate_alert\./);
    expect(text(dup)).toContain('Same work: #27');

    const clear = await call(shared.client, 'check_brief', { brief: brief('unrelated-onboarding-tour') });
    expect((clear.structuredContent as { status: string }).status).toBe('clear');

    const logging = await call(shared.client, 'check_brief', { brief: brief('fix-logging-bug') });
    const paths = (logging.structuredContent as { standards: Array<{ path: string }> }).standards.map((x) => x.path);
    expect(paths.some((p) => p.includes('adrs/0002'))).toBe(true);
  });

  test('search_history, standards_for, worked_on and recall answer from the open index', async () => {
    const search = await call(shared.client, 'search_history', { query: 'docker build cache for CI images', limit: 3 });
    const results = (search.structuredContent as { results: Array<{ path: string; score: number }> }).results;
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(3);
    expect(results[0].path).toMatch(/27|container-image/);
    expect(text(search)).toMatch(/^1\. /);

    const standards = await call(shared.client, 'standards_for', { text: brief('fix-logging-bug') });
    expect((standards.structuredContent as { results: Array<{ path: string }> }).results[0].path).toMatch(/adrs\/0002/);

    const worked = await call(shared.client, 'worked_on', { topic: 'docker' });
    expect((worked.structuredContent as { totalItems: number }).totalItems).toBeGreaterThan(0);
    expect(text(worked)).toMatch(/Docker/);

    const recall = await call(shared.client, 'recall', {});
    expect(text(recall)).toMatch(/Recent completed work/);
  });

  test('attempt_record then attempt_check warns with the cause; check_brief shows what failed during the matched work', async () => {
    const rec = await call(shared.client, 'attempt_record', {
      command: 'npm install redis-node',
      outcome: 'failure',
      exitCode: 1,
      work: '#27',
      error:
        'npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/redis-node - Not found\nnpm error A complete log of this run can be found in: /home/u/.npm/_logs/x.log',
    });
    expect(rec.isError).toBeFalsy();
    expect((rec.structuredContent as { recorded: { cause: string; work: string } }).recorded).toMatchObject({
      cause: expect.stringContaining('404 Not Found'),
      work: '27',
    });

    const check = await call(shared.client, 'attempt_check', { command: 'npm i redis-node@4' });
    expect((check.structuredContent as { repeat: boolean }).repeat).toBe(true);
    expect(text(check)).toContain('404 Not Found');
    const other = await call(shared.client, 'attempt_check', { command: 'cargo build --release' });
    expect((other.structuredContent as { repeat: boolean }).repeat).toBe(false);

    const dup = await call(shared.client, 'check_brief', { brief: brief('optimize-docker-build-times') });
    const top = (
      dup.structuredContent as {
        matches: Array<{ id: string; tried: Array<{ failure: { command: string; cause: string } }> }>;
      }
    ).matches[0];
    expect(top.tried.map((t) => t.failure.command)).toEqual(['npm install redis-node']);
    expect(text(dup)).toContain('tried: failed (');
  });

  test('malformed arguments and an unknown tool are errors that name the problem; the server keeps serving', async () => {
    const missing = await call(shared.client, 'check_brief', {});
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/brief/);
    // A brief of blanks is no brief: refused, not checked and called clear.
    const blank = await call(shared.client, 'check_brief', { brief: '   \n\t ' });
    expect(blank.isError).toBe(true);
    expect(text(blank)).toMatch(/brief is empty/);
    const wrongType = await call(shared.client, 'search_history', { query: 42 });
    expect(wrongType.isError).toBe(true);
    expect(text(wrongType)).toMatch(/query/);
    const badOutcome = await call(shared.client, 'attempt_record', { command: 'x', outcome: 'maybe' });
    expect(badOutcome.isError).toBe(true);
    const badSince = await call(shared.client, 'worked_on', { since: 'last tuesday' });
    expect(badSince.isError).toBe(true);
    expect(text(badSince)).toMatch(/since/);
    // Off the calendar, and an age whose date would leave year 0 (issue 31): refused like the CLI's --since.
    for (const since of ['2026-02-30', '100000y']) {
      const r = await call(shared.client, 'worked_on', { since });
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/calendar date/);
    }
    let unknown: string;
    try {
      unknown = text(await call(shared.client, 'drop_tables', {}));
    } catch (e) {
      unknown = (e as Error).message;
    }
    expect(unknown).toMatch(/drop_tables/);
    expect((await call(shared.client, 'attempt_check', { command: 'ls' })).isError).toBeFalsy();
  });

  test('a huge brief is refused with its size; one just under the limit is read in part and answered', async () => {
    const huge = await call(shared.client, 'check_brief', { brief: `# Huge\n\n${'word '.repeat(260_000)}` });
    expect(huge.isError).toBe(true);
    expect(text(huge)).toMatch(/longer than 1,000,000 characters/);
    const large = await call(shared.client, 'check_brief', {
      brief: `# Docker build caching again\n\n${'Speed up docker builds in CI with a build cache. '.repeat(18_000)}`,
    });
    expect(large.isError).toBeFalsy();
    const s = large.structuredContent as { status: string; warnings: string[] };
    expect(s.status).not.toBe('error');
    expect(s.warnings.join(' ')).toMatch(/first|part|characters/i);
  });

  test('an index rebuilt while the server runs is used by the next call', async () => {
    const dir = path.join(root, 'docs', 'audit', 'done', '95-zstd-artifact-compression');
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, '001-issue.md'),
      '---\nstatus: done\n---\n# Compress build artifacts with zstd\n\nArtifacts are uploaded as gzip tarballs; switch the artifact uploader to zstd level 19 to cut storage by a third.\n',
    );
    expect(await cli(['index', '--include-history', '-q'])).toBe(0);
    const r = await call(shared.client, 'search_history', {
      query: 'zstd compression of uploaded build artifacts',
      type: 'history',
      limit: 1,
    });
    expect((r.structuredContent as { results: Array<{ id: string }> }).results[0]?.id).toBe('95');
  });
});

describe('the client going away', () => {
  test('mid-call: the server ends on its own (no SIGTERM needed), logs it, and the attempt store stays whole', async () => {
    const { client, transport } = await connect();
    const pending = call(client, 'check_brief', { brief: brief('propose-multi-stage-builds') }).catch((e: Error) => e);
    const recording = call(client, 'attempt_record', {
      command: 'make build',
      outcome: 'failure',
      error: 'make: *** [build] Error 2',
    }).catch((e: Error) => e);
    await new Promise((r) => setTimeout(r, 30));
    const pid = transport.pid;
    const t0 = performance.now();
    await client.close();
    const closeMs = performance.now() - t0;
    await Promise.all([pending, recording]);
    // StdioClientTransport.close ends stdin, waits up to 2 s, then sends SIGTERM: well under that means the server left by itself.
    expect(closeMs).toBeLessThan(1500);
    expect(pid).not.toBeNull();
    expect(() => process.kill(pid as number, 0)).toThrow();
    const log = readFileSync(path.join(root, '.agentos', 'logs', 'agentos.log'), 'utf8');
    expect(log).toMatch(/"event":"mcp_closed"/);
    const db = path.join(root, '.agentos', 'memory', 'attempts.db');
    expect(existsSync(db)).toBe(true);
    const Database = createRequire(import.meta.url)('better-sqlite3');
    const conn = new Database(db, { readonly: true });
    expect(conn.pragma('integrity_check', { simple: true })).toBe('ok');
    conn.close();
  });

  test('stdout carries only the protocol: a garbage line is skipped, and every line written is JSON-RPC', async () => {
    const child = spawn(process.execPath, [BIN, '-C', root, 'mcp'], { env: env(), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('close', r));
    child.stdin.write('this is not json\n');
    child.stdin.write(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      }) + '\n',
    );
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) + '\n');
    const deadline = Date.now() + 20_000;
    while (!out.includes('"id":2') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.stdin.end();
    expect(await exited).toBe(0);
    const lines = out.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const l of lines) expect(JSON.parse(l)).toMatchObject({ jsonrpc: '2.0' });
    expect(lines.map((l) => (JSON.parse(l) as { id?: number }).id)).toEqual(expect.arrayContaining([1, 2]));
  });
});
