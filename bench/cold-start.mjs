// Cold `agentos issue start --non-interactive --json`: a fresh process per run,
// timed from outside (wall, peak RSS) and split into phases with the timings the
// command prints plus the marks bench/lib/timed-entry.mjs records.
import path from 'node:path';
import { REPO, agentos, childEnv, log, parseJsonOut, runProcess, summarize, summarizeFields } from './lib/common.mjs';

/**
 * Phases of one run (ms). They add up to the wall time:
 *   boot         spawn -> first line of the entry (exec, node start-up)
 *   cliImport    static imports of bin/agentos.js (dist/cli/cli.js, commander)
 *   setupOutput  everything in the command outside the check: config, brief, the
 *                lazily imported issue-start modules, logger, compose, file writes, JSON
 *   check        the check (checkMs): model and index load in parallel, embed, query
 *   exit         last stdout write -> process gone (teardown, native destructors)
 * and inside the check: modelLoad, indexLoad (overlapping), embed, query.
 */
function phases(res, out) {
  const tm = res.timing;
  const t = out.timings ?? {};
  const check = t.checkMs ?? null;
  const p = {
    wall: res.wallMs,
    peakRssMb: res.peakRssKb ? res.peakRssKb / 1024 : null,
    cpuMs: res.cpuMs,
    check,
    modelLoad: t.modelLoadMs ?? null,
    indexLoad: t.indexLoadMs ?? null,
    embed: t.embedMs ?? null,
    query: t.queryMs ?? null,
  };
  if (tm) {
    p.boot = tm.firstLine - res.spawnedAt;
    p.cliImport = tm.importEnd - tm.firstLine;
    p.setupOutput = check === null ? null : tm.lastStdout - tm.importEnd - check;
    p.exit = res.endedAt - tm.lastStdout;
  }
  // The check's critical path before embedding: the slower of model and index load.
  if (check !== null && p.embed !== null && p.query !== null) p.load = check - p.embed - p.query;
  return p;
}

export const COLD_FIELDS = [
  'wall',
  'boot',
  'cliImport',
  'setupOutput',
  'check',
  'load',
  'modelLoad',
  'indexLoad',
  'embed',
  'query',
  'exit',
  'peakRssMb',
  'cpuMs',
];

export async function coldStart({ label, root, brief, runs = 5, warmup = 1, chunks = null }) {
  const args = agentos(['-C', root, 'issue', 'start', brief, '--non-interactive', '--json']);
  const all = [];
  // A bare `node -e 0` before each run (issue 50): the ratio to it, in the same run, is the target, not a wall time.
  const bare = [];
  let status = null;
  for (let i = 0; i < warmup + runs; i++) {
    const b = await runProcess(['-e', '0'], { cwd: root });
    const res = await runProcess(args, { cwd: root, timed: true });
    const out = parseJsonOut(res, `issue start (${label})`);
    if (out.error) throw new Error(`issue start (${label}) failed open: ${out.error}`);
    status = out.status;
    all.push(phases(res, out));
    if (i >= warmup) bare.push({ wall: b.wallMs, cpuMs: b.cpuMs });
  }
  const first = warmup > 0 ? all[0] : null;
  const measured = all.slice(warmup);
  const summary = summarizeFields(measured, COLD_FIELDS);
  const bareSummary = summarizeFields(bare, ['wall', 'cpuMs']);
  const ratio = {
    wall: summary.wall.median / bareSummary.wall.median,
    cpu: summary.cpuMs && bareSummary.cpuMs ? summary.cpuMs.median / bareSummary.cpuMs.median : null,
  };
  log(
    `cold issue start ${label}: median wall ${summary.wall.median.toFixed(0)} ms (${status}); bare node ${bareSummary.wall.median.toFixed(0)} ms: x${ratio.wall.toFixed(2)} wall, x${ratio.cpu?.toFixed(2) ?? '-'} CPU`,
  );
  return {
    label,
    root,
    brief: path.relative(root, brief),
    runs,
    warmup,
    status,
    chunks,
    first,
    samples: measured,
    summary,
    bare: bareSummary,
    ratio,
  };
}

