#!/usr/bin/env node
// The history check on a real git history (issue 28): index a git bundle's history with
// the built CLI, check hand-written briefs (bench/git-dev/briefs.jsonl: work the history
// shows as done, in a new issue's words, and work it never did) and report where the done
// work ranks and what the check decides. `--fit FILE` also fits the commit-sized
// documents' logistic model on the candidates' features (leave-one-brief-out for the
// figures it reports) and writes it as TypeScript data.
//
//   npm run build && node bench/git-dev-eval.mjs [--bundle ../shared/eval/git-dev/release-it.bundle] [--fit FILE]
//   node bench/git-dev-eval.mjs --bundle <a clone or git dir of tj/commander.js> --briefs bench/git-dev/commander-briefs.jsonl --save c.json
//
// Briefs with `sibling_of` ask for work adjacent to a merged change, never done: they should not alert.
// `--save FILE` keeps every candidate's features for bench/git-dev-fit.mjs (fit on one repository, measure on another).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { modelDecision, report as reportModel, samplesOf, train, writeModel } from './lib/commit-fit.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const bundle = path.resolve(arg('--bundle', path.join(repo, '..', 'shared', 'eval', 'git-dev', 'release-it.bundle')));
// Several files, comma-separated: done and never-done briefs, and sibling briefs (`sibling_of`: work adjacent to merged work, never done).
const briefFiles = arg(
  '--briefs',
  [
    path.join(repo, 'bench', 'git-dev', 'briefs.jsonl'),
    path.join(repo, 'bench', 'git-dev', 'release-it-siblings.jsonl'),
  ].join(','),
);
const briefs = briefFiles
  .split(',')
  .flatMap((f) => readFileSync(f, 'utf8').split('\n'))
  .filter(Boolean)
  .map((l) => JSON.parse(l));
// --save FILE: the candidates and their features, for a fit across repositories (bench/git-dev-fit.mjs).
const saveOut = arg('--save', null);
const fitOut = arg('--fit', null);
// The repository's name in reports and saved runs (a fetched repository's folder is named like `owner+name`).
const name = arg(
  '--name',
  path.basename(bundle) === 'repo' ? path.basename(path.dirname(bundle)) : path.basename(bundle),
);
const argv = process.argv.slice(2);
const k = Number(arg('-k', '10'));
const bin = path.join(repo, 'bin', 'agentos.js');

const dir = mkdtempSync(path.join(os.tmpdir(), 'agentos-git-dev-'));
const project = path.join(dir, 'project');
try {
  execFileSync('git', ['clone', '-q', bundle, project], { stdio: 'ignore' });
  execFileSync('git', ['checkout', '-q', '-B', 'main'], { cwd: project, stdio: 'ignore' });
} catch {
  // A fetched mirror may lack its largest blobs: its history without a work tree (agentos reads git, not files, here).
  rmSync(project, { recursive: true, force: true });
  execFileSync('git', ['clone', '-q', '-n', bundle, project], { stdio: 'ignore' });
  execFileSync('git', ['reset', '-q'], { cwd: project, stdio: 'ignore' });
}
const run = (args, input) =>
  spawnSync(process.execPath, [bin, ...args], {
    cwd: project,
    input,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', NO_COLOR: '1' },
    maxBuffer: 64 << 20,
  });
let r = run(['init', '--yes']);
if (r.status !== 0) throw new Error(`init: ${r.stderr}`);
// More candidates than the product shows, for the fit's negatives.
writeFileSync(
  path.join(project, '.agentos', 'config.yaml'),
  readFileSync(path.join(project, '.agentos', 'config.yaml'), 'utf8') + `history:\n  k: ${k}\n`,
);
const t0 = Date.now();
r = run(['index', '--include-history', '--json']);
if (r.status !== 0) throw new Error(`index: ${r.stderr}`);
const indexed = JSON.parse(r.stdout);
console.error(
  `indexed ${indexed.sources?.documents ?? 0} pieces of work in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
);

const results = [];
mkdirSync(path.join(dir, 'briefs'));
for (const b of briefs) {
  const file = path.join(dir, 'briefs', `${b.id}.md`);
  writeFileSync(file, `# ${b.title}\n\n${b.body}\n`);
  r = run(['issue', 'start', file, '--json', '--non-interactive', '--no-refresh']);
  const out = JSON.parse(r.stdout);
  const nearest = out.nearest ?? [];
  const rank = b.expect ? nearest.findIndex((m) => (m.ref ?? '').startsWith(b.expect)) : -1;
  results.push({
    id: b.id,
    expect: b.expect,
    sibling: b.sibling_of ?? null,
    status: out.status,
    rank,
    top: nearest[0] ? `${(nearest[0].ref ?? '').slice(0, 7)} ${nearest[0].title}` : null,
    nearest,
  });
}
if (saveOut)
  writeFileSync(saveOut, JSON.stringify({ bundle: name, indexed: indexed.sources?.documents ?? 0, results }));

