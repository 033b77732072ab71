// SLOW: real model
// `agentos issue start` end to end: the built CLI (bin/agentos.js -> dist/), the
// real model and a real index of a temp copy of fixtures/demo-repo (indexed with
// --include-history once, in beforeAll). The duplicate prompt is driven through
// a real pseudo-terminal (util-linux `script`), since
// agentos only prompts when stdin is a TTY and CI is unset.
import { cliEnv, copyDemo } from '../helpers/cli.js';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import Module from 'node:module';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import { loadConfig } from '../../src/shared/config/load.js';
import type { Embedder } from '../../src/work-memory/embeddings/embedder.js';
import { modelSetup } from '../../src/work-memory/index/model-setup.js';
import { buildIndex } from '../../src/work-memory/index/build.js';
import { stripAgentosSections } from '../../src/work-memory/output/sections.js';
import { BIN, MODEL_DIR, REPO } from '../helpers/paths.js';
import { spawnCollect, type Collected } from '../helpers/spawn-collect.js';

jest.setTimeout(180_000);

const DOCKER = 'briefs/optimize-docker-build-times.md';
const LOGGING = 'briefs/fix-logging-bug.md';
const ONBOARDING = 'briefs/unrelated-onboarding-tour.md';
const MULTI_STAGE = 'briefs/propose-multi-stage-builds.md';
const SESSION = 'briefs/session-refresh.md';
const ISSUE_27 = 'docs/audit/done/27-docker-build-optimization/001-issue.md';
const STACK_TRACE = /\n\s+at .+:\d+:\d+/;

let tmp: string;
let root: string;

type RunResult = Collected;

/** The shared policy (test/helpers/cli.ts), colour left to each test. */
function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return cliEnv({ NO_COLOR: undefined, ...extra });
}

function run(args: string[], extraEnv: NodeJS.ProcessEnv = {}, projectRoot = root): Promise<RunResult> {
  return spawnCollect(process.execPath, [BIN, '-C', projectRoot, ...args], {
    cwd: REPO,
    env: childEnv({ NO_COLOR: '1', ...extraEnv }),
  });
}

let outN = 0;
const freshOut = () => path.join(tmp, 'out', String(++outN), 'brief.md');
const abs = (rel: string) => path.join(root, rel);

/** `issue start --non-interactive --json`, with the brief checked byte-identical afterwards. */
async function startJson(brief: string, extra: string[] = []) {
  const before = await readFile(abs(brief));
  const out = freshOut();
  const r = await run(['issue', 'start', abs(brief), '--non-interactive', '--json', '-o', out, ...extra]);
  expect(r.stderr).not.toMatch(STACK_TRACE);
  expect(r.stderr).not.toMatch(/Historian check failed/);
  const json = JSON.parse(r.stdout);
  expect(await readFile(abs(brief))).toEqual(before);
  return { r, json, out, input: before.toString('utf8') };
}

// ---- pseudo-terminal -------------------------------------------------------

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * How to run a command on a pty: util-linux `script` (Debian's bsdutils, always
 * installed). Without it the prompt tests fail rather than skip: a skipped test
 * would hide that the real prompt went untested.
 */
function ptyLauncher(): ((cmd: string) => [string, string[]]) | null {
  const script = spawnSync('script', ['--version'], { encoding: 'utf8' });
  if (script.status === 0 && /util-linux/.test(script.stdout + script.stderr))
    return (cmd) => ['script', ['-qfec', cmd, '/dev/null']];
  return null;
}
const launcher = ptyLauncher();

const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

/**
 * Run `issue start` on a pty; when the prompt appears, type `keys`. Returns the
 * terminal transcript (stdout and stderr of agentos, ANSI codes removed).
 */
function runOnPty(
  args: string[],
  keys: string | null,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; output: string; prompted: boolean }> {
  const cmd = [process.execPath, BIN, '-C', root, ...args].map(shq).join(' ');
  if (!launcher) throw new Error('no pseudo-terminal: util-linux `script` is required to drive the real prompt');
  const [file, argv] = launcher(cmd);
  const child = spawn(file, argv, {
    cwd: REPO,
    env: childEnv({ TERM: 'xterm', ...extraEnv }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let raw = '';
  let prompted = false;
  child.stdout.on('data', (d: Buffer) => {
    raw += d.toString();
    if (!prompted && stripAnsi(raw).includes('What now?')) {
      prompted = true;
      // The keys go in once the prompt is drawn (and has put the terminal in raw mode).
      if (keys !== null) setTimeout(() => child.stdin.write(keys), 300);
    }
  });
  child.stderr.on('data', (d: Buffer) => (raw += d.toString()));
  // A prompt that never gets its answer would hang the suite: give up loudly instead.
  const guard = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, output: stripAnsi(raw), prompted });
    });
  });
}

