#!/usr/bin/env node
// The MCP server (issue 21 §1): `agentos mcp` spawned by the SDK's own client, as an
// agent starts it. Per project: spawn to "ready" (initialize answered), the first
// check_brief (the model and index load in the background from "ready"; this call
// waits for what is left), then warm check_brief calls (p50/p95). In the same run,
// a cold `agentos issue start --json` of the same brief: what the server saves.
// Warm calls cycle through every brief given (the demo's five): after its first sight a brief's
// embedding is remembered, so "new brief" (a brief this server has not seen, the model runs) is
// reported apart from "warm" (a brief seen before: the agent re-checking as it works).
// Each figure is beside a bare `node -e 0` of the same run (the machine's speed at that moment).
// Targets: warm check_brief p50 <= 20 ms on the demo (issue 31), <= 150 ms on 1,000 documents; a brief never seen, p50 <= 30 ms on the demo (issue 50).
//   node bench/mcp-bench.mjs --root <indexed project> --brief <file> [--brief <file> …] [--root2 <indexed> --brief2 <file>] [--runs 30] [--bin <bin/agentos.js>]
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BIN as OWN_BIN, REPO, RESULT_MARK, childEnv, summarize } from './lib/common.mjs';

const argv = process.argv.slice(2);
const opt = (n, d) => (argv.includes(`--${n}`) ? argv[argv.indexOf(`--${n}`) + 1] : d);
const runs = Number(opt('runs', 30));
// --bin: another build's bin/agentos.js (an A/B against a worktree of an older commit).
const BIN = path.resolve(opt('bin', OWN_BIN));
const sdk = (p) => import(path.join(REPO, 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm', p));
const [{ Client }, { StdioClientTransport }] = await Promise.all([sdk('client/index.js'), sdk('client/stdio.js')]);

async function measure(label, root, briefFiles) {
  const briefs = briefFiles.map((f) => readFileSync(f, 'utf8'));
  const brief = briefs[0];
  const briefFile = briefFiles[0];
  const starts = [];
  const firsts = [];
  const fresh = [];
  const warm = [];
  let status = null;
  // Three server lives: start-up and the first call vary more than warm calls.
  for (let life = 0; life < 3; life++) {
    const t0 = performance.now();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, '-C', root, 'mcp'],
      env: childEnv(),
      stderr: 'ignore',
    });
    const client = new Client({ name: 'bench', version: '0' });
    await client.connect(transport);
    starts.push(performance.now() - t0);
    const t1 = performance.now();
    const first = await client.callTool({ name: 'check_brief', arguments: { brief } });
    firsts.push(performance.now() - t1);
    status = first.structuredContent?.status ?? null;
    if (status === 'error') throw new Error(`${label}: check_brief failed: ${first.structuredContent.error}`);
    // Briefs this server has never seen, a fresh text per call (issue 50): the model runs every time. The
    // demo's briefs, each with a line of its own, so that the text (and its length) stays a real brief's.
    for (let i = 0; i < (life === 0 ? runs : Math.ceil(runs / 3)); i++) {
      const other = `${briefs[(i + 1) % briefs.length]}\n\nAsked as call ${life}-${i} of the bench.\n`;
      const t = performance.now();
      await client.callTool({ name: 'check_brief', arguments: { brief: other } });
      fresh.push(performance.now() - t);
    }
    for (let i = 0; i < (life === 0 ? runs : Math.ceil(runs / 3)); i++) {
      const t = performance.now();
      await client.callTool({ name: 'check_brief', arguments: { brief: briefs[i % briefs.length] } });
      warm.push(performance.now() - t);
    }
    await client.close();
  }
  const cold = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const r = spawnSync(
      process.execPath,
      [
        BIN,
        '-C',
        root,
        'issue',
        'start',
        briefFile,
        '--json',
        '--non-interactive',
        '--out',
        path.join(root, '.agentos', 'bench-out.md'),
      ],
      {
        env: childEnv(),
        encoding: 'utf8',
      },
    );
    cold.push(performance.now() - t);
    if (r.status !== 0) throw new Error(`${label}: issue start exited ${r.status}: ${r.stderr.slice(-500)}`);
  }
  const bare = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    bare.push(performance.now() - t);
  }
  const out = {
    label,
    status,
    briefs: briefs.length,
    ready: summarize(starts),
    firstCall: summarize(firsts),
    newBrief: fresh.length ? summarize(fresh) : null,
    warm: summarize(warm),
    coldIssueStart: summarize(cold),
    bareNode: summarize(bare),
  };
  process.stdout.write(
    `${label.padEnd(12)} ready median ${out.ready.median.toFixed(0)} ms; first check_brief ${out.firstCall.median.toFixed(0)} ms; ` +
      (out.newBrief ? `new brief p50 ${out.newBrief.median.toFixed(1)} ms (${fresh.length} calls); ` : '') +
      `warm check_brief p50 ${out.warm.median.toFixed(1)} ms, p95 ${out.warm.p95.toFixed(1)} ms (${warm.length} calls over ${briefs.length} briefs); ` +
      `bare node -e 0 ${out.bareNode.median.toFixed(0)} ms (warm p50 = ${(out.warm.median / out.bareNode.median).toFixed(2)}x); ` +
      `cold issue start ${out.coldIssueStart.median.toFixed(0)} ms (${(out.coldIssueStart.median / out.warm.median).toFixed(1)}x the warm call); status ${status}\n`,
  );
  return out;
}

const briefArgs = argv.flatMap((a, i) => (a === '--brief' ? [path.resolve(argv[i + 1])] : []));
const results = [await measure('demo', path.resolve(opt('root')), briefArgs)];
if (opt('root2', null))
  results.push(await measure(opt('label2', 'corpus'), path.resolve(opt('root2')), [path.resolve(opt('brief2'))]));
process.stdout.write(RESULT_MARK + JSON.stringify({ runs, results }) + '\n');
