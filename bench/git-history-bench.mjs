#!/usr/bin/env node
// Git history as completed work (issue 28): index a repository of N commits from scratch,
// then one new commit, then nothing new, each a whole `agentos` process measured from
// outside (wall, peak RSS through GNU time). The repository is synthetic: N commits
// written by `git fast-import` with messages drawn from a fixed vocabulary, sized like a
// real history's (release-it: ~40 word pieces per piece of work), 10% releases and 5%
// dependency updates (left out as not work), a pull request number on a third.
//
//   npm run build && node bench/git-history-bench.mjs [--commits 8000] [--keep]
//   node bench/git-history-bench.mjs --real <git dir>[,<git dir>…] [--commits 8000] [--small 500]
//
// `--real` replays real repositories' first-parent commits instead (issue 46): their messages
// (subject and body, as written) and file lists, in turn from each repository until N, so the
// tokens per commit are a real history's; file contents are placeholders (the diffs' words are
// not replayed). It also indexes the first `--small` of them and adds one commit to each, three
// times, so a new commit's cost at N and at the small size are measured in the same run.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, childEnv, runProcess } from './lib/common.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : dflt);
const commits = Number(opt('commits', 8000));
const keep = argv.includes('--keep');
const real = opt('real', null);
const small = Number(opt('small', 500));

// A deterministic generator: the same history on every run.
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = (a) => a[Math.floor(rand() * a.length)];
const VERBS = [
  'Add',
  'Fix',
  'Support',
  'Refactor',
  'Remove',
  'Improve',
  'Handle',
  'Cache',
  'Validate',
  'Document',
  'Retry',
  'Parse',
  'Skip',
  'Allow',
  'Deprecate',
];
const THINGS = [
  'tag lookup',
  'release notes',
  'changelog',
  'npm publish',
  'GitLab release',
  'GitHub release',
  'proxy settings',
  'dry run',
  'hooks',
  'config file',
  'prerelease',
  'version bump',
  'CI mode',
  'assets upload',
  'token check',
  'commit message',
  'workspace',
  'registry',
  'template',
  'plugin loader',
];
const WORDS =
  'when the user runs a release with a custom configuration the command should not fail but print a warning and continue with the next step using the default value from the package metadata or the remote repository'.split(
    ' ',
  );
const DIRS = ['lib', 'lib/plugin/npm', 'lib/plugin/github', 'lib/plugin/gitlab', 'lib/util', 'test', 'docs', 'config'];
const sentence = (n) => Array.from({ length: n }, () => pick(WORDS)).join(' ');

const dir = mkdtempSync(path.join(os.tmpdir(), 'agentos-git-bench-'));
const repo = path.join(dir, 'repo');

/** Real first-parent commits of `gitDir`, oldest first: message and the paths each changed. */
function realCommits(gitDir) {
  const out = execFileSync(
    'git',
    [
      '--git-dir',
      gitDir,
      'log',
      '--first-parent',
      '--diff-merges=first-parent',
      '--reverse',
      '--name-only',
      '--no-renames',
      '--format=%x1e%B%x1f',
    ],
    {
      maxBuffer: 1 << 30,
      encoding: 'utf8',
    },
  );
  return out
    .split('\x1e')
    .filter(Boolean)
    .map((rec) => {
      const [message, files = ''] = rec.split('\x1f');
      return { message: message.trim(), files: files.split('\n').filter(Boolean).slice(0, 200) };
    })
    .filter((c) => c.message);
}

/** A fast-import stream of `list` ({ message, files }) as one first-parent history on main. */
function importStream(list) {
  let stream = '';
  let t = 1_600_000_000;
  list.forEach((c, k) => {
    const i = k + 1;
    const message = Buffer.from(c.message + '\n');
    stream += `commit refs/heads/main\nmark :${i}\nauthor Dev <dev@example.com> ${t} +0000\ncommitter Dev <dev@example.com> ${t} +0000\ndata ${message.length}\n${message}\n`;
    if (i > 1) stream += `from :${i - 1}\n`;
    for (const f of c.files) stream += `M 644 inline ${f.replace(/[\n"]/g, '_')}\ndata <<EOF\n${i}\nEOF\n`;
    stream += '\n';
    t += 3600;
  });
  return stream;
}

