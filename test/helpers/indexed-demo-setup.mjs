// globalSetup of the slow tests: the demo indexed once per run (test/helpers/cli.ts indexedDemo).
// Each suite copies it instead of embedding the same 36 documents again (~3 s each).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export default function setup() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'agentos-indexed-demo-'));
  const root = path.join(tmp, 'demo');
  const demo = path.join(repo, 'fixtures', 'demo-repo');
  cpSync(demo, root, { recursive: true, filter: (src) => !path.relative(demo, src).split(path.sep).includes('.agentos') });
  mkdirSync(path.join(root, '.git'), { recursive: true });
  writeFileSync(path.join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  const env = { ...process.env, AGENTOS_MODEL_DIR: path.join(repo, '.agentos', 'models'), NO_COLOR: '1' };
  const r = spawnSync(process.execPath, [path.join(repo, 'bin', 'agentos.js'), '-C', root, 'index', '--include-history', '-q'], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`indexing the demo for the slow tests failed (${r.status}): ${r.stderr}`);
  process.env.AGENTOS_TEST_INDEXED_DEMO = root;
  globalThis.__agentosIndexedDemo = tmp;
}
