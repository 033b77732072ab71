// Shared helpers: paths, statistics, process measurement, tables.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = path.join(REPO, 'bin', 'agentos.js');
export const DIST = path.join(REPO, 'dist');
export const TIMED_ENTRY = path.join(REPO, 'bench', 'lib', 'timed-entry.mjs');
export const MODEL_DIR = process.env.AGENTOS_MODEL_DIR
  ? path.resolve(process.env.AGENTOS_MODEL_DIR)
  : path.join(REPO, '.agentos', 'models');
export const MODEL_ID = 'Xenova/all-MiniLM-L6-v2';
// The default dtype's file (int8, MatMulInteger); the q8 file is today's option.
export const ONNX_FILE = path.join(MODEL_DIR, MODEL_ID, 'onnx', 'model_int8.onnx');
export const ONNX_FILE_Q8 = path.join(MODEL_DIR, MODEL_ID, 'onnx', 'model_quantized.onnx');
const GNU_TIME = '/usr/bin/time';
export const HAVE_GNU_TIME = existsSync(GNU_TIME);

/**
 * Where the embedder caches its optimised ONNX graph: as the CLI decides it
 * (modelCacheDir in dist/work-memory/index/model-setup.js) when that exists, else the older
 * per-project place.
 */
export async function ortCacheDir(root) {
  const setup = await dist('work-memory/index/model-setup.js');
  return typeof setup.modelCacheDir === 'function'
    ? setup.modelCacheDir(process.env)
    : path.join(root, '.agentos', 'cache');
}

/** Import a compiled module of agentos by its path under dist/. */
export function dist(rel) {
  return import(path.join(DIST, rel));
}

/** Environment for every spawned agentos process. */
export function childEnv(extra = {}) {
  return { ...process.env, AGENTOS_MODEL_DIR: MODEL_DIR, NO_COLOR: '1', FORCE_COLOR: '0', ...extra };
}

export const now = () => performance.timeOrigin + performance.now();

export function summarize(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const q = (p) => {
    const idx = (v.length - 1) * p;
    const lo = Math.floor(idx);
    const hi = Math.ceil(idx);
    return v[lo] + (v[hi] - v[lo]) * (idx - lo);
  };
  return {
    n: v.length,
    min: v[0],
    median: q(0.5),
    p95: q(0.95),
    max: v[v.length - 1],
    mean: v.reduce((a, b) => a + b, 0) / v.length,
  };
}

/** Summaries of each numeric field across a list of records. */
export function summarizeFields(records, fields) {
  const out = {};
  for (const f of fields) out[f] = summarize(records.map((r) => r[f]));
  return out;
}

