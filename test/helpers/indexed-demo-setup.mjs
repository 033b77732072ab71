// globalSetup of the slow tests: the demo indexed once per run (test/helpers/cli.ts indexedDemo).
// Each suite copies it instead of embedding the same 36 documents again (~3 s each).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export default function setup() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'agentos-indexed-demo-'));
  globalThis.__agentosIndexedDemo = tmp; // removed by the teardown even when indexing fails
  const root = path.join(tmp, 'demo');
  const demo = path.join(repo, 'fixtures', 'demo-repo');
  cpSync(demo, root, { recursive: true, filter: (src) => !path.relative(demo, src).split(path.sep).includes('.agentos') });
  mkdirSync(path.join(root, '.git'), { recursive: true });
  writeFileSync(path.join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  // Whole-second mtimes: a copy (fs.cp preserveTimestamps goes through a Date, whole
  // milliseconds only) then has exactly the mtimes the manifest recorded, so each suite's
  // copy is fresh, not a changed corpus to re-read.
  const whole = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
  const touch = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) touch(p);
      else utimesSync(p, whole, whole);
    }
  };
  touch(root);
  // The test environment policy of test/helpers/cli.ts (cliEnv), in plain JavaScript.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(AGENTOS_|CLAUDE_PROJECT_DIR$|GEMINI_PROJECT_DIR$|CURSOR_PROJECT_DIR$|CI$|FORCE_COLOR$|NO_COLOR$)/.test(k)));
  Object.assign(env, { AGENTOS_MODEL_DIR: path.join(repo, '.agentos', 'models'), NO_COLOR: '1' });
  const r = spawnSync(process.execPath, [path.join(repo, 'bin', 'agentos.js'), '-C', root, 'index', '--include-history', '-q'], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`indexing the demo for the slow tests failed (${r.status}): ${r.stderr}`);
  process.env.AGENTOS_TEST_INDEXED_DEMO = root;
}
