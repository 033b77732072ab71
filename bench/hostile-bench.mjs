#!/usr/bin/env node
// Issue 12: hostile input, timed through the built CLI. Each case is a whole
// `agentos` process (wall time, exit code, peak RSS); the target is `issue start`
// on a 1 MB brief in <= 3 s. Standalone (`node bench/hostile-bench.mjs [--runs N]`)
// or as the `hostile` section of `npm run bench`.
//
// Cases: briefs that hung before the fix (H1 + 6,000 spaces, 200,000 `[`, 800 KB
// of prose, 1 MB), special files as the brief (/dev/zero, a FIFO), a damaged
// CURRENT, config limits, and `index` over a corpus of hostile files.
import { spawnSync } from 'node:child_process';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentos, childEnv, fmt, log, removeDir, runProcess, summarize, table, tempDir } from './lib/common.mjs';

export const TARGET_1MB_BRIEF_MS = 3000;

async function put(file, content) {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  return file;
}

/** A small project with past work, indexed once. */
async function project(work) {
  const root = path.join(work, 'project');
  await put(
    path.join(root, '.agentos', 'config.yaml'),
    'corpus:\n  standards: ["docs/adrs/*.md"]\n  history: ["docs/audit/done/*/001-issue.md"]\n',
  );
  await put(
    path.join(root, 'docs', 'adrs', '0001-postgres.md'),
    '# ADR 1: Use Postgres\n\nStatus: accepted\n\nWe store build metadata in Postgres because it is reliable.\n',
  );
  await put(
    path.join(root, 'docs', 'audit', 'done', '41-docker', '001-issue.md'),
    '# Issue 41: Speed up Docker builds\n\nStatus: done\n\n## Summary\n\nCache Docker layers in CI.\n',
  );
  const r = await runProcess(agentos(['-C', root, 'index', '--include-history']), { cwd: root });
  if (r.code !== 0) throw new Error(`index failed (${r.code}): ${r.stderr.slice(-500)}`);
  return root;
}

function oneMegabyte() {
  const line = 'We cache Docker layers in CI so that image builds reuse unchanged layers across runs.\n';
  return `# A one-megabyte brief\n\n${line.repeat(Math.ceil((1024 * 1024) / line.length))}`.slice(0, 1024 * 1024);
}

async function hostileCorpus(work) {
  const root = path.join(work, 'hostile');
  const h = path.join(root, 'docs', 'standards');
  await mkdir(path.join(root, '.agentos'), { recursive: true });
  await put(path.join(h, 'random.md'), Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 7919 + 13) % 256)));
  await put(path.join(h, 'lone-cr.md'), '# CR\rline\rline\r');
  await put(path.join(h, 'nul.md'), Buffer.from('# NUL\0x'));
  await put(path.join(h, 'long-line.md'), `# Long\n\n${'x'.repeat(1_000_000)}\n`);
  await put(path.join(h, 'underscores.md'), `# Under\n\n${'_'.repeat(1_000_000)}a\n`);
  await put(path.join(h, 'headings.md'), '# Many\n' + Array.from({ length: 10_000 }, (_, i) => `## h${i}\n`).join(''));
  await put(path.join(h, 'deep.md'), `# Deep\n\n${'> '.repeat(20_000)}x\n`);
  const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 9; i++)
    bomb.push(
      `k${i}: &k${i} [${Array(9)
        .fill(i === 1 ? '*a' : `*k${i - 1}`)
        .join(', ')}]`,
    );
  await put(path.join(h, 'alias-bomb.md'), `---\n${bomb.join('\n')}\n---\n# Bomb\n`);
  await put(path.join(h, 'brackets.md'), `# Brackets\n\n${'['.repeat(200_000)}\n`);
  await symlink('loop2.md', path.join(h, 'loop1.md'));
  await symlink('loop1.md', path.join(h, 'loop2.md'));
  await symlink('/dev/zero', path.join(h, 'zero.md'));
  spawnSync('mkfifo', [path.join(h, 'fifo.md')]);
  return root;
}