export async function tempDir(prefix) {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Run a whole process and measure it from outside: wall time around the spawn,
 * peak RSS from GNU time (%M, KiB) when present. With `timed`, the process runs
 * through bench/lib/timed-entry.mjs, which reports when node had booted, when
 * the CLI modules were imported, when stdout was last written, and its own
 * maxRSS; these give the phase split of a cold start.
 */
export async function runProcess(
  args,
  { cwd = REPO, env = childEnv(), timed = false, node = process.execPath, input, tee = false } = {},
) {
  const timingFile = path.join(
    os.tmpdir(),
    `agentos-bench-timing-${process.pid}-${Math.random().toString(36).slice(2)}.json`,
  );
  const rssFile = `${timingFile}.rss`;
  const nodeArgs = timed ? [TIMED_ENTRY, ...args] : args;
  const cmd = HAVE_GNU_TIME ? GNU_TIME : node;
  const cmdArgs = HAVE_GNU_TIME ? ['-f', '%M %U %S', '-o', rssFile, node, ...nodeArgs] : nodeArgs;
  const childEnvironment = timed ? { ...env, BENCH_TIMING_OUT: timingFile } : env;
  const stdout = [];
  const stderr = [];
  const spawnedAt = now();
  const t0 = performance.now();
  const code = await new Promise((resolve, reject) => {
    const child = spawn(cmd, cmdArgs, { cwd, env: childEnvironment, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => stdout.push(d));
    child.stderr.on('data', (d) => {
      stderr.push(d);
      if (tee) process.stderr.write(d);
    });
    child.on('error', reject);
    child.on('close', (c) => resolve(c));
    child.stdin.end(input ?? '');
  });
  const wallMs = performance.now() - t0;
  const endedAt = now();
  let peakRssKb = null;
  let cpuMs = null;
  if (HAVE_GNU_TIME && existsSync(rssFile)) {
    // GNU time prints "Command exited with non-zero status" first when the child failed.
    const lines = readFileSync(rssFile, 'utf8').trim().split('\n');
    const [rss, user, sys] = lines[lines.length - 1].trim().split(/\s+/).map(Number);
    peakRssKb = rss || null;
    cpuMs = Number.isFinite(user + sys) ? (user + sys) * 1000 : null;
    rmSync(rssFile, { force: true });
  }
  let timing = null;
  if (timed && existsSync(timingFile)) {
    timing = JSON.parse(readFileSync(timingFile, 'utf8'));
    rmSync(timingFile, { force: true });
    if (peakRssKb === null) peakRssKb = timing.maxRssKb;
  }
  return {
    code,
    wallMs,
    spawnedAt,
    endedAt,
    peakRssKb,
    cpuMs,
    timing,
    stdout: Buffer.concat(stdout).toString('utf8'),
    stderr: Buffer.concat(stderr).toString('utf8'),
  };
}

/** Parse the last JSON document a command printed (agentos prints one with --json). */
export function parseJsonOut(res, what) {
  if (res.code !== 0 && res.code !== 3) {
    throw new Error(`${what} exited ${res.code}\n${res.stderr.slice(-2000)}`);
  }
  const s = res.stdout;
  const start = s.indexOf('{');
  if (start < 0) throw new Error(`${what}: no JSON on stdout\n${s.slice(0, 500)}\n${res.stderr.slice(-1000)}`);
  return JSON.parse(s.slice(start));
}

export function agentos(args) {
  return [BIN, ...args];
}

export function machineInfo() {
  let cpuModel = os.cpus()[0]?.model ?? 'unknown';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) cpuModel = m[1].trim();
  } catch {
    /* not Linux */
  }
  return {
    nproc: typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length,
    cpuModel,
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    totalMemMb: Math.round(os.totalmem() / 2 ** 20),
  };
}

/** The commit measured, and whether src/ differed from it (others edit the tree while benches run). */
export function gitState() {
  const git = (...args) =>
    execFileSync('git', args, { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    return {
      commit: git('rev-parse', '--short', 'HEAD'),
      subject: git('log', '-1', '--format=%s').slice(0, 120),
      srcDirty: git('status', '--porcelain', '--', 'src', 'bin').length > 0,
    };
  } catch {
    return null;
  }
}

export function loadAvg() {
  return os.loadavg().map((x) => Number(x.toFixed(2)));
}

/** Fixed-width text table. `rows` are arrays of cells (already formatted strings). */
export function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i] ?? '').length)));
  const line = (cells) =>
    cells.map((c, i) => (i === 0 ? String(c ?? '').padEnd(widths[i]) : String(c ?? '').padStart(widths[i]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function fmt(x, digits = 0) {
  if (x === null || x === undefined || Number.isNaN(x)) return '-';
  return Number(x).toFixed(digits);
}

/** "min / median / max" of a summary. */
export function mmm(s, digits = 0, scale = 1) {
  if (!s) return '-';
  return `${fmt(s.min * scale, digits)} / ${fmt(s.median * scale, digits)} / ${fmt(s.max * scale, digits)}`;
}

/** Load average at each log line, kept so the results say how busy the machine was. */
export const loadSamples = [];

export function log(msg) {
  const load = os.loadavg()[0];
  loadSamples.push({ at: new Date().toISOString(), load1: Number(load.toFixed(2)), msg });
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)} load ${load.toFixed(2)}] ${msg}\n`);
}

/** Write a JSON document to a child's stdout marker line and read it back: used by in-process benchmark children. */
export const RESULT_MARK = '@@BENCH_RESULT@@';

export function emitResult(obj) {
  process.stdout.write(`\n${RESULT_MARK}${JSON.stringify(obj)}\n`);
}

export function readResult(res, what) {
  if (res.code !== 0) throw new Error(`${what} exited ${res.code}\n${res.stderr.slice(-3000)}`);
  const line = res.stdout.split('\n').find((l) => l.startsWith(RESULT_MARK));
  if (!line) throw new Error(`${what}: no result\n${res.stdout.slice(-1000)}\n${res.stderr.slice(-2000)}`);
  return JSON.parse(line.slice(RESULT_MARK.length));
}
