#!/usr/bin/env node
// Print the tables of a results file again, as text or markdown (for docs/benchmarks.md):
//   node bench/report.mjs [bench/results/latest.json] [--markdown]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './lib/common.mjs';
import { evaluateTargets, renderReport } from './lib/report.mjs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--')) ?? path.join(REPO, 'bench', 'results', 'latest.json');
const results = JSON.parse(readFileSync(file, 'utf8'));
results.targets = evaluateTargets(results);
const m = results.machine;
const g = results.git;
const header =
  `${m.nproc} CPUs, ${m.cpuModel}, node ${m.node}, ${m.platform}; load average ${results.loadAvgBefore?.join(' ')} before, ${results.loadAvgAfter?.join(' ')} after; ${results.startedAt}${results.quick ? ' (quick)' : ''}` +
  (g ? `; code ${g.commit}${g.srcDirty ? ' + uncommitted src changes' : ''}` : '');
process.stdout.write(
  (args.includes('--markdown') ? `Machine: ${header}\n\n` : `machine: ${header}\n`) +
    renderReport(results, { markdown: args.includes('--markdown') }),
);
