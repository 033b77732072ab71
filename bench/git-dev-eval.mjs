#!/usr/bin/env node
// The history check on a real git history (issue 28): index a git bundle's history with
// the built CLI, check hand-written briefs (bench/git-dev/briefs.jsonl: work the history
// shows as done, in a new issue's words, and work it never did) and report where the done
// work ranks and what the check decides. `--fit FILE` also fits the commit-sized
// documents' logistic model on the candidates' features (leave-one-brief-out for the
// figures it reports) and writes it as TypeScript data.
//
//   npm run build && node bench/git-dev-eval.mjs [--bundle ../shared/eval/git-dev/release-it.bundle] [--fit FILE]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const bundle = path.resolve(arg('--bundle', path.join(repo, '..', 'shared', 'eval', 'git-dev', 'release-it.bundle')));
const briefs = readFileSync(arg('--briefs', path.join(repo, 'bench', 'git-dev', 'briefs.jsonl')), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));
const fitOut = arg('--fit', null);
const argv = process.argv.slice(2);
const k = Number(arg('-k', '10'));
const bin = path.join(repo, 'bin', 'agentos.js');

const dir = mkdtempSync(path.join(os.tmpdir(), 'agentos-git-dev-'));
const project = path.join(dir, 'project');
execFileSync('git', ['clone', '-q', bundle, project], { stdio: 'ignore' });
execFileSync('git', ['checkout', '-q', '-B', 'main'], { cwd: project, stdio: 'ignore' });
const run = (args, input) => spawnSync(process.execPath, [bin, ...args], { cwd: project, input, encoding: 'utf8', env: { ...process.env, CI: 'true', NO_COLOR: '1' }, maxBuffer: 64 << 20 });
let r = run(['init', '--yes']);
if (r.status !== 0) throw new Error(`init: ${r.stderr}`);
// More candidates than the product shows, for the fit's negatives.
writeFileSync(path.join(project, '.agentos', 'config.yaml'), readFileSync(path.join(project, '.agentos', 'config.yaml'), 'utf8') + `history:\n  k: ${k}\n`);
const t0 = Date.now();
r = run(['index', '--include-history', '--json']);
if (r.status !== 0) throw new Error(`index: ${r.stderr}`);
const indexed = JSON.parse(r.stdout);
console.error(`indexed ${indexed.sources?.documents ?? 0} pieces of work in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

const results = [];
mkdirSync(path.join(dir, 'briefs'));
for (const b of briefs) {
  const file = path.join(dir, 'briefs', `${b.id}.md`);
  writeFileSync(file, `# ${b.title}\n\n${b.body}\n`);
  r = run(['issue', 'start', file, '--json', '--non-interactive', '--no-refresh']);
  const out = JSON.parse(r.stdout);
  const nearest = out.nearest ?? [];
  const rank = b.expect ? nearest.findIndex((m) => (m.ref ?? '').startsWith(b.expect)) : -1;
  results.push({ id: b.id, expect: b.expect, status: out.status, rank, top: nearest[0] ? `${(nearest[0].ref ?? '').slice(0, 7)} ${nearest[0].title}` : null, nearest });
}

function report(label, rows, decide) {
  const done = rows.filter((x) => x.expect);
  const never = rows.filter((x) => !x.expect);
  const d = done.map(decide);
  const n = never.map(decide);
  const cnt = (a, s) => a.filter((x) => x === s).length;
  console.log(`\n${label}`);
  console.log(
    `  done work (${done.length}): first ${done.filter((x) => x.rank === 0).length}, in top 3 ${done.filter((x) => x.rank >= 0 && x.rank < 3).length}; alert ${cnt(d, 'duplicate_alert')}, related ${cnt(d, 'related_context')}, clear ${cnt(d, 'clear')}`,
  );
  console.log(`  never done (${never.length}): alert ${cnt(n, 'duplicate_alert')}, related ${cnt(n, 'related_context')}, clear ${cnt(n, 'clear')}`);
}
report('as shipped (calibration in src/work-memory/scoring)', results, (x) => x.status);
for (const x of results) console.log(`  ${x.id.padEnd(9)} ${x.status.padEnd(16)} rank ${x.rank}  top ${(x.nearest[0]?.score ?? 0).toFixed(3)}  ${x.top ?? ''}`);

