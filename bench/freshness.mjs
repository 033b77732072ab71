#!/usr/bin/env node
// What the freshness check (issue 8 §1) adds to a cold `issue start` when nothing
// changed: the stat scan of the corpus against the manifest, before the check.
//
//   node bench/freshness.mjs [--docs 1000] [--runs 7] [--baseline <checkout>] [--work <dir>] [--keep]
//
// For the demo corpus and a generated corpus of --docs documents (both indexed
// with --include-history first, not measured):
//   - scanMs: the command's own measure of the freshness step (read CURRENT and
//     the manifest, stat-scan the corpus, compare), from `--json` coverage;
//   - probe: the same step in a fresh process, import of the modules included
//     (bench/lib/freshness-probe.mjs), first call and warm calls;
//   - importMs: importing the issue-start command module (its whole static import
//     graph) in a fresh process, here and with --baseline in the other checkout:
//     the modules the refresh path adds (build, write, lock, freshness…);
//   - wall: cold `issue start --non-interactive --json` wall time, and with
//     --baseline the same command of another checkout (e.g. main before this
//     change, built) run interleaved on the same index, for a before/after.
// Wall times on a shared machine move by tens of ms; the scan figures are the
// precise ones. Results: bench/results/freshness-latest.json.
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { generateCorpus } from './generate-corpus.mjs';
import { ensureIndexed } from './index-bench.mjs';
import {
  REPO,
  childEnv,
  loadAvg,
  log,
  machineInfo,
  parseJsonOut,
  removeDir,
  runProcess,
  summarize,
  tempDir,
} from './lib/common.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};
const docs = Number(opt('docs', 1000));
const runs = Number(opt('runs', 7));
const baseline = opt('baseline', null) ? path.resolve(opt('baseline')) : null;
if (baseline && !existsSync(path.join(baseline, 'bin', 'agentos.js'))) {
  process.stderr.write(`--baseline ${baseline}: no bin/agentos.js there (a built agentos checkout is expected)\n`);
  process.exit(2);
}
const work = opt('work', null) ? path.resolve(opt('work')) : await tempDir('agentos-fresh-bench-');
await mkdir(work, { recursive: true });
process.env.AGENTOS_CACHE_DIR = path.join(work, 'ort-cache');

async function demo() {
  const root = path.join(work, 'demo');
  if (!existsSync(root)) {
    await cp(path.join(REPO, 'fixtures', 'demo-repo'), root, { recursive: true });
    await rm(path.join(root, '.agentos'), { recursive: true, force: true });
    await mkdir(path.join(root, '.agentos'), { recursive: true });
  }
  return { label: 'demo', root, brief: path.join(root, 'briefs', 'session-refresh.md') };
}

async function generated() {
  const root = path.join(work, `corpus${docs}`);
  if (!existsSync(root)) {
    await mkdir(path.join(root, '.agentos'), { recursive: true });
    await generateCorpus(root, { docs, seed: 42 });
  }
  return { label: `${docs} docs`, root, brief: path.join(root, 'briefs', 'new-work.md') };
}

/** Import time of the issue-start command module in a fresh process. */
async function importIssueStart(checkout) {
  const mod = path.join(checkout, 'dist', 'cli', 'commands', 'issue-start', 'index.js');
  const code = `const t = performance.now(); await import(${JSON.stringify(mod)}); process.stdout.write(String(performance.now() - t));`;
  const res = await runProcess(['--input-type=module', '-e', code], { env: childEnv() });
  if (res.code !== 0) throw new Error(`import of ${mod} failed\n${res.stderr}`);
  return Number(res.stdout.trim());
}

const issueStart = (bin, c) => [bin, '-C', c.root, 'issue', 'start', c.brief, '--non-interactive', '--json'];

