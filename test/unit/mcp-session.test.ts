/**
 * The MCP server's long-lived session (src/agents/mcp/session.ts) without the model: a config
 * edited between calls is picked up; an invalid one keeps the last valid config and is
 * reported with every answer until it is fixed; concurrent calls share one reload.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ProjectSession } from '../../src/agents/mcp/session.js';

let root: string;
const config = (text: string) => writeFile(path.join(root, '.agentos', 'config.yaml'), text);

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'agentos-mcp-session-'));
  await mkdir(path.join(root, '.agentos'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

test('an edited config is used by the next call; an invalid one is said with every answer, the last valid one answering', async () => {
  await config('thresholds:\n  duplicate: 0.9\n  related: 0.5\n');
  const s = await ProjectSession.open(root, {}, 'test');
  expect(s.config.thresholds.duplicate).toBe(0.9);
  expect(await s.refresh()).toEqual([]);

  await config('thresholds:\n  duplicate: 0.95\n  related: 0.5\n');
  expect(await s.refresh()).toEqual([]);
  expect(s.config.thresholds.duplicate).toBe(0.95);

  await config('thresholds: [not, a, map\n');
  const [problem] = await s.refresh();
  expect(problem).toMatch(/config\.yaml is invalid .*last valid config/);
  expect(await s.refresh()).toEqual([problem]); // still said on the next call
  expect(s.config.thresholds.duplicate).toBe(0.95);

  await config('thresholds:\n  duplicate: 0.88\n  related: 0.5\n');
  const both = await Promise.all([s.refresh(), s.refresh()]);
  expect(both).toEqual([[], []]);
  expect(s.config.thresholds.duplicate).toBe(0.88);
  s.close();
});

test('invalid at start-up: the server starts on the defaults and says so with every answer, until the file is fixed', async () => {
  await config('thresholds: [not, a, map\n');
  const s = await ProjectSession.open(root, {}, 'test');
  expect(s.config.thresholds.duplicate).toBe(0.85);
  const [problem] = await s.refresh();
  expect(problem).toMatch(/config\.yaml is invalid .*default config until it is fixed/);
  expect(await s.refresh()).toEqual([problem]);
  await config('thresholds:\n  duplicate: 0.9\n  related: 0.5\n');
  expect(await s.refresh()).toEqual([]);
  expect(s.config.thresholds.duplicate).toBe(0.9);
  s.close();
});

test('no index: the store answers "missing" and nothing is kept for the next call to trip on', async () => {
  const s = await ProjectSession.open(root, {}, 'test');
  expect(s.generation()).toBeNull();
  await expect(s.openIndex()).rejects.toMatchObject({ reason: 'missing' });
  await expect(s.openIndex()).rejects.toMatchObject({ reason: 'missing' });
  s.close();
});

test('the attempt memory: reading with nothing recorded creates nothing; a record opens it once, and reads then use it', async () => {
  const s = await ProjectSession.open(root, {}, 'test');
  const empty = await s.attempts('read');
  expect(empty.list()).toEqual([]);
  expect(existsSync(path.join(root, '.agentos', 'memory', 'attempts.db'))).toBe(false);
  const [a, b] = await Promise.all([s.attempts('write'), s.attempts('write')]);
  expect(a).toBe(b);
  a.record({ tool: 'shell', command: 'make', outcome: 'failure' });
  expect((await s.attempts('read')).list().map((r) => r.command)).toEqual(['make']);
  s.close();
});
