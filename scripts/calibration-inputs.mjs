#!/usr/bin/env node
// The calibration's inputs from the development data, in one step (issue 49): each labelled set asked with
// `agentos eval --save` (the built CLI, the real model), kept as fixtures/calibration/<set>.json.gz by
// scripts/fit-inputs.mjs (numbers and labels, no text, no timings). Then `npm run calibration:refit` fits
// src/work-memory/scoring/calibration-data.ts from them, and test/integration/calibration-refit.test.ts refits it
// from a fresh clone and compares byte for byte.
//
//   npm run build && npm run provision-model
//   node scripts/calibration-inputs.mjs [--data ../shared/eval]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { trimSave } from './fit-inputs.mjs';

const repo = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const dataAt = args.indexOf('--data');
const data = path.resolve(dataAt >= 0 ? args[dataAt + 1] : path.join(repo, '..', 'shared', 'eval'));
// The labelled sets the calibration is fitted on: the markdown histories and the trackers' duplicate reports.
const SETS = [
  { name: 'markdown-dev', pairs: 'markdown-dev' },
  { name: 'dupes-dev', pairs: 'dupes-dev.jsonl' },
];

for (const set of SETS) {
  if (!existsSync(path.join(data, set.pairs))) {
    process.stderr.write(`calibration-inputs: ${path.join(data, set.pairs)}: not found (pass --data <folder>)\n`);
    process.exit(2);
  }
}
if (!existsSync(path.join(repo, 'dist', 'cli', 'cli.js'))) {
  process.stderr.write('calibration-inputs: dist/ has no build: run `npm run build` first\n');
  process.exit(2);
}
const scratch = mkdtempSync(path.join(os.tmpdir(), 'agentos-calibration-inputs-'));
const out = path.join(repo, 'fixtures', 'calibration');
mkdirSync(out, { recursive: true });
try {
  for (const set of SETS) {
    const save = path.join(scratch, `${set.name}.json`);
    process.stderr.write(`asking ${set.pairs}…\n`);
    execFileSync(
      process.execPath,
      [path.join(repo, 'bin', 'agentos.js'), 'eval', '--pairs', path.join(data, set.pairs), '--save', save, '--json'],
      { cwd: scratch, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const trimmed = trimSave(JSON.parse(readFileSync(save, 'utf8')));
    const file = path.join(out, `${set.name}.json.gz`);
    writeFileSync(file, gzipSync(JSON.stringify(trimmed) + '\n', { level: 9 }));
    process.stderr.write(`wrote ${path.relative(repo, file)} (${trimmed.results.length} briefs)\n`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.stderr.write('next: npm run calibration:refit\n');
