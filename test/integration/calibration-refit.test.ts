/**
 * The shipped calibration refits from the repository alone (issue 49): `npm run calibration:refit`'s fit, run on
 * fixtures/calibration/ (made by scripts/calibration-inputs.mjs from the development data) with the build's own
 * arithmetic, writes src/work-memory/scoring/calibration-data.ts byte for byte.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { REPO } from '../helpers/paths.js';

const SHIPPED = path.join(REPO, 'src', 'work-memory', 'scoring', 'calibration-data.ts');
const script = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')).scripts['calibration:refit'] as string;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'agentos-refit-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('npm run calibration:refit on the fixtures writes the shipped calibration, byte for byte', () => {
  // The package script's own arguments, written elsewhere (--out) so that the tree is left as it is.
  const args = script.replace(/^node /, '').split(' ');
  const out = path.join(dir, 'calibration-data.ts');
  // With no FIT_* setting from this shell: the header records every setting, and the defaults are what it records.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FIT_')));
  execFileSync(process.execPath, [...args, '--out', out], { cwd: REPO, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const refit = readFileSync(out, 'utf8');
  const shipped = readFileSync(SHIPPED, 'utf8');
  expect(refit.split('\n').slice(0, 4)).toEqual(shipped.split('\n').slice(0, 4));
  expect(refit === shipped).toBe(true);
}, 120_000);

test('the header names each input by its content and every setting; no date, and the inputs carry no timings', () => {
  const header = readFileSync(SHIPPED, 'utf8').split('\n').slice(0, 3).join('\n');
  expect(header).not.toMatch(/\d{4}-\d{2}-\d{2}/);
  expect(header).toMatch(/fixtures\/calibration\/markdown-dev\.json\.gz sha256:[0-9a-f]{12}/);
  expect(header).toMatch(/fixtures\/calibration\/dupes-dev\.json\.gz sha256:[0-9a-f]{12}/);
  for (const setting of ['FIT_LAMBDA', 'FIT_TOP', 'FIT_DOMAINS', 'FIT_RELATED_NOISE', 'FIT_IGNORE_NAMED'])
    expect(header).toContain(`"${setting}":`);
  for (const name of ['markdown-dev', 'dupes-dev']) {
    const text = gunzipSync(readFileSync(path.join(REPO, 'fixtures', 'calibration', `${name}.json.gz`))).toString();
    const data = JSON.parse(text) as { format: string; results: Array<Record<string, unknown>> };
    expect(data.format).toBe('agentos-fit-input/1');
    expect(data.results.length).toBeGreaterThan(100);
    // Keys only: "title" is also a feature's name.
    expect(text).not.toMatch(/"(ms|timings|queryMsMedian|title|body|text|excerpt|section)":/);
  }
});
