#!/usr/bin/env node
// Git history as completed work (issue 28): index a repository of N commits from scratch,
// then one new commit, then nothing new, each a whole `agentos` process measured from
// outside (wall, peak RSS through GNU time). The repository is synthetic: N commits
// written by `git fast-import` with messages drawn from a fixed vocabulary, sized like a
// real history's (release-it: ~40 word pieces per piece of work), 10% releases and 5%
// dependency updates (left out as not work), a pull request number on a third.
//
//   npm run build && node bench/git-history-bench.mjs [--commits 8000] [--keep]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, childEnv, runProcess } from './lib/common.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : dflt);
const commits = Number(opt('commits', 8000));
const keep = argv.includes('--keep');

// A deterministic generator: the same history on every run.
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = (a) => a[Math.floor(rand() * a.length)];
const VERBS = ['Add', 'Fix', 'Support', 'Refactor', 'Remove', 'Improve', 'Handle', 'Cache', 'Validate', 'Document', 'Retry', 'Parse', 'Skip', 'Allow', 'Deprecate'];
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
execFileSync('git', ['init', '-q', '-b', 'main', repo]);
let stream = '';
let t = 1_600_000_000;
for (let i = 1; i <= commits; i++) {
  const r = rand();
  let subject;
  if (r < 0.1) subject = `Release ${Math.floor(i / 100)}.${i % 100}.0`;
  else if (r < 0.15) subject = 'Update dependencies';
  else subject = `${pick(VERBS)} ${pick(THINGS)} ${sentence(2 + Math.floor(rand() * 5))}${rand() < 0.33 ? ` (#${i})` : ''}`;
  const body = rand() < 0.5 ? `\n\n${sentence(5 + Math.floor(rand() * 35))}.` : '';
  const message = Buffer.from(subject + body + '\n');
  stream += `commit refs/heads/main\nmark :${i}\nauthor Dev <dev@example.com> ${t} +0000\ncommitter Dev <dev@example.com> ${t} +0000\ndata ${message.length}\n${message}\n`;
  if (i > 1) stream += `from :${i - 1}\n`;
  const files = 1 + Math.floor(rand() * 5);
  for (let f = 0; f < files; f++) stream += `M 644 inline ${pick(DIRS)}/file${Math.floor(rand() * 300)}.js\ndata <<EOF\n${i}\nEOF\n`;
  stream += '\n';
  t += 3600;
}
execFileSync('git', ['fast-import', '--quiet'], { cwd: repo, input: stream, maxBuffer: 1 << 30 });
execFileSync('git', ['checkout', '-q', '-f', 'main'], { cwd: repo });

const env = childEnv({ CI: 'true' });
const run = async (args) => {
  const r = await runProcess([BIN, '-C', repo, ...args], { env });
  if (r.code !== 0) throw new Error(`agentos ${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
  return r;
};
await run(['init', '--yes']);
const full = await run(['index', '--include-history', '--json']);
const report = JSON.parse(full.stdout);
execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'Add a --dry-run flag to the publish step'], {
  cwd: repo,
  env: { ...process.env, GIT_AUTHOR_NAME: 'Dev', GIT_AUTHOR_EMAIL: 'd@x', GIT_COMMITTER_NAME: 'Dev', GIT_COMMITTER_EMAIL: 'd@x' },
});
const one = await run(['index', '--json']);
const none = await run(['index', '--json']);
const gitLog = spawnSync('git', ['log', '-z', '--first-parent', '--name-status', '--format=%H%x00%B', 'main'], { cwd: repo, maxBuffer: 1 << 30 });

const mb = (kb) => (kb ? `${Math.round(kb / 1024)} MB` : 'n/a');
const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
const rows = [
  [
    'from scratch',
    s(full.wallMs),
    mb(full.peakRssKb),
    `${report.sources.git.commits} commits read, ${report.sources.documents} pieces of work, ${report.chunksEmbedded} chunks, ${report.tokensEmbedded} tokens`,
  ],
  ['one new commit', s(one.wallMs), mb(one.peakRssKb), `${JSON.parse(one.stdout).sources.git.mode}, ${JSON.parse(one.stdout).chunksEmbedded} chunk embedded`],
  ['nothing new', s(none.wallMs), mb(none.peakRssKb), JSON.parse(none.stdout).sources.git.mode],
];
console.log(`git history bench: ${commits} commits, ${os.cpus().length} cores, node ${process.version}; git log of the whole history ${(gitLog.stdout.length / 1e6).toFixed(1)} MB`);
console.log('| case | wall | peak RSS | what |\n| --- | ---: | ---: | --- |');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
writeFileSync(
  path.join(dir, 'result.json'),
  JSON.stringify(
    {
      commits,
      full: { wallMs: full.wallMs, peakRssKb: full.peakRssKb, report: report.sources },
      one: { wallMs: one.wallMs, peakRssKb: one.peakRssKb },
      none: { wallMs: none.wallMs, peakRssKb: none.peakRssKb },
    },
    null,
    2,
  ),
);
if (keep) console.log(`kept ${dir}`);
else rmSync(dir, { recursive: true, force: true });
