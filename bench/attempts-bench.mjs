#!/usr/bin/env node
// Attempt memory benchmarks (issue 9). Whole processes, timed from outside:
//   - `agentos attempt check` as a fresh process with 10,000 recorded attempts,
//     against a bare `node -e ''` start (target: median <= 1.5x bare node);
//   - `agentos run -- true` against running `true` directly (target: overhead <= 80 ms);
//   - 8 processes recording 1,000 attempts each at once (all 8,000 present; throughput);
//   - one checkRepeat in-process over the 10,000 (the PRD's < 50 ms per lookup).
// Runs of each kind are interleaved, so load on the shared machine hits both alike.
//
//   node bench/attempts-bench.mjs [--runs N] [--attempts 10000] [--writers 8] [--per-writer 1000] [--json-out FILE]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, DIST, fmt, log, summarize, table } from './lib/common.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};

/** Spawn and time one process; resolves with wall ms and exit code. */
function timeProcess(cmd, args, { cwd, input = '' } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, {
      cwd,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: performance.now() - t0, code, out, err }));
    if (input) child.stdin.end(input);
  });
}

const PACKAGES = [
  'redis-node',
  'ioredis',
  'express',
  'fastify',
  'left-pad',
  'lodash',
  'jsonwebtoken',
  'pg',
  'mysql2',
  'sharp',
  'bcrypt',
  'zod',
];
const CONTEXTS = [
  'Add Redis caching',
  'Add authentication',
  'Fix flaky tests',
  'Upgrade dependencies',
  'Speed up the build',
  'Ship the release',
  null,
];
/** A realistic mix: installs, tests, builds, git, docker; failures 40%; spread over 45 days. */
function syntheticAttempt(i, now) {
  const pkg = PACKAGES[i % PACKAGES.length];
  const kinds = [
    () => `npm install ${pkg}@${1 + (i % 7)}.${i % 13}.${i % 5}`,
    () => `pytest tests/test_${['auth', 'api', 'cache', 'db'][i % 4]}_${i % 97}.py -x`,
    () => `cargo build --release --bin tool${i % 31}`,
    () => `git checkout ${(0x1000000 + i * 7919).toString(16)}`,
    () => `docker build -t app:${i} .`,
    () => `go test ./pkg/module${i % 53}/...`,
    () => `make target-${i % 211}`,
  ];
  const failure = i % 5 < 2;
  return {
    tool: i % 3 === 0 ? 'Bash' : 'shell',
    command: kinds[i % kinds.length](),
    outcome: failure ? 'failure' : 'success',
    exitCode: failure ? 1 : 0,
    durationMs: 100 + (i % 5000),
    error: failure
      ? `Error: step ${i} failed\n  at something (file.js:${i % 300}:1)\nnpm ERR! code E${400 + (i % 5)}`
      : null,
    context: CONTEXTS[i % CONTEXTS.length],
    sessionId: `bench-${i % 40}`,
    time: new Date(now - (((i * 45 * 86_400_000) / 10_000) % (45 * 86_400_000))).toISOString(),
  };
}

