#!/usr/bin/env node
// The MCP server (issue 21 §1): `agentos mcp` spawned by the SDK's own client, as an
// agent starts it. Per project: spawn to "ready" (initialize answered), the first
// check_brief (the model and index load in the background from "ready"; this call
// waits for what is left), then warm check_brief calls (p50/p95). In the same run,
// a cold `agentos issue start --json` of the same brief: what the server saves.
// Targets: warm check_brief p50 <= 60 ms on the demo, <= 150 ms on 1,000 documents.
//   node bench/mcp-bench.mjs --root <indexed project> --brief <file> [--root2 <indexed> --brief2 <file>] [--runs 30]
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BIN, REPO, RESULT_MARK, childEnv, summarize } from './lib/common.mjs';

const argv = process.argv.slice(2);
const opt = (n, d) => (argv.includes(`--${n}`) ? argv[argv.indexOf(`--${n}`) + 1] : d);
const runs = Number(opt('runs', 30));
const sdk = (p) => import(path.join(REPO, 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm', p));
const [{ Client }, { StdioClientTransport }] = await Promise.all([sdk('client/index.js'), sdk('client/stdio.js')]);

async function measure(label, root, briefFile) {
  const brief = readFileSync(briefFile, 'utf8');
  const starts = [];
  const firsts = [];
  const warm = [];
  let status = null;
  // Three server lives: start-up and the first call vary more than warm calls.
  for (let life = 0; life < 3; life++) {
    const t0 = performance.now();
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, '-C', root, 'mcp'], env: childEnv(), stderr: 'ignore' });
    const client = new Client({ name: 'bench', version: '0' });
    await client.connect(transport);
    starts.push(performance.now() - t0);
    const t1 = performance.now();
    const first = await client.callTool({ name: 'check_brief', arguments: { brief } });
    firsts.push(performance.now() - t1);
    status = first.structuredContent?.status ?? null;
    if (status === 'error') throw new Error(`${label}: check_brief failed: ${first.structuredContent.error}`);
    for (let i = 0; i < (life === 0 ? runs : Math.ceil(runs / 3)); i++) {
      const t = performance.now();
      await client.callTool({ name: 'check_brief', arguments: { brief } });
      warm.push(performance.now() - t);
    }
    await client.close();
  }
  const cold = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, [BIN, '-C', root, 'issue', 'start', briefFile, '--json', '--non-interactive', '--out', path.join(root, '.agentos', 'bench-out.md')], {
      env: childEnv(),
      encoding: 'utf8',
    });
    cold.push(performance.now() - t);
    if (r.status !== 0) throw new Error(`${label}: issue start exited ${r.status}: ${r.stderr.slice(-500)}`);
  }
  const out = { label, status, ready: summarize(starts), firstCall: summarize(firsts), warm: summarize(warm), coldIssueStart: summarize(cold) };
  process.stdout.write(
    `${label.padEnd(12)} ready median ${out.ready.median.toFixed(0)} ms; first check_brief ${out.firstCall.median.toFixed(0)} ms; ` +
      `warm check_brief p50 ${out.warm.median.toFixed(1)} ms, p95 ${out.warm.p95.toFixed(1)} ms (${warm.length} calls); ` +
      `cold issue start ${out.coldIssueStart.median.toFixed(0)} ms (${(out.coldIssueStart.median / out.warm.median).toFixed(1)}x the warm call); status ${status}\n`,
  );
  return out;
}

const results = [await measure('demo', path.resolve(opt('root')), path.resolve(opt('brief')))];
if (opt('root2', null)) results.push(await measure(opt('label2', 'corpus'), path.resolve(opt('root2')), path.resolve(opt('brief2'))));
process.stdout.write(RESULT_MARK + JSON.stringify({ runs, results }) + '\n');