function report(label, rows, decide) {
  const done = rows.filter((x) => x.expect);
  const never = rows.filter((x) => !x.expect && !x.sibling);
  const siblings = rows.filter((x) => x.sibling);
  const d = done.map(decide);
  const n = never.map(decide);
  const sib = siblings.map(decide);
  const cnt = (a, s) => a.filter((x) => x === s).length;
  // The target: the merged work first, and shown (an alert or related work).
  const found = done.filter((x, i) => x.rank === 0 && d[i] !== 'clear').length;
  console.log(`\n${label}`);
  console.log(
    `  done work (${done.length}): first and shown ${found}; first ${done.filter((x) => x.rank === 0).length}, in top 3 ${done.filter((x) => x.rank >= 0 && x.rank < 3).length}; alert ${cnt(d, 'duplicate_alert')}, related ${cnt(d, 'related_context')}, clear ${cnt(d, 'clear')}`,
  );
  console.log(
    `  never done (${never.length}): alert ${cnt(n, 'duplicate_alert')}, related ${cnt(n, 'related_context')}, clear ${cnt(n, 'clear')}`,
  );
  if (siblings.length)
    console.log(
      `  sibling work (${siblings.length}): alert ${cnt(sib, 'duplicate_alert')}, related ${cnt(sib, 'related_context')}, clear ${cnt(sib, 'clear')}`,
    );
}
report('as shipped (calibration in src/work-memory/scoring)', results, (x) => x.status);
for (const x of results)
  console.log(
    `  ${x.id.padEnd(9)} ${x.status.padEnd(16)} rank ${x.rank}  top ${(x.nearest[0]?.score ?? 0).toFixed(3)}  ${x.top ?? ''}`,
  );

// Sibling work: each done brief again with its own commit left out of the index (an exclude_subjects
// rule matching its subject exactly), so nothing the same is left to find but its neighbours: every
// alert now is on other work (a sibling, a follow-up, or the same work done twice).
if (argv.includes('--left-out')) {
  const cfgFile = path.join(project, '.agentos', 'config.yaml');
  const base = readFileSync(cfgFile, 'utf8');
  const leftOut = [];
  for (const b of briefs.filter((x) => x.expect)) {
    const subject = execFileSync('git', ['log', '-1', '--format=%s', b.expect], {
      cwd: project,
      encoding: 'utf8',
    }).trim();
    const re = `^${subject.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
    writeFileSync(cfgFile, base.replace(/^ {2}git: true.*$/m, `  git: { exclude_subjects: [${JSON.stringify(re)}] }`));
    r = run(['index', '--json']);
    if (r.status !== 0) throw new Error(`index: ${r.stderr}`);
    const file = path.join(dir, 'briefs', `${b.id}.md`);
    const out = JSON.parse(run(['issue', 'start', file, '--json', '--non-interactive', '--no-refresh']).stdout);
    leftOut.push({
      id: b.id,
      status: out.status,
      top: out.nearest[0]
        ? `${out.nearest[0].score.toFixed(3)} ${(out.nearest[0].ref ?? '').slice(0, 7)} ${out.nearest[0].title}`
        : '',
    });
  }
  writeFileSync(cfgFile, base);
  const cnt = (s) => leftOut.filter((x) => x.status === s).length;
  console.log(
    `\nown commit left out (${leftOut.length} done briefs): alert ${cnt('duplicate_alert')}, related ${cnt('related_context')}, clear ${cnt('clear')}`,
  );
  for (const x of leftOut) console.log(`  ${x.id.padEnd(9)} ${x.status.padEnd(16)} ${x.top}`);
}
rmSync(dir, { recursive: true, force: true });

if (fitOut) fit(results, fitOut);

// ---- the commit-sized model, one repository: leave one brief out (bench/lib/commit-fit.mjs) ----
function fit(rows, out) {
  const samples = samplesOf(rows);
  // Out of sample: each brief decided by a model fitted without its candidates.
  const cv = new Map(rows.map((x) => [x, modelDecision(train(samples.filter((s) => s.brief !== x.id)))(x)]));
  reportModel('commit model, leave-one-brief-out (out of sample for each brief)', rows, (x) => cv.get(x));
  const model = train(samples);
  reportModel('commit model fitted on all briefs (in sample)', rows, modelDecision(model));
  writeModel(
    out,
    model,
    'bench/git-dev-eval.mjs --fit',
    `${name} (${samples.length} candidates of ${rows.length} briefs)`,
  );
  console.log(`\nwrote ${out}`);
}