function syntheticCommits(n) {
  const list = [];
  for (let i = 1; i <= n; i++) {
    const r = rand();
    let subject;
    if (r < 0.1) subject = `Release ${Math.floor(i / 100)}.${i % 100}.0`;
    else if (r < 0.15) subject = 'Update dependencies';
    else
      subject = `${pick(VERBS)} ${pick(THINGS)} ${sentence(2 + Math.floor(rand() * 5))}${rand() < 0.33 ? ` (#${i})` : ''}`;
    const body = rand() < 0.5 ? `\n\n${sentence(5 + Math.floor(rand() * 35))}.` : '';
    const files = [];
    const count = 1 + Math.floor(rand() * 5);
    for (let f = 0; f < count; f++) files.push(`${pick(DIRS)}/file${Math.floor(rand() * 300)}.js`);
    list.push({ message: subject + body, files });
  }
  return list;
}

/** Real commits of each repository in turn (one from each, round robin) until `n`. */
function realMix(dirs, n) {
  const sources = dirs.map(realCommits);
  const list = [];
  for (let k = 0; list.length < n && sources.some((s) => k < s.length); k++)
    for (const s of sources) if (k < s.length && list.length < n) list.push(s[k]);
  return list;
}

const history = real ? realMix(real.split(','), commits) : syntheticCommits(commits);
function makeRepo(at, list) {
  execFileSync('git', ['init', '-q', '-b', 'main', at]);
  execFileSync('git', ['fast-import', '--quiet'], { cwd: at, input: importStream(list), maxBuffer: 1 << 30 });
  execFileSync('git', ['checkout', '-q', '-f', 'main'], { cwd: at });
}
makeRepo(repo, history);

const env = childEnv({ CI: 'true' });
const run = async (at, args) => {
  const r = await runProcess([BIN, '-C', at, ...args], { env });
  if (r.code !== 0) throw new Error(`agentos ${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
  return r;
};
const commitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Dev',
  GIT_AUTHOR_EMAIL: 'd@x',
  GIT_COMMITTER_NAME: 'Dev',
  GIT_COMMITTER_EMAIL: 'd@x',
};
const NEW_WORK = [
  'Add a --dry-run flag to the publish step',
  'Retry the registry lookup when the network drops',
  'Show the changelog before asking to publish',
];
/** One new commit then `index`, three times: the runs (the median is reported). */
async function newCommits(at) {
  const runs = [];
  for (const m of NEW_WORK) {
    execFileSync('git', ['commit', '-q', '--allow-empty', '-m', m], { cwd: at, env: commitEnv });
    runs.push(await run(at, ['index', '--json']));
  }
  return runs;
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

await run(repo, ['init', '--yes']);
const full = await run(repo, ['index', '--include-history', '--json']);
const report = JSON.parse(full.stdout);
const ones = await newCommits(repo);
const one = ones[1];
const oneMs = median(ones.map((r) => r.wallMs));
const none = await run(repo, ['index', '--json']);
// The same history's first `small` commits, indexed, then the same three new commits: the cost at a small size, in this run.
let smallOneMs = null;
if (small > 0 && small < history.length) {
  const smallRepo = path.join(dir, 'small');
  makeRepo(smallRepo, history.slice(0, small));
  await run(smallRepo, ['init', '--yes']);
  await run(smallRepo, ['index', '--include-history', '--json']);
  smallOneMs = median((await newCommits(smallRepo)).map((r) => r.wallMs));
}
const gitLog = spawnSync('git', ['log', '-z', '--first-parent', '--name-status', '--format=%H%x00%B', 'main'], {
  cwd: repo,
  maxBuffer: 1 << 30,
});

const mb = (kb) => (kb ? `${Math.round(kb / 1024)} MB` : 'n/a');
const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
const rows = [
  [
    'from scratch',
    s(full.wallMs),
    mb(full.peakRssKb),
    `${report.sources.git.commits} commits read, ${report.sources.documents} pieces of work, ${report.chunksEmbedded} chunks, ${report.tokensEmbedded} tokens`,
  ],
  [
    'one new commit (median of 3)',
    s(oneMs),
    mb(one.peakRssKb),
    `${JSON.parse(one.stdout).sources.git.mode}, ${JSON.parse(one.stdout).chunksEmbedded} chunk embedded`,
  ],
  ...(smallOneMs === null
    ? []
    : [
        [
          `one new commit at ${small} commits (median of 3)`,
          s(smallOneMs),
          '',
          `ratio at ${commits} / at ${small}: ${(oneMs / smallOneMs).toFixed(2)}x`,
        ],
      ]),
  ['nothing new', s(none.wallMs), mb(none.peakRssKb), JSON.parse(none.stdout).sources.git.mode],
];
console.log(
  `git history bench: ${commits} ${
    real
      ? `real commits from ${real
          .split(',')
          .map((d) => path.basename(path.dirname(d)) || d)
          .join(', ')}`
      : 'synthetic commits'
  }, ${os.cpus().length} cores, node ${process.version}; git log of the whole history ${(gitLog.stdout.length / 1e6).toFixed(1)} MB`,
);
console.log('| case | wall | peak RSS | what |\n| --- | ---: | ---: | --- |');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
writeFileSync(
  path.join(dir, 'result.json'),
  JSON.stringify(
    {
      commits,
      full: { wallMs: full.wallMs, peakRssKb: full.peakRssKb, report: report.sources },
      real,
      one: { wallMs: oneMs, peakRssKb: one.peakRssKb, runs: ones.map((r) => r.wallMs) },
      small: smallOneMs === null ? null : { commits: small, oneWallMs: smallOneMs },
      none: { wallMs: none.wallMs, peakRssKb: none.peakRssKb },
    },
    null,
    2,
  ),
);
if (keep) console.log(`kept ${dir}`);
else rmSync(dir, { recursive: true, force: true });