export async function hostileBench({ work, runs = 3 }) {
  const root = await project(work);
  const b = path.join(work, 'briefs');
  const briefs = {
    'H1 + 6,000 spaces': await put(
      path.join(b, 'h1.md'),
      `# Docker layer caching${' '.repeat(6000)}\n\nCache layers in CI.\n`,
    ),
    '200,000 `[`': await put(path.join(b, 'brackets.md'), `# Brackets\n\n${'['.repeat(200_000)}\n`),
    '800 KB prose': await put(
      path.join(b, 'prose.md'),
      `# Prose\n\n${'We cache Docker layers in CI so builds reuse unchanged layers. '.repeat(12_800)}\n`,
    ),
    '1 MB brief': await put(path.join(b, 'one-mb.md'), oneMegabyte()),
  };
  const fifo = path.join(b, 'fifo.md');
  spawnSync('mkfifo', [fifo]);
  const cases = [];
  for (const [label, file] of Object.entries(briefs))
    cases.push({
      label: `issue start: ${label}`,
      args: ['issue', 'start', file, '--non-interactive', '-o', path.join(work, 'out', path.basename(file))],
      runs,
    });
  cases.push({
    label: 'issue start: /dev/zero as brief',
    args: ['issue', 'start', '/dev/zero', '--non-interactive'],
    runs,
  });
  cases.push({ label: 'issue start: FIFO as brief', args: ['issue', 'start', fifo, '--non-interactive'], runs });
  cases.push({ label: 'issue (no subcommand)', args: ['issue'], runs: 1 });

  const results = [];
  const measure = async (c, cwdRoot = root) => {
    const walls = [];
    let last;
    for (let i = 0; i < c.runs; i++) {
      last = await runProcess(agentos(['-C', cwdRoot, ...c.args]), { cwd: cwdRoot, env: c.env ?? childEnv() });
      walls.push(last.wallMs);
    }
    const s = summarize(walls);
    results.push({
      label: c.label,
      exit: last.code,
      runs: c.runs,
      wallMs: s,
      peakRssMb: last.peakRssKb ? last.peakRssKb / 1024 : null,
    });
    log(`${c.label}: exit ${last.code}, median ${s.median.toFixed(0)} ms`);
  };
  for (const c of cases) await measure(c);

  // A damaged CURRENT: issue start fails open, index rebuilds.
  const current = path.join(root, '.agentos', 'index', 'CURRENT');
  for (const [label, make] of [
    ['symlink to /dev/zero', () => symlink('/dev/zero', current)],
    ['a folder', () => mkdir(current)],
  ]) {
    await rm(current, { recursive: true, force: true });
    await make();
    await measure({
      label: `issue start: CURRENT is ${label}`,
      args: [
        'issue',
        'start',
        briefs['H1 + 6,000 spaces'],
        '--non-interactive',
        '-o',
        path.join(work, 'out', 'cur.md'),
      ],
      runs: 1,
    });
    await measure({ label: `search: CURRENT is ${label}`, args: ['search', 'docker'], runs: 1 });
    await measure({ label: `index: CURRENT is ${label}`, args: ['index', '--include-history'], runs: 1 });
  }

  // Config limits.
  const config = path.join(root, '.agentos', 'config.yaml');
  const lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
  for (let i = 1; i < 9; i++)
    lines.push(
      `x${i}: &x${i} [${Array(9)
        .fill(i === 1 ? '*a' : `*x${i - 1}`)
        .join(', ')}]`,
    );
  for (const [label, text] of [
    ['config alias bomb', lines.join('\n') + '\n'],
    ['20 MB config', `# ${'x'.repeat(100)}\n`.repeat(200_000)],
    ['model.id ../..', 'model:\n  id: "../.."\n'],
    ['missing model.dir', 'model:\n  dir: no/such/dir\n'],
  ]) {
    await writeFile(config, text);
    // The config's model.dir counts only when AGENTOS_MODEL_DIR does not override it.
    const env = label === 'missing model.dir' ? { ...childEnv(), AGENTOS_MODEL_DIR: '' } : undefined;
    await measure({ label: `index: ${label}`, args: ['index'], runs: 1, env });
  }

  // Index over the hostile corpus.
  const hroot = await hostileCorpus(work);
  await measure({ label: 'index: hostile corpus (15 files)', args: ['index', '--full'], runs: 1 }, hroot);

  const oneMb = results.find((r) => r.label === 'issue start: 1 MB brief');
  const target = {
    name: 'issue start on a 1 MB brief',
    limitMs: TARGET_1MB_BRIEF_MS,
    medianMs: oneMb.wallMs.median,
    met: oneMb.wallMs.median <= TARGET_1MB_BRIEF_MS,
  };
  process.stdout.write(
    '\nHostile input (issue 12): whole `agentos` processes, wall ms min / median / max\n' +
      table(
        ['case', 'exit', 'runs', 'wall ms', 'peak RSS MB'],
        results.map((r) => [
          r.label,
          String(r.exit),
          String(r.runs),
          `${fmt(r.wallMs.min)} / ${fmt(r.wallMs.median)} / ${fmt(r.wallMs.max)}`,
          fmt(r.peakRssMb),
        ]),
      ) +
      `\ntarget: ${target.name} <= ${target.limitMs} ms: median ${fmt(target.medianMs)} ms, ${target.met ? 'met' : 'NOT met'}\n`,
  );
  return { cases: results, target };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--runs');
  const runs = i >= 0 ? Number(process.argv[i + 1]) : 3;
  const work = await tempDir('agentos-hostile-bench-');
  process.env.AGENTOS_CACHE_DIR = path.join(work, 'ort-cache');
  try {
    const r = await hostileBench({ work, runs });
    process.exitCode = r.target.met ? 0 : 1;
  } finally {
    removeDir(work);
  }
}
