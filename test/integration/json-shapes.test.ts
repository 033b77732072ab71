// SLOW: real model
// docs/json.md is the contract for `index`, `search` and `model fetch` too: the
// built CLI's real --json output has exactly the documented keys.
import { cliEnv } from '../helpers/cli.js';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import { compareWithDoc } from '../helpers/json-doc.js';
import { BIN, MODEL_DIR } from '../helpers/paths.js';

jest.setTimeout(180_000);
let tmp: string;
let root: string;

const run = (args: string[]) => {
  const env = cliEnv({ AGENTOS_CACHE_DIR: path.join(tmp, 'cache') });
  const r = spawnSync(process.execPath, [BIN, '-C', root, ...args], { env, encoding: 'utf8' });
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
};

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-json-'));
  root = path.join(tmp, 'project');
  await mkdir(path.join(root, '.agentos'), { recursive: true });
  await mkdir(path.join(root, 'docs', 'adrs'), { recursive: true });
  await writeFile(
    path.join(root, 'docs', 'adrs', '0001-logs.md'),
    '# ADR 1: JSON logs\n\nWe log JSON lines with a correlation id.\n',
  );
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test('index --json', () => {
  const { documented, actual } = compareWithDoc('index', run(['index', '--json']));
  expect(actual).toEqual(documented);
});

test('search --json (with a result, and the min score applied)', () => {
  const json = run(['search', 'JSON log lines', '--json']);
  expect((json.results as unknown[]).length).toBe(1);
  const { documented, actual } = compareWithDoc('search', json);
  expect(actual).toEqual(documented);
  // A query about nothing in the project: the minimum score leaves everything out, and says how much.
  const none = run(['search', 'quarterly invoice rounding in the billing export', '--json', '--min-score', '0.5']);
  expect(none).toMatchObject({ minScore: 0.5, results: [] });
  expect(none.belowMinScore).toBeGreaterThan(0);
});

test('model fetch --json (--from the provisioned model into a fresh folder)', () => {
  const json = run(['model', 'fetch', '--from', MODEL_DIR, '--to', path.join(tmp, 'models'), '--json']);
  expect(json.fetched).toContain('onnx/model_quantized.onnx');
  const { documented, actual } = compareWithDoc('model-fetch', json);
  expect(actual).toEqual(documented);
});
