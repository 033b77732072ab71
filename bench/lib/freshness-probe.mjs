// One fresh process: import the freshness module (what a cold `issue start`
// newly loads for it), then time checkFreshness on the project's live index.
// Prints one JSON line: { importMs, firstMs, warmMs, files, state }.
import path from 'node:path';
import { REPO } from './common.mjs';

const root = process.argv[2];
const t0 = performance.now();
const { checkFreshness } = await import(path.join(REPO, 'dist', 'index', 'freshness.js'));
const { loadConfig } = await import(path.join(REPO, 'dist', 'config', 'load.js'));
const importMs = performance.now() - t0;
const { config } = await loadConfig(root);
const t1 = performance.now();
const first = await checkFreshness(root, config);
const firstMs = performance.now() - t1;
const warm = [];
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  await checkFreshness(root, config);
  warm.push(performance.now() - t);
}
warm.sort((a, b) => a - b);
process.stdout.write(JSON.stringify({ importMs, firstMs, warmMs: warm[2], files: Object.keys(first.manifest?.files ?? {}).length, state: first.state }) + '\n');
