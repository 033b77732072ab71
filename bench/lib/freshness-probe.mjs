// One fresh process: import the freshness module (what a cold `issue start`
// newly loads for it), then time checkFreshness on the project's live index.
// Prints one JSON line: { importMs, firstMs, firstCpuMs, warmMs, files, state }.
import path from 'node:path';
import { REPO } from './common.mjs';

const root = process.argv[2];
const t0 = performance.now();
const { checkFreshness } = await import(path.join(REPO, 'dist', 'work-memory', 'index', 'freshness.js'));
const { loadConfig } = await import(path.join(REPO, 'dist', 'shared', 'config', 'load.js'));
const importMs = performance.now() - t0;
const { config } = await loadConfig(root);
const t1 = performance.now();
const c1 = process.cpuUsage();
const first = await checkFreshness(root, config);
const firstMs = performance.now() - t1;
// CPU time (user + system) of the same call: what the scan costs, less sensitive to a loaded machine than wall time.
const cpu = process.cpuUsage(c1);
const firstCpuMs = (cpu.user + cpu.system) / 1000;
const warm = [];
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  await checkFreshness(root, config);
  warm.push(performance.now() - t);
}
warm.sort((a, b) => a - b);
process.stdout.write(
  JSON.stringify({
    importMs,
    firstMs,
    firstCpuMs,
    warmMs: warm[2],
    files: Object.keys(first.manifest?.files ?? {}).length,
    state: first.state,
  }) + '\n',
);
