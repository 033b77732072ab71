#!/usr/bin/env node
// The commit model across repositories (issue 46): given the candidates that bench/git-dev-eval.mjs
// --save wrote for several repositories, fit the commit-sized model on all but one and measure it on
// that one (out of sample: the repository's history and briefs never seen by the fit), then fit on
// all and, with --out FILE, write it as src/work-memory/scoring/commit-calibration-data.ts.
//
//   node bench/git-dev-fit.mjs --runs a.json,b.json [--features cosineMean,lexBrief,...] [--out FILE]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_FEATURES, modelDecision, report, samplesOf, train, writeModel } from './lib/commit-fit.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const runs = arg('--runs', '')
  .split(',')
  .filter(Boolean)
  .map((f) => ({ file: f, ...JSON.parse(readFileSync(f, 'utf8')) }));
const names = arg('--features', DEFAULT_FEATURES.join(',')).split(',');
const lambda = Number(arg('--lambda', '1'));
const out = arg('--out', null);
if (runs.length < 2) throw new Error('--runs needs two or more saved runs (bench/git-dev-eval.mjs --save)');

console.log(`features: ${names.join(', ')}`);
const totals = { found: 0, done: 0, neverAlerts: 0, siblingAlerts: 0 };
for (const r of runs) {
  const others = runs.filter((o) => o !== r).flatMap((o) => samplesOf(o.results, `${o.bundle}:`));
  const m = train(others, names, lambda);
  const t = report(
    `out of sample: ${r.bundle}, model fitted on ${runs
      .filter((o) => o !== r)
      .map((o) => o.bundle)
      .join(', ')}`,
    r.results,
    modelDecision(m),
  );
  for (const k of Object.keys(totals)) totals[k] += t[k];
}
console.log(
  `\nout of sample, all repositories: done first and shown ${totals.found}/${totals.done} (${Math.round((100 * totals.found) / totals.done)}%), never-done alerts ${totals.neverAlerts}, sibling alerts ${totals.siblingAlerts}`,
);

const all = runs.flatMap((r) => samplesOf(r.results, `${r.bundle}:`));
const model = train(all, names, lambda);
for (const r of runs)
  report(`in sample: ${r.bundle} (model fitted on every repository)`, r.results, modelDecision(model));
if (out) {
  writeModel(
    out,
    model,
    'bench/git-dev-fit.mjs',
    `${runs.map((r) => r.bundle).join(', ')} (${all.length} candidates of ${runs.reduce((a, r) => a + r.results.length, 0)} briefs)`,
  );
  console.log(`\nwrote ${path.relative(process.cwd(), out)}`);
}