async function logLines(): Promise<Array<Record<string, unknown>>> {
  try {
    return (await readFile(abs('.agentos/logs/agentos.log'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  } catch {
    return [];
  }
}

// Every prompt test starts without past answers: an Ignore is remembered per brief (issue 20), and
// these tests answer the same brief again and again.
beforeEach(async () => rm(path.join(root, '.agentos', 'memory', 'answers.jsonl'), { force: true }));

// ---- setup -----------------------------------------------------------------

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-issue-'));
  root = path.join(tmp, 'demo');
  await copyDemo(root);
  const { config } = await loadConfig(root);
  const setup = modelSetup({ AGENTOS_MODEL_DIR: MODEL_DIR }, config, root);
  const embedder: Embedder = await setup.load();
  try {
    const r = await buildIndex({
      root,
      config,
      includeHistory: true,
      full: false,
      model: setup.identity,
      loadEmbedder: async () => embedder,
      lockWaitMs: 0,
    });
    expect(r.wrote).toBe(true);
  } finally {
    await (embedder as { dispose?: () => Promise<void> }).dispose?.();
  }
});

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

// ---- non-interactive ---------------------------------------------------------

describe('issue start --non-interactive --json on the demo briefs', () => {
  test('optimize-docker-build-times: duplicate alert, top match #27, linked by policy', async () => {
    const { r, json, out, input } = await startJson(DOCKER);
    expect(r.code).toBe(0);
    expect(json.status).toBe('duplicate_alert');
    expect(json.matches[0]).toMatchObject({ id: '27', title: 'Docker Build Optimization', path: ISSUE_27 });
    expect(json.matches[0].score).toBeGreaterThanOrEqual(0.85);
    expect(json).toMatchObject({ decision: 'link', decidedBy: 'policy', error: null, output: out });
    expect(json.linked).toMatchObject({ id: '27', path: ISSUE_27 });
    expect(json.method).toMatch(/^embedding:Xenova\/all-MiniLM-L6-v2@(int8|q8)\+hnsw$/); // auto: int8 where provisioned
    expect(r.stderr).toContain('Similar past work detected');
    expect(r.stderr).toContain('Not prompting (non-interactive): applying --on-duplicate link.');

    const written = await readFile(out, 'utf8');
    expect(written.startsWith(input.trimEnd())).toBe(true);
    expect(written).toContain('## Linked Past Work');
    expect(written).toContain(ISSUE_27);
    // check.json beside the brief records the same result.
    const check = JSON.parse(await readFile(path.join(path.dirname(out), 'check.json'), 'utf8'));
    expect(check).toMatchObject({ status: 'duplicate_alert', decision: 'link', output: out });
  });

  test('fix-logging-bug: at least related, #91 among the matches, Related Past Work added', async () => {
    const { r, json, out, input } = await startJson(LOGGING);
    expect(r.code).toBe(0);
    expect(['related_context', 'duplicate_alert']).toContain(json.status);
    expect(json.matches.map((m: { id: string }) => m.id)).toContain('91');
    const written = await readFile(out, 'utf8');
    expect(written.startsWith(input.trimEnd())).toBe(true);
    if (json.status === 'related_context') {
      expect(json.decision).toBe('proceed');
      expect(json.decidedBy).toBe('none');
      expect(written).toContain('## Related Past Work');
      expect(written).toMatch(/Issue #91: /);
      expect(r.stderr).toContain('Related past work');
    } else {
      expect(written).toContain('## Linked Past Work');
    }
  });

  test('unrelated-onboarding-tour: clear, and the brief to use is the input unchanged', async () => {
    const { r, json, out } = await startJson(ONBOARDING);
    expect(r.code).toBe(0);
    expect(json).toMatchObject({
      status: 'clear',
      decision: 'proceed',
      decidedBy: 'none',
      matches: [],
      linked: null,
      error: null,
    });
    expect(json.nearest.length).toBeGreaterThan(0); // it did look
    expect(json.standards.items).toEqual([]);
    expect(await readFile(out)).toEqual(await readFile(abs(ONBOARDING)));
    expect(r.stderr).toContain('No similar past work found.');
  });

  test('propose-multi-stage-builds: alert on #34, shown as REJECTED with its reason', async () => {
    const { r, json } = await startJson(MULTI_STAGE);
    expect(r.code).toBe(0);
    expect(json.status).toBe('duplicate_alert');
    const m34 = json.matches.find((m: { id: string }) => m.id === '34');
    expect(m34).toBeDefined();
    expect(m34.status).toBe('rejected');
    expect(m34.statusReason).toMatch(/ADR-0005/);
    expect(m34.score).toBeGreaterThanOrEqual(0.85);
    expect(r.stderr).toMatch(/Issue #34: Multi-stage Docker builds/);
    expect(r.stderr).toMatch(/REJECTED/);
    expect(r.stderr).toContain('ADR-0005');
  });

  test('session-refresh: ADR-0004 is among the relevant standards, in the brief to use', async () => {
    const { r, json, out } = await startJson(SESSION);
    expect(r.code).toBe(0);
    const items = json.standards.items as Array<{ filePath: string; source: string; score: number }>;
    const adr = items.find((s) => s.filePath === 'docs/adrs/0004-authentication-oidc-short-lived-jwt.md');
    expect(adr).toBeDefined();
    expect(adr!.source).toBe('retrieved');
    expect(adr!.score).toBeGreaterThanOrEqual(0.7);
    const written = await readFile(out, 'utf8');
    expect(written).toContain('## Relevant Standards');
    expect(written).toContain('docs/adrs/0004-authentication-oidc-short-lived-jwt.md');
  });

  test('no index at all: fails open (exit 0, status error) and says how to build one', async () => {
    const bare = path.join(tmp, 'bare');
    await copyDemo(bare);
    const brief = path.join(bare, DOCKER);
    const out = freshOut();
    const child = await run(['issue', 'start', brief, '--non-interactive', '--json', '-o', out], {}, bare);
    expect(child.code).toBe(0);
    expect(child.stderr).toContain('Historian check failed:');
    expect(child.stderr).toContain('Vector store not found. Run `agentos index`.');
    expect(child.stderr).not.toMatch(STACK_TRACE);
    const json = JSON.parse(child.stdout);
    expect(json.status).toBe('error');
    expect(json.error).toMatch(/no index/);
    expect(await readFile(out)).toEqual(await readFile(brief));
  });

  test('the model loads in the worker bin/agentos.js starts, or in-process: the same answer either way', async () => {
    // Everything the check decided (not timings, the output path or the index's age).
    const comparable = (j: Record<string, unknown>) =>
      JSON.stringify([
        j.status,
        j.decision,
        j.method,
        j.error,
        j.matches,
        j.nearest,
        j.linked,
        j.standards,
        j.warnings,
      ]);
    for (const brief of [DOCKER, LOGGING]) {
      const viaWorker = await startJson(brief);
      const inProcess = await run(['issue', 'start', abs(brief), '--non-interactive', '--json', '-o', freshOut()], {
        AGENTOS_NO_MODEL_WORKER: '1',
      });
      expect(inProcess.code).toBe(viaWorker.r.code);
      expect(comparable(JSON.parse(inProcess.stdout))).toBe(comparable(viaWorker.json));
      expect(viaWorker.json.method).toMatch(/^embedding:/);
    }
    // And the worker really ran the model (main hands it down; nothing finds it in a global).
    const said = async (env: NodeJS.ProcessEnv) =>
      (
        await run(['--verbose', 'issue', 'start', abs(DOCKER), '--non-interactive', '-o', freshOut()], env)
      ).stderr.match(/debug: model session: (\S+)/)?.[1];
    expect(await said({})).toBe('worker');
    expect(await said({ AGENTOS_NO_MODEL_WORKER: '1' })).toBe('in-process');
  });

  test("V8's code cache of the bundle (bin/code-cache.js, Node 20): written once, then used; a damaged one is rejected and rewritten; the answer the same", async () => {
    const cacheRoot = path.join(tmp, 'code-cache-home');
    const files = () =>
      existsSync(path.join(cacheRoot, 'code-cache')) ? readdirSync(path.join(cacheRoot, 'code-cache')) : [];
    const comparable = (stdout: string) => {
      const j = JSON.parse(stdout) as Record<string, unknown>;
      return JSON.stringify([j.status, j.decision, j.matches, j.nearest, j.standards]);
    };
    const check = () =>
      run(['issue', 'start', abs(DOCKER), '--non-interactive', '--json', '-o', freshOut()], {
        AGENTOS_CACHE_DIR: cacheRoot,
      });
    const first = await check();
    expect(first.code).toBe(0);
    // Node 22.1+ has its own (module.enableCompileCache, which bin/agentos.js turns on): nothing of ours then.
    if (typeof (Module as { enableCompileCache?: unknown }).enableCompileCache === 'function') {
      expect(files()).toEqual([]);
      return;
    }
    const written = files();
    expect(written).toHaveLength(1); // the main bundle's: one file per bundle path
    const cacheFile = path.join(cacheRoot, 'code-cache', written[0]);
    const bytes = readFileSync(cacheFile);
    expect(bytes.length).toBeGreaterThan(10_000);
    // From the cache: the same answer (the ES-module-only tokenizer imported through the bin's import()), the file left as it was.
    const second = await check();
    expect(second.code).toBe(0);
    expect(comparable(second.stdout)).toBe(comparable(first.stdout));
    expect(readFileSync(cacheFile).equals(bytes)).toBe(true);
    // Damaged (another program's bytes under its name): V8 rejects it, the command runs as before and writes it anew.
    writeFileSync(cacheFile, Buffer.alloc(bytes.length, 7));
    const third = await check();
    expect(third.code).toBe(0);
    expect(comparable(third.stdout)).toBe(comparable(first.stdout));
    expect(readFileSync(cacheFile).equals(Buffer.alloc(bytes.length, 7))).toBe(false);
    // Writable by others (not this user's alone): not used, and written anew as this user's.
    chmodSync(cacheFile, 0o666);
    const fourth = await check();
    expect(fourth.code).toBe(0);
    expect(comparable(fourth.stdout)).toBe(comparable(first.stdout));
    expect(statSync(cacheFile).mode & 0o077).toBe(0);
    // Node's own switch turns it off: nothing read or written.
    rmSync(path.join(cacheRoot, 'code-cache'), { recursive: true, force: true });
    const off = await run(['issue', 'start', abs(DOCKER), '--non-interactive', '--json', '-o', freshOut()], {
      AGENTOS_CACHE_DIR: cacheRoot,
      NODE_DISABLE_COMPILE_CACHE: '1',
    });
    expect(off.code).toBe(0);
    expect(files()).toEqual([]);
    // Installs at other paths (npx, other clones) write their own: the folder keeps at most 12, the newest.
    mkdirSync(path.join(cacheRoot, 'code-cache'), { recursive: true, mode: 0o700 });
    for (let i = 0; i < 20; i++) {
      const other = path.join(cacheRoot, 'code-cache', `other${String(i).padStart(2, '0')}-x.bin`);
      writeFileSync(other, 'x', { mode: 0o600 });
      utimesSync(other, 1_000_000 + i, 1_000_000 + i);
    }
    expect((await check()).code).toBe(0);
    const kept = files();
    expect(kept).toHaveLength(12);
    expect(kept).toContain(written[0]);
    expect(kept.filter((f) => f.startsWith('other')).sort()).toEqual(
      Array.from({ length: 11 }, (_, i) => `other${String(i + 9).padStart(2, '0')}-x.bin`),
    );
  });

  test('ending while the worker is still loading the runtime exits cleanly (no abort from inside ONNX Runtime)', async () => {
    // Without an index the command ends within ~0.1 s of its start, while the worker is in
    // ONNX Runtime's native start-up; ending the thread then aborted the process (SIGABRT,
    // "terminate called after throwing an instance of 'Napi::Error'") in 10 runs of 15.
    const bare = path.join(tmp, 'bare-early-exit');
    await copyDemo(bare);
    for (let i = 0; i < 6; i++) {
      const failedOpen = await run(
        ['issue', 'start', path.join(bare, DOCKER), '--non-interactive', '-o', freshOut()],
        {},
        bare,
      );
      expect({ code: failedOpen.code, signal: failedOpen.signal ?? null }).toEqual({ code: 0, signal: null });
      expect(failedOpen.stderr).not.toMatch(/terminate called|Napi::Error|Aborted/);
      const badBrief = await run(
        ['issue', 'start', path.join(bare, 'briefs', 'missing.md'), '--non-interactive'],
        {},
        bare,
      );
      expect({ code: badBrief.code, signal: badBrief.signal ?? null }).toEqual({ code: 2, signal: null });
      expect(badBrief.stderr).not.toMatch(/terminate called|Napi::Error/);
    }
  });

  test('--on-duplicate abort: exit 3 and nothing written', async () => {
    const out = freshOut();
    const r = await run(['issue', 'start', abs(DOCKER), '--non-interactive', '--on-duplicate', 'abort', '-o', out]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('Aborted: this appears to duplicate #27');
    expect(existsSync(path.dirname(out))).toBe(false);
  });
});

// ---- the real prompt on a pseudo-terminal -------------------------------------------

describe('the duplicate prompt on a real terminal', () => {
  let briefBytes: Buffer;
  beforeAll(async () => {
    briefBytes = await readFile(abs(DOCKER));
  });
  afterEach(async () => {
    // Whatever was answered, the user's brief is never touched.
    expect(await readFile(abs(DOCKER))).toEqual(briefBytes);
  });

  const newLogLines = async (before: number) => (await logLines()).slice(before);

  test("'a' aborts: exit 3, nothing written, logged as the user's decision", async () => {
    const out = freshOut();
    const logBefore = (await logLines()).length;
    const r = await runOnPty(['issue', 'start', abs(DOCKER), '-o', out], 'a\r');
    expect(r.prompted).toBe(true);
    expect(r.code).toBe(3);
    expect(r.output).toContain('Aborted: this appears to duplicate #27');
    expect(existsSync(out)).toBe(false);
    expect(existsSync(path.dirname(out))).toBe(false);
    const decision = (await newLogLines(logBefore)).find((l) => l.event === 'decision');
    expect(decision).toMatchObject({ decision: 'abort', decidedBy: 'user', status: 'duplicate_alert', brief: DOCKER });
  });

  test("'l' links: exit 0, the brief to use names #27 under Linked Past Work", async () => {
    const out = freshOut();
    const logBefore = (await logLines()).length;
    const r = await runOnPty(['issue', 'start', abs(DOCKER), '-o', out], 'l\r');
    expect(r.prompted).toBe(true);
    expect(r.code).toBe(0);
    const written = await readFile(out, 'utf8');
    expect(written).toContain('## Linked Past Work');
    expect(written).toContain(ISSUE_27);
    expect(written).toContain('Issue #27: Docker Build Optimization');
    const decision = (await newLogLines(logBefore)).find((l) => l.event === 'decision');
    expect(decision).toMatchObject({
      decision: 'link',
      decidedBy: 'user',
      linked: { issueId: '27', filePath: ISSUE_27 },
    });
  });

  test("'i' ignores: exit 0, the brief to use is the input plus only the Relevant Standards section", async () => {
    const out = freshOut();
    const r = await runOnPty(['issue', 'start', abs(DOCKER), '-o', out], 'i\r');
    expect(r.prompted).toBe(true);
    expect(r.code).toBe(0);
    const input = briefBytes.toString('utf8');
    const written = await readFile(out, 'utf8');
    expect(written).not.toContain('Linked Past Work');
    expect(written).not.toContain('Related Past Work');
    const tail = written.slice(input.trimEnd().length);
    expect(written.startsWith(input.trimEnd())).toBe(true);
    expect(tail).toMatch(
      /^\n\n<!-- agentos:relevant-standards -->\n## Relevant Standards\n[\s\S]*\n<!-- \/agentos:relevant-standards -->\n$/,
    );
    expect(stripAgentosSections(written)).toBe(input);
  });

  test('Enter alone takes the default (link)', async () => {
    const out = freshOut();
    const r = await runOnPty(['issue', 'start', abs(DOCKER), '-o', out], '\r');
    expect(r.prompted).toBe(true);
    expect(r.code).toBe(0);
    expect(await readFile(out, 'utf8')).toContain('## Linked Past Work');
  });

  test('Ctrl-C at the prompt: exit 130, nothing written, no stack trace', async () => {
    const out = freshOut();
    const logBefore = (await logLines()).length;
    const r = await runOnPty(['issue', 'start', abs(DOCKER), '-o', out], '\x03');
    expect(r.prompted).toBe(true);
    expect(r.code).toBe(130);
    expect(r.output).toContain('Cancelled: nothing was written.');
    expect(r.output).not.toMatch(STACK_TRACE);
    expect(r.output).not.toMatch(/ExitPromptError|unexpected error/);
    expect(existsSync(path.dirname(out))).toBe(false);
    const decision = (await newLogLines(logBefore)).find((l) => l.event === 'decision');
    expect(decision).toMatchObject({ decision: 'cancelled', decidedBy: 'user' });
  });

  test('with CI set there is no prompt even on a terminal: the policy applies', async () => {
    const out = freshOut();
    const r = await runOnPty(['issue', 'start', abs(DOCKER), '-o', out], null, { CI: 'true' });
    expect(r.prompted).toBe(false);
    expect(r.code).toBe(0);
    expect(r.output).toContain('Not prompting (non-interactive): applying --on-duplicate link.');
    expect(await readFile(out, 'utf8')).toContain('## Linked Past Work');
  });
});
