// SLOW: real model
// Terminal safety (issue 8 §4) on a real pseudo-terminal (util-linux `script`,
// whose PTY reports 0 columns unless `stty cols N` sets it): no escape flood on
// 0 columns or TERM=dumb, the spinner still animates on a real-width terminal,
// type-ahead before the prompt is discarded, and a redirected stderr never
// leaves a prompt waiting on a blank screen. The built CLI, the real model, a
// real index of a temp copy of the demo.
import { cliEnv, indexedDemo } from '../helpers/cli.js';
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import { BIN, REPO } from '../helpers/paths.js';

jest.setTimeout(180_000);

const DOCKER = 'briefs/optimize-docker-build-times.md';
let tmp: string;
let root: string;
/** A two-document project: the progress tests time the terminal, not the embedding. */
let small: string;
let outN = 0;

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const hasScript = /util-linux/.test(spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout ?? '');

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return cliEnv({ TERM: 'xterm', NO_COLOR: undefined, ...extra });
}

interface PtyRun {
  code: number | null;
  raw: string;
  bytes: number;
  prompted: boolean;
}

/**
 * `shell` runs on a PTY (`stty` first, then agentos). `early` is typed right
 * away (type-ahead, while agentos is still checking); `answer` once the prompt shows.
 */
function onPty(shell: string, o: { early?: string; answer?: string; env?: NodeJS.ProcessEnv } = {}): Promise<PtyRun> {
  if (!hasScript) throw new Error('util-linux `script` is required for the terminal tests');
  const child = spawn('script', ['-qfec', shell, '/dev/null'], {
    cwd: REPO,
    env: env(o.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let raw = '';
  let bytes = 0;
  let prompted = false;
  if (o.early) setTimeout(() => child.stdin.write(o.early!), 150);
  const onData = (d: Buffer) => {
    bytes += d.length;
    if (raw.length < 1_000_000) raw += d.toString();
    if (!prompted && raw.includes('What now?')) {
      prompted = true;
      if (o.answer) setTimeout(() => child.stdin.write(o.answer!), 400);
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const guard = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, raw, bytes, prompted });
    });
  });
}

const agentos = (args: string[], project = root) => [process.execPath, BIN, '-C', project, ...args].map(shq).join(' ');
const CURSOR = /\x1b\[\?25[lh]|\x1b\[\d*[GK]/; // hide/show cursor, column moves, line erase: what a spinner redraws with

// Every prompt test starts without past answers: an Ignore is remembered per brief (issue 20), and
// these tests answer the same brief again and again.
beforeEach(async () => rm(path.join(root, '.agentos', 'memory', 'answers.jsonl'), { force: true }));

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-term-'));
  root = path.join(tmp, 'demo');
  await indexedDemo(root);
  small = path.join(tmp, 'small');
  await mkdir(path.join(small, '.agentos'), { recursive: true });
  await mkdir(path.join(small, 'docs', 'adrs'), { recursive: true });
  await writeFile(
    path.join(small, 'docs', 'adrs', '0001-logs.md'),
    '# ADR 1: JSON logs\n\nWe log JSON lines with a correlation id.\n',
  );
  await writeFile(
    path.join(small, 'docs', 'adrs', '0002-errors.md'),
    '# ADR 2: Exit codes\n\nEvery failure has a documented exit code.\n',
  );
});

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('progress output', () => {
  test('a PTY with 0 columns: plain lines, no cursor escapes, a few hundred bytes, exit 0', async () => {
    const r = await onPty(`stty cols 0 rows 0; ${agentos(['index', '--full'], small)}`);
    expect(r.code).toBe(0);
    expect(r.raw).toContain('Index updated');
    expect(r.raw).not.toMatch(CURSOR);
    expect(r.bytes).toBeLessThan(20_000);
  });

  test('TERM=dumb at 100 columns: no cursor escapes either', async () => {
    const r = await onPty(`stty cols 100 rows 40; ${agentos(['index', '--full'], small)}`, { env: { TERM: 'dumb' } });
    expect(r.code).toBe(0);
    expect(r.raw).not.toMatch(CURSOR);
  });

  test('a real terminal (100 columns, xterm) still gets the spinner', async () => {
    const r = await onPty(`stty cols 100 rows 40; ${agentos(['index', '--full'], small)}`);
    expect(r.code).toBe(0);
    expect(r.raw).toMatch(CURSOR);
    expect(r.bytes).toBeLessThan(200_000);
  });
});

describe('the duplicate prompt', () => {
  test('an Enter typed while checking is discarded: the prompt waits for a real answer ("i" ignores)', async () => {
    const out = path.join(tmp, 'out', String(++outN), 'brief.md');
    const r = await onPty(`stty cols 100 rows 40; ${agentos(['issue', 'start', path.join(root, DOCKER), '-o', out])}`, {
      early: '\r',
      answer: 'i\r',
    });
    expect(r.prompted).toBe(true);
    expect(r.code).toBe(0);
    expect(r.raw).toContain('(Enter: Link)');
    // The early Enter would have taken Link.
    expect(await readFile(out, 'utf8')).not.toContain('Linked Past Work');
    const log = (await readFile(path.join(root, '.agentos/logs/agentos.log'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(log.filter((l) => l.event === 'decision').at(-1)).toMatchObject({
      decision: 'ignore',
      decidedBy: 'user',
      level: 'info',
    });
  });

  test('stderr redirected to a file: no prompt, the policy applies, the alert and the reason are in the file', async () => {
    const out = path.join(tmp, 'out', String(++outN), 'brief.md');
    const errFile = path.join(tmp, `stderr-${outN}.txt`);
    const r = await onPty(
      `stty cols 100 rows 40; ${agentos(['issue', 'start', path.join(root, DOCKER), '-o', out])} 2>${shq(errFile)}`,
    );
    expect(r.prompted).toBe(false);
    expect(r.code).toBe(0);
    const err = await readFile(errFile, 'utf8');
    expect(err).toContain('Similar past work detected');
    expect(err).toContain('Not prompting (non-interactive): applying --on-duplicate link.');
    expect(err).toContain('Linked Issue #27');
  });

  test('Ctrl-C at the prompt: exit 130, nothing written', async () => {
    const out = path.join(tmp, 'out', String(++outN), 'brief.md');
    const r = await onPty(`stty cols 0 rows 0; ${agentos(['issue', 'start', path.join(root, DOCKER), '-o', out])}`, {
      answer: '\x03',
    });
    expect(r.prompted).toBe(true);
    expect(r.code).toBe(130);
    await expect(readFile(out)).rejects.toThrow(/ENOENT/);
  });
});
