// SLOW: npm install of the packed package (about a minute: hnswlib-node compiles)
// Issue 8 §3 as an npm user meets it: `npm pack`, then `npm install <tarball>` in
// a fresh scratch project with no special environment (the onnxruntime
// variables removed), from the local registry cache; `npx agentos --help`; a
// missing model is exit 5 and one line; `agentos model fetch` from a local
// stand-in for the hub; then a real `agentos index`.
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import { ExitCode } from '../../src/shared/errors.js';
import { RUNTIME_MISSING } from '../../src/work-memory/embeddings/minilm.js';
import { startHub } from '../helpers/hub-server.js';
import { spawnCollect } from '../helpers/spawn-collect.js';
import { MODEL_DIR, REPO } from '../helpers/paths.js';

jest.setTimeout(600_000);

let tmp: string;
let scratch: string;
let cache: string;
let install: SpawnSyncReturns<string>;

/** The user's environment: none of ours (model dir, onnxruntime install flags, CI). */
function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(ONNXRUNTIME_|AGENTOS_|npm_|CI$|NO_COLOR$|FORCE_COLOR$)/i.test(k)) continue;
    env[k] = v;
  }
  return { ...env, AGENTOS_CACHE_DIR: cache, ...extra };
}

const npm = (args: string[], cwd: string) => spawnSync('npm', args, { cwd, env: userEnv(), encoding: 'utf8' });
/** Async: the stand-in hub is served from this process, so a blocking spawnSync would starve it. */
function agentosAsync(
  args: string[],
  extra: NodeJS.ProcessEnv = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return spawnCollect(path.join(scratch, 'node_modules', '.bin', 'agentos'), args, {
    cwd: scratch,
    env: userEnv(extra),
  }).then(({ code, stdout, stderr }) => ({ status: code, stdout, stderr }));
}
const agentos = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
  spawnSync(path.join(scratch, 'node_modules', '.bin', 'agentos'), args, {
    cwd: scratch,
    env: userEnv(extra),
    encoding: 'utf8',
  });

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-install-'));
  scratch = path.join(tmp, 'project');
  cache = path.join(tmp, 'user-cache');
  await mkdir(path.join(scratch, 'docs', 'adrs'), { recursive: true });
  await writeFile(
    path.join(scratch, 'package.json'),
    JSON.stringify({ name: 'scratch', version: '1.0.0', private: true }),
  );
  await writeFile(
    path.join(scratch, 'docs', 'adrs', '0001-logs.md'),
    '# ADR 1: JSON logs\n\nWe log JSON lines with a correlation id.\n',
  );
  const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', tmp], {
    cwd: REPO,
    encoding: 'utf8',
    env: userEnv(),
  })
    .trim()
    .split('\n')
    .pop()!;
  const started = Date.now();
  install = npm(['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(tmp, packed)], scratch);
  process.stderr.write(
    `install of ${packed}: exit ${install.status} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
});

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test('npm install <tarball> succeeds in a fresh project, no special environment (README, Install)', () => {
  expect(install.stderr).not.toMatch(/npm error/);
  expect(install.status).toBe(0);
  expect(existsSync(path.join(scratch, 'node_modules', 'agentos-cli', 'dist', 'cli', 'cli.js'))).toBe(true);
  // Carried for nothing before: Transformers.js and what it brings.
  for (const gone of ['@huggingface/transformers', 'onnxruntime-web', 'sharp'])
    expect(existsSync(path.join(scratch, 'node_modules', gone))).toBe(false);
});

test("--version is the installed package's (read from the bundle in dist/main/, not a copy)", () => {
  const r = agentos(['--version']);
  expect(r.status).toBe(0);
  const pkg = JSON.parse(readFileSync(path.join(scratch, 'node_modules', 'agentos-cli', 'package.json'), 'utf8')) as {
    version: string;
  };
  expect(r.stdout.trim()).toBe(pkg.version);
  expect(existsSync(path.join(scratch, 'node_modules', 'agentos-cli', 'dist', 'main', 'index.cjs'))).toBe(true);
});

test('npx agentos --help works', () => {
  const r = spawnSync('npx', ['--no-install', 'agentos', '--help'], { cwd: scratch, env: userEnv(), encoding: 'utf8' });
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/^Usage: agentos/);
  expect(r.stdout).toContain('model');
});

test("the per-tool-call route works from the installed package (bundle, vendored yaml, SQLite from the user's node_modules)", () => {
  expect(agentos(['init', '--yes']).status).toBe(0); // a config.yaml: the vendored yaml parses it
  const rec = agentos([
    'attempt',
    'record',
    '--outcome',
    'failure',
    '--command',
    'npm install redis-node',
    '--error',
    '404 Not Found',
  ]);
  expect(rec.status).toBe(0);
  const check = agentos(['attempt', 'check', '--json', '--', 'npm', 'install', 'redis-node']);
  expect(check.status).toBe(0);
  expect(JSON.parse(check.stdout)).toMatchObject({ status: 'ok', repeat: true });
  const payload = JSON.stringify({
    session_id: 's',
    cwd: scratch,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'npm install redis-node' },
  });
  const hook = spawnSync(path.join(scratch, 'node_modules', '.bin', 'agentos'), ['hooks', 'run', 'pre-tool-use'], {
    cwd: scratch,
    env: userEnv(),
    encoding: 'utf8',
    input: payload,
  });
  expect(hook.stderr).toBe('');
  expect(hook.status).toBe(0);
  expect(JSON.parse(hook.stdout).hookSpecificOutput.additionalContext).toMatch(
    /this was tried on \d{4}-\d\d-\d\d and failed: "404 Not Found/,
  );
  rmSync(path.join(scratch, '.agentos'), { recursive: true, force: true }); // the tests below start from no config
});

test('no model yet: exit 5 and one line saying to run `agentos model fetch` (never "fetch failed")', () => {
  const r = agentos(['index']);
  expect(r.status).toBe(ExitCode.ModelUnavailable);
  const lines = r.stderr
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('agentos:'));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain('run `agentos model fetch`');
  expect(r.stderr).not.toMatch(/fetch failed|provision-model\.sh/);
});

test('agentos model fetch from a stand-in hub, then a real index (installing the runtime first when npm left it out)', async () => {
  const hub = await startHub(MODEL_DIR);
  try {
    const f = await agentosAsync(['model', 'fetch', '--json'], { AGENTOS_HUB_URL: hub.url });
    expect(f.stderr).not.toContain('agentos:');
    expect(f.status).toBe(0);
    const j = JSON.parse(f.stdout);
    expect(j.fetched).toContain('onnx/model_quantized.onnx');
    expect(j.folder).toBe(path.join(cache, 'models', 'Xenova', 'all-MiniLM-L6-v2'));
  } finally {
    await hub.close();
  }
  const runtime = existsSync(path.join(scratch, 'node_modules', 'onnxruntime-node'));
  if (!runtime) {
    // Offline, onnxruntime-node's install script (CUDA download) fails and npm leaves the optional package out: say how to add it.
    const r = agentos(['index']);
    expect(r.status).toBe(ExitCode.ModelUnavailable);
    expect(r.stderr).toContain(RUNTIME_MISSING);
    const add = npm(
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        'onnxruntime-node@1.30.0',
        '--onnxruntime-node-install=skip',
      ],
      scratch,
    );
    expect(add.status).toBe(0);
  }
  const r = agentos(['index']);
  expect(r.stderr).not.toMatch(/weights changed/);
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/Index updated \(standards only\)/);
  expect(readdirSync(path.join(scratch, '.agentos'))).toContain('index');

  // A brief checked from the installed package: the model loads in the worker bin/ starts (ADR-0013).
  await writeFile(
    path.join(scratch, 'brief.md'),
    '# Speed up the CI pipeline\n\nDocker builds take too long; cache the layers.\n',
  );
  const start = agentos(['issue', 'start', 'brief.md', '--non-interactive', '--json']);
  expect(start.stderr).not.toMatch(/check failed|terminate called|Napi::Error/);
  expect(start.status).toBe(0);
  const json = JSON.parse(start.stdout) as { status: string; standards: { method: string; error: string | null } };
  expect(json.status).toBe('no_history'); // standards only were indexed
  expect(json.standards).toMatchObject({
    method: expect.stringMatching(/^embedding:Xenova\/all-MiniLM-L6-v2@/),
    error: null,
  });
});

test('from a clone, as the README says: `npm install -g .` puts `agentos` on PATH (a prefix in a scratch folder)', () => {
  const prefix = path.join(tmp, 'global');
  const r = spawnSync('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '.'], {
    cwd: REPO,
    env: userEnv(),
    encoding: 'utf8',
  });
  expect([r.status, r.stderr]).toEqual([0, expect.not.stringMatching(/npm error/)]);
  const bin = path.join(prefix, 'bin', 'agentos');
  expect(existsSync(bin)).toBe(true);
  const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { name: string; version: string };
  expect(pkg.name).toBe('agentos-cli');
  const v = spawnSync(bin, ['--version'], {
    cwd: tmp,
    env: { ...userEnv(), PATH: `${path.join(prefix, 'bin')}:${process.env.PATH}` },
    encoding: 'utf8',
  });
  expect([v.status, v.stdout.trim()]).toEqual([0, pkg.version]);
});