/** Import-only cost of the modules a cold start loads, each in a fresh process. */
export async function importProfile({ runs = 5 } = {}) {
  const probe = path.join(REPO, 'bench', 'lib', 'import-probe.mjs');
  const targets = [
    ['dist/cli/cli.js (entry)', path.join(REPO, 'dist', 'cli', 'cli.js')],
    ['issue-start command', path.join(REPO, 'dist', 'cli', 'commands', 'issue-start', 'index.js')],
    ['onnxruntime-node', 'onnxruntime-node'],
    ['@huggingface/tokenizers', '@huggingface/tokenizers'],
    ['@huggingface/transformers', '@huggingface/transformers'],
    ['hnswlib-node', 'hnswlib-node'],
    ['pino', 'pino'],
    ['yaml', 'yaml'],
    ['commander', 'commander'],
    ['chalk', 'chalk'],
  ];
  const rows = [];
  // Bare node start-up: the floor under every process.
  const bare = [];
  for (let i = 0; i < runs + 1; i++) bare.push((await runProcess(['-e', '0'])).wallMs);
  rows.push({
    module: 'node -e 0 (bare start-up, wall)',
    importMs: summarize(bare.slice(1)),
    wallMs: summarize(bare.slice(1)),
  });
  for (const [name, spec] of targets) {
    const imp = [];
    const wall = [];
    for (let i = 0; i < runs + 1; i++) {
      const res = await runProcess([probe, spec], { env: childEnv() });
      if (res.code !== 0) {
        imp.push(NaN);
        continue;
      }
      if (i === 0) continue; // warm-up: file cache
      imp.push(JSON.parse(res.stdout.trim().split('\n').pop()).importMs);
      wall.push(res.wallMs);
    }
    rows.push({ module: name, importMs: summarize(imp), wallMs: summarize(wall) });
  }
  log(
    `import profile: ${rows.map((r) => `${r.module.split(' ')[0]} ${r.importMs ? r.importMs.median.toFixed(0) : '-'}`).join(', ')}`,
  );
  return rows;
}

/** Where model load and the first embedding go, in a fresh process per run and mode. */
export async function modelProfile({ root, brief, runs = 3 }) {
  const probe = path.join(REPO, 'bench', 'lib', 'model-probe.mjs');
  const samples = [];
  for (let i = 0; i < runs + 1; i++) {
    const sample = {};
    for (const mode of ['embedder', 'fresh', 'onnx', 'cached']) {
      const res = await runProcess([probe, root, brief, mode], { env: childEnv() });
      if (res.code !== 0) throw new Error(`model probe (${mode}) exited ${res.code}\n${res.stderr.slice(-2000)}`);
      const r = JSON.parse(res.stdout.trim().split('\n').pop());
      if (mode !== 'embedder') delete r.importOrtMs;
      if (mode === 'fresh') delete r.importTokenizersMs;
      Object.assign(sample, r);
    }
    if (i > 0) samples.push(sample);
  }
  const fields = Object.keys(samples[0]).filter((k) => typeof samples[0][k] === 'number');
  return { runs, summary: summarizeFields(samples, fields) };
}

/** Loading the index step by step (as openGeneration does), in a fresh process per run. */
export async function indexLoadProfile({ root, runs = 3 }) {
  const probe = path.join(REPO, 'bench', 'lib', 'index-load-probe.mjs');
  const samples = [];
  for (let i = 0; i < runs + 1; i++) {
    const res = await runProcess([probe, root], { env: childEnv() });
    if (res.code !== 0) throw new Error(`index load probe exited ${res.code}\n${res.stderr.slice(-2000)}`);
    if (i > 0) samples.push(JSON.parse(res.stdout.trim().split('\n').pop()));
  }
  const fields = Object.keys(samples[0]).filter((k) => typeof samples[0][k] === 'number');
  return { runs, summary: summarizeFields(samples, fields) };
}