// Sibling work: each done brief again with its own commit left out of the index (an exclude_subjects
// rule matching its subject exactly), so nothing the same is left to find but its neighbours: every
// alert now is on other work (a sibling, a follow-up, or the same work done twice).
if (argv.includes('--left-out')) {
  const cfgFile = path.join(project, '.agentos', 'config.yaml');
  const base = readFileSync(cfgFile, 'utf8');
  const leftOut = [];
  for (const b of briefs.filter((x) => x.expect)) {
    const subject = execFileSync('git', ['log', '-1', '--format=%s', b.expect], { cwd: project, encoding: 'utf8' }).trim();
    const re = `^${subject.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
    writeFileSync(cfgFile, base.replace(/^ {2}git: true.*$/m, `  git: { exclude_subjects: [${JSON.stringify(re)}] }`));
    r = run(['index', '--json']);
    if (r.status !== 0) throw new Error(`index: ${r.stderr}`);
    const file = path.join(dir, 'briefs', `${b.id}.md`);
    const out = JSON.parse(run(['issue', 'start', file, '--json', '--non-interactive', '--no-refresh']).stdout);
    leftOut.push({ id: b.id, status: out.status, top: out.nearest[0] ? `${out.nearest[0].score.toFixed(3)} ${(out.nearest[0].ref ?? '').slice(0, 7)} ${out.nearest[0].title}` : '' });
  }
  writeFileSync(cfgFile, base);
  const cnt = (s) => leftOut.filter((x) => x.status === s).length;
  console.log(`\nown commit left out (${leftOut.length} done briefs): alert ${cnt('duplicate_alert')}, related ${cnt('related_context')}, clear ${cnt('clear')}`);
  for (const x of leftOut) console.log(`  ${x.id.padEnd(9)} ${x.status.padEnd(16)} ${x.top}`);
}
rmSync(dir, { recursive: true, force: true });

if (fitOut) fit(results, fitOut);

// ---- the commit-sized model: logistic regression over the calibrated score's features ----
function fit(rows, out) {
  const NAMES = ['cosineMean', 'lexBrief', 'lexDoc', 'title', 'gap'];
  const samples = rows.flatMap((x) =>
    x.nearest
      .filter((m) => m.components?.features && m.source === 'git')
      .map((m) => ({ brief: x.id, y: x.expect && (m.ref ?? '').startsWith(x.expect) ? 1 : 0, f: m.components.features, cosine: m.components.features.cosine })),
  );
  const train = (data) => {
    const mean = {};
    const scale = {};
    for (const n of NAMES) {
      const v = data.map((s) => s.f[n]);
      mean[n] = v.reduce((a, b) => a + b, 0) / v.length;
      scale[n] = Math.sqrt(v.reduce((a, b) => a + (b - mean[n]) ** 2, 0) / v.length) || 1;
    }
    const X = data.map((s) => NAMES.map((n) => (s.f[n] - mean[n]) / scale[n]));
    const w = NAMES.map(() => 0);
    let b = 0;
    const lambda = 1;
    // Positives are rare among the candidates: weight them so the fit does not learn "never".
    const pos = data.filter((s) => s.y).length;
    const wPos = Math.max(1, (data.length - pos) / Math.max(1, pos)) / 4;
    for (let it = 0; it < 4000; it++) {
      const gw = w.map(() => 0);
      let gb = 0;
      let total = 0;
      data.forEach((s, i) => {
        const z = b + w.reduce((a, wj, j) => a + wj * X[i][j], 0);
        const p = 1 / (1 + Math.exp(-z));
        const sw = s.y ? wPos : 1;
        total += sw;
        for (let j = 0; j < w.length; j++) gw[j] += sw * (p - s.y) * X[i][j];
        gb += sw * (p - s.y);
      });
      for (let j = 0; j < w.length; j++) w[j] -= 0.5 * (gw[j] / total + (lambda * w[j]) / total);
      b -= 0.5 * (gb / total);
    }
    return { intercept: b, features: Object.fromEntries(NAMES.map((n, j) => [n, { weight: w[j], mean: mean[n], scale: scale[n] }])) };
  };
  const prob = (m, f) => 1 / (1 + Math.exp(-(m.intercept + NAMES.reduce((a, n) => a + (m.features[n].weight * (f[n] - m.features[n].mean)) / m.features[n].scale, 0))));
  const FLOORS = { related: 0.348, duplicate: 0.491 };
  const decide = (m, x) => {
    const ps = x.nearest
      .filter((c) => c.components?.features)
      .map((c) => {
        const f = c.components.features;
        let p = prob(m, f);
        if (f.cosine < FLOORS.related) p = Math.min(p, 0.4999);
        else if (f.cosine < FLOORS.duplicate) p = Math.min(p, 0.8499);
        return p;
      });
    const top = Math.max(0, ...ps);
    return top >= 0.85 ? 'duplicate_alert' : top >= 0.5 ? 'related_context' : 'clear';
  };
  // Out of sample: each brief decided by a model fitted without its candidates.
  const cv = rows.map((x) => decide(train(samples.filter((s) => s.brief !== x.id)), x));
  report('commit model, leave-one-brief-out (out of sample for each brief)', rows, (x) => cv[rows.indexOf(x)]);
  const model = train(samples);
  report('commit model fitted on all briefs (in sample)', rows, (x) => decide(model, x));
  const round = (v) => Number(v.toFixed(6));
  const data = {
    intercept: round(model.intercept),
    features: Object.fromEntries(Object.entries(model.features).map(([n, p]) => [n, { weight: round(p.weight), mean: round(p.mean), scale: round(p.scale) }])),
    floors: FLOORS,
  };
  writeFileSync(
    out,
    `// Generated by bench/git-dev-eval.mjs --fit on ${new Date().toISOString().slice(0, 10)} from ${path.basename(bundle)} and bench/git-dev/briefs.jsonl (${samples.length} candidates of ${rows.length} briefs): do not edit by hand, refit.\n` +
      `import type { LogisticModel } from './calibration-types.js';\n\n` +
      `/** The same-work model for commit-sized documents (work read from git): short texts whose vocabulary a brief covers easily. */\n` +
      `export const COMMIT_SAME_WORK: LogisticModel = ${JSON.stringify(data, null, 2)};\n`,
  );
  console.log(`\nwrote ${out}`);
}