export async function attemptsBench({ runs = 15, attempts = 10_000, writers = 8, perWriter = 1000, work } = {}) {
  const own = !work;
  work ??= mkdtempSync(path.join(os.tmpdir(), 'agentos-attempts-bench-'));
  // Fresh stores every run (a kept --work dir must not accumulate records).
  rmSync(path.join(work, 'project'), { recursive: true, force: true });
  rmSync(path.join(work, 'writers'), { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const result = { attempts, runs, writers, perWriter };
  try {
    const { openAttemptMemory } = await import(path.join(DIST, 'attempt-memory', 'open.js'));
    const { DEFAULT_CONFIG } = await import(path.join(DIST, 'shared', 'config', 'schema.js'));

    // ---- fill a store with N attempts (one transaction each, as agents record them) ----
    const root = path.join(work, 'project');
    mkdirSync(path.join(root, '.agentos'), { recursive: true });
    const now = Date.now();
    const mem = openAttemptMemory(root, DEFAULT_CONFIG, { cwd: root });
    const t0 = performance.now();
    for (let i = 0; i < attempts; i++) mem.record(syntheticAttempt(i, now));
    const fillMs = performance.now() - t0;
    result.singleWriter = { records: attempts, ms: fillMs, perSecond: attempts / (fillMs / 1000) };
    log(
      `filled ${attempts} attempts in ${(fillMs / 1000).toFixed(1)} s (${result.singleWriter.perSecond.toFixed(0)}/s, one process)`,
    );

    // ---- in-process lookup ----
    const probe = { tool: 'shell', command: 'npm install redis-node@4.6.0' };
    mem.checkRepeat(probe);
    const lookups = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      mem.checkRepeat(probe);
      lookups.push(performance.now() - t);
    }
    result.lookupInProcessMs = summarize(lookups);
    result.failuresInLookback = mem.list({ outcome: 'failure', since: new Date(now - 7 * 86_400_000) }).length;
    mem.close();

    // ---- fresh processes: bare node vs attempt check vs true vs run -- true ----
    const bare = [];
    const check = [];
    const trueMs = [];
    const runTrue = [];
    const checkArgs = [BIN, '-C', root, 'attempt', 'check', '--', 'npm', 'install', 'redis-node@4.6.0'];
    const first = await timeProcess(process.execPath, checkArgs, { cwd: root });
    if (first.code !== 0) throw new Error(`attempt check failed: ${first.err}`);
    result.checkSaysRepeat = /This resembles/.test(first.out);
    for (let i = 0; i < runs + 1; i++) {
      const b = await timeProcess(process.execPath, ['-e', ''], { cwd: root });
      const c = await timeProcess(process.execPath, checkArgs, { cwd: root });
      const t = await timeProcess('true', [], { cwd: root });
      const r = await timeProcess(process.execPath, [BIN, '-C', root, 'run', '--', 'true'], { cwd: root });
      if (r.code !== 0) throw new Error(`run -- true failed: ${r.err}`);
      if (i === 0) continue; // warm-up
      bare.push(b.ms);
      check.push(c.ms);
      trueMs.push(t.ms);
      runTrue.push(r.ms);
    }
    result.bareNodeMs = summarize(bare);
    result.checkMs = summarize(check);
    result.checkRatio = result.checkMs.median / result.bareNodeMs.median;
    result.trueMs = summarize(trueMs);
    result.runTrueMs = summarize(runTrue);
    result.runOverheadMs = result.runTrueMs.median - result.trueMs.median;
    log(
      `attempt check ${fmt(result.checkMs.median, 1)} ms vs bare node ${fmt(result.bareNodeMs.median, 1)} ms (x${result.checkRatio.toFixed(2)}); run -- true overhead ${fmt(result.runOverheadMs, 1)} ms`,
    );

    // ---- 8 writers at once ----
    const wroot = path.join(work, 'writers');
    mkdirSync(path.join(wroot, '.agentos'), { recursive: true });
    const script = path.join(work, 'writer.mjs');
    writeFileSync(
      script,
      `const { openAttemptMemory } = await import(${JSON.stringify(path.join(DIST, 'attempt-memory', 'open.js'))});
       const { DEFAULT_CONFIG } = await import(${JSON.stringify(path.join(DIST, 'shared', 'config', 'schema.js'))});
       const [root, w, n] = process.argv.slice(2);
       const m = openAttemptMemory(root, DEFAULT_CONFIG, { sessionId: 'writer-' + w });
       for (let i = 0; i < Number(n); i++) m.record({ tool: 'shell', command: 'echo writer ' + w + ' record ' + i, outcome: i % 2 ? 'success' : 'failure', error: i % 2 ? null : 'boom ' + i });
       m.close();`,
    );
    const tw = performance.now();
    const done = await Promise.all(
      Array.from({ length: writers }, (_, w) =>
        timeProcess(process.execPath, [script, wroot, String(w), String(perWriter)], { cwd: wroot }),
      ),
    );
    const wallMs = performance.now() - tw;
    const failed = done.filter((d) => d.code !== 0);
    if (failed.length) throw new Error(`writer failed: ${failed[0].err}`);
    const check8 = openAttemptMemory(wroot, DEFAULT_CONFIG, { cwd: wroot });
    const present = check8.list({ includeArchived: true }).length;
    const distinct = new Set(check8.list({ includeArchived: true }).map((r) => r.command)).size;
    check8.close();
    result.concurrent = {
      writers,
      perWriter,
      expected: writers * perWriter,
      present,
      distinct,
      wallMs,
      perSecond: present / (wallMs / 1000),
    };
    log(
      `${writers} writers x ${perWriter}: ${present}/${writers * perWriter} present, ${result.concurrent.perSecond.toFixed(0)} records/s`,
    );
  } finally {
    if (own) rmSync(work, { recursive: true, force: true });
  }
  result.targets = {
    checkWithin1_5xBareNode: result.checkRatio <= 1.5,
    runOverheadWithin80ms: result.runOverheadMs <= 80,
    allConcurrentRecordsPresent:
      result.concurrent.present === result.concurrent.expected &&
      result.concurrent.distinct === result.concurrent.expected,
    lookupInProcessUnder50ms: result.lookupInProcessMs.median < 50,
  };
  return result;
}

export function renderAttempts(r) {
  const ms = (s) => (s ? `${fmt(s.min, 1)} / ${fmt(s.median, 1)} / ${fmt(s.max, 1)}` : '-');
  return [
    `Attempt memory (${r.attempts} attempts recorded, ${r.failuresInLookback} failures in the 7-day lookback; ${r.runs} runs, min / median / max ms)`,
    table(
      ['measure', 'ms', 'target', 'met'],
      [
        ['node -e "" (bare start)', ms(r.bareNodeMs), '', ''],
        [
          'agentos attempt check (fresh process)',
          ms(r.checkMs),
          `<= 1.5x bare (x${r.checkRatio.toFixed(2)})`,
          r.targets.checkWithin1_5xBareNode ? 'yes' : 'NO',
        ],
        ['true', ms(r.trueMs), '', ''],
        [
          'agentos run -- true',
          ms(r.runTrueMs),
          `overhead <= 80 (${fmt(r.runOverheadMs, 1)})`,
          r.targets.runOverheadWithin80ms ? 'yes' : 'NO',
        ],
        ['checkRepeat in-process', ms(r.lookupInProcessMs), '< 50', r.targets.lookupInProcessUnder50ms ? 'yes' : 'NO'],
      ],
    ),
    `one writer: ${r.singleWriter.records} records in ${fmt(r.singleWriter.ms / 1000, 1)} s (${fmt(r.singleWriter.perSecond)}/s, each its own transaction)`,
    `${r.concurrent.writers} writers x ${r.concurrent.perWriter} at once: ${r.concurrent.present} of ${r.concurrent.expected} present (${r.concurrent.distinct} distinct) in ${fmt(r.concurrent.wallMs / 1000, 1)} s = ${fmt(r.concurrent.perSecond)} records/s ${r.targets.allConcurrentRecordsPresent ? '' : ' MISSING RECORDS'}`,
    `attempt check answered "repeat" for the probe: ${r.checkSaysRepeat ? 'yes' : 'no'}`,
  ].join('\n');
}

// Run directly: print the table (and JSON with --json-out).
if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await attemptsBench({
    runs: Number(opt('runs', 15)),
    attempts: Number(opt('attempts', 10_000)),
    writers: Number(opt('writers', 8)),
    perWriter: Number(opt('per-writer', 1000)),
  });
  process.stdout.write(renderAttempts(r) + '\n');
  if (opt('json-out', null)) writeFileSync(opt('json-out'), JSON.stringify(r, null, 1));
}
