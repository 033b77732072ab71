#!/usr/bin/env node
// Fresh-process latency of `agentos recall` and `agentos hooks run <event>` on an
// indexed demo copy with recorded attempts, against bare `node -e ''` in the
// same run (issue 10: per-tool-call hooks <= 1.5x bare node; recall synthesis
// < 100 ms, injection < 200 ms). Prints a table; the JSON result on the last line.
//   node bench/hooks-bench.mjs --root <indexed project> [--runs 15] [--attempts 1000]
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BIN, REPO, RESULT_MARK, childEnv, summarize } from './lib/common.mjs';

const argv = process.argv.slice(2);
const opt = (n, d) => (argv.includes(`--${n}`) ? argv[argv.indexOf(`--${n}`) + 1] : d);
const root = path.resolve(opt('root', ''));
const runs = Number(opt('runs', 15));
const attempts = Number(opt('attempts', 1000));
const fixture = (n) =>
  readFileSync(path.join(REPO, 'test', 'fixtures', 'hooks', n), 'utf8').replaceAll('PROJECT', root);

function time(args, input) {
  const t0 = performance.now();
  const r = spawnSync(args[0], args.slice(1), { cwd: root, input, env: childEnv(), encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  if (r.stderr) throw new Error(`${args.join(' ')} wrote to stderr: ${r.stderr}`);
  return ms;
}

// Seed the store through the real hook path (the store's own bench covers 10k writers).
const { openAttemptMemory } = await import(path.join(REPO, 'dist', 'attempt-memory', 'open.js'));
const { DEFAULT_CONFIG } = await import(path.join(REPO, 'dist', 'shared', 'config', 'schema.js'));
const mem = openAttemptMemory(root, DEFAULT_CONFIG);
if (mem.stats().failures + mem.stats().successes < attempts) {
  for (let i = 0; i < attempts; i++) {
    mem.record({
      tool: 'Bash',
      command: `npm install pkg-${i % 300}`,
      outcome: i % 4 === 0 ? 'failure' : 'success',
      error: i % 4 === 0 ? 'npm error 404 Not Found' : null,
      context: `task ${i % 50}`,
      sessionId: `s${i % 20}`,
    });
  }
}
mem.close();

const node = process.execPath;
const cases = {
  bareNode: [[node, '-e', ''], undefined],
  preToolUse: [[node, BIN, 'hooks', 'run', 'pre-tool-use'], fixture('pre-tool-use-bash.json')],
  postToolUse: [[node, BIN, 'hooks', 'run', 'post-tool-use'], fixture('post-tool-use-bash.json')],
  sessionStart: [[node, BIN, 'hooks', 'run', 'session-start'], fixture('session-start.json')],
  recall: [[node, BIN, 'recall', '-q'], undefined],
};
for (const [args, input] of Object.values(cases)) time(args, input); // warm-up (fills the caches)
const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let i = 0; i < runs; i++)
  for (const [k, [args, input]] of Object.entries(cases)) samples[k].push(time(args, input));
const result = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)]));
const bare = result.bareNode.median;
for (const [k, s] of Object.entries(result)) {
  process.stdout.write(
    `${k.padEnd(14)} median ${s.median.toFixed(1).padStart(7)} ms  min ${s.min.toFixed(1).padStart(7)}  p95 ${s.p95.toFixed(1).padStart(7)}  ${(s.median / bare).toFixed(2)}x bare node\n`,
  );
}
process.stdout.write(RESULT_MARK + JSON.stringify({ runs, attempts, ...result }) + '\n');