async function measure(c) {
  if (!existsSync(path.join(c.root, '.agentos', 'index', 'CURRENT'))) {
    log(`indexing ${c.label} (not measured)…`);
    await ensureIndexed(c.root);
  }
  const probe = [];
  for (let i = 0; i < runs + 1; i++) {
    const res = await runProcess([path.join(REPO, 'bench', 'lib', 'freshness-probe.mjs'), c.root], { env: childEnv() });
    if (res.code !== 0) throw new Error(`freshness probe failed\n${res.stderr}`);
    if (i > 0) probe.push(JSON.parse(res.stdout.trim().split('\n').pop()));
  }
  const imp = { after: [], before: [] };
  for (let i = 0; i < runs + 1; i++) {
    const a = await importIssueStart(REPO);
    const b = baseline ? await importIssueStart(baseline) : null;
    if (i > 0) {
      imp.after.push(a);
      if (b !== null) imp.before.push(b);
    }
  }
  const after = [];
  const before = [];
  const scanMs = [];
  let state = null;
  for (let i = 0; i < runs + 1; i++) {
    const res = await runProcess(issueStart(path.join(REPO, 'bin', 'agentos.js'), c), { cwd: c.root });
    const out = parseJsonOut(res, `issue start (${c.label})`);
    state = out.coverage?.refresh?.state ?? null;
    if (state !== 'fresh') throw new Error(`${c.label}: expected a fresh index, got ${state}`);
    if (i > 0) {
      after.push(res.wallMs);
      scanMs.push(out.coverage.refresh.scanMs);
    }
    if (baseline) {
      const b = await runProcess(issueStart(path.join(baseline, 'bin', 'agentos.js'), c), { cwd: c.root });
      parseJsonOut(b, `baseline issue start (${c.label})`);
      if (i > 0) before.push(b.wallMs);
    }
  }
  const r = {
    label: c.label,
    files: probe[0].files,
    scanMs: summarize(scanMs),
    probe: {
      importMs: summarize(probe.map((p) => p.importMs)),
      firstMs: summarize(probe.map((p) => p.firstMs)),
      firstCpuMs: summarize(probe.map((p) => p.firstCpuMs)),
      warmMs: summarize(probe.map((p) => p.warmMs)),
    },
    importIssueStartMs: summarize(imp.after),
    baselineImportIssueStartMs: baseline ? summarize(imp.before) : null,
    wallMs: summarize(after),
    baselineWallMs: baseline ? summarize(before) : null,
  };
  log(
    `${c.label}: ${r.files} files, in-command scan median ${r.scanMs.median.toFixed(1)} ms; fresh process: import ${r.probe.importMs.median.toFixed(1)} ms + first scan ${r.probe.firstMs.median.toFixed(1)} ms (CPU ${r.probe.firstCpuMs.median.toFixed(1)} ms); ` +
      `import issue-start ${r.importIssueStartMs.median.toFixed(1)} ms${baseline ? ` vs baseline ${r.baselineImportIssueStartMs.median.toFixed(1)} ms` : ''}; ` +
      `cold issue start ${r.wallMs.median.toFixed(0)} ms${baseline ? ` vs baseline ${r.baselineWallMs.median.toFixed(0)} ms` : ''}`,
  );
  return r;
}

const results = {
  startedAt: new Date().toISOString(),
  machine: machineInfo(),
  loadAvgBefore: loadAvg(),
  runs,
  baseline,
  corpora: [],
};
try {
  for (const c of [await demo(), await generated()]) results.corpora.push(await measure(c));
} finally {
  results.loadAvgAfter = loadAvg();
  const dir = path.join(REPO, 'bench', 'results');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'freshness-latest.json'), JSON.stringify(results, null, 1));
  const f = (s) => (s ? `${s.median.toFixed(1)} (${s.min.toFixed(1)}-${s.max.toFixed(1)})` : '-');
  process.stdout.write(
    '\n| corpus | files | in-command scan ms | fresh-process import ms | first scan ms | first scan CPU ms | warm scan ms | import issue-start ms | baseline import ms | cold issue start ms | baseline ms |\n|---|---|---|---|---|---|---|---|---|---|---|\n',
  );
  for (const r of results.corpora) {
    process.stdout.write(
      `| ${r.label} | ${r.files} | ${f(r.scanMs)} | ${f(r.probe.importMs)} | ${f(r.probe.firstMs)} | ${f(r.probe.firstCpuMs)} | ${f(r.probe.warmMs)} | ${f(r.importIssueStartMs)} | ${f(r.baselineImportIssueStartMs)} | ${f(r.wallMs)} | ${f(r.baselineWallMs)} |\n`,
    );
  }
  process.stdout.write(
    `\nmedian (min-max) of ${runs} runs; load ${results.loadAvgBefore.join(' ')} -> ${results.loadAvgAfter.join(' ')}\n`,
  );
  if (!argv.includes('--keep') && !opt('work', null)) removeDir(work);
  else log(`kept ${work}`);
}
