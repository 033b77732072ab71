// SLOW: real model
// An update that only adds new commits' work appends it beside the base (issue 46, index/append.ts):
// the base files are linked, not rewritten; the index answers as one written whole would; anything
// else (a revert among the new commits, a changed file, a delta past its share) writes it whole; a
// kill in the append's write leaves the previous generation live.
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import { runCli } from '../helpers/cli.js';
import { BIN } from '../helpers/paths.js';
import { indexPaths } from '../../src/work-memory/index/layout.js';
import { readCurrent } from '../../src/work-memory/index/hnsw-index.js';
import type { Manifest } from '../../src/work-memory/index/types.js';

jest.setTimeout(300_000);

let top: string;
beforeAll(async () => {
  top = await mkdtemp(path.join(os.tmpdir(), 'agentos-append-'));
});
afterAll(() => rm(top, { recursive: true, force: true }));

const who = {
  GIT_AUTHOR_NAME: 'Ada Lovelace',
  GIT_AUTHOR_EMAIL: 'ada@example.com',
  GIT_COMMITTER_NAME: 'Ada Lovelace',
  GIT_COMMITTER_EMAIL: 'ada@example.com',
};
const WORK = [
  ['src/cache.js', 'Cache the registry lookups for an hour'],
  ['src/retry.js', 'Retry the upload when the network drops'],
  ['src/notes.js', 'Generate release notes from merged pull requests'],
  ['src/tags.js', 'Match tags with a custom pattern'],
  ['src/proxy.js', 'Honour the HTTPS proxy settings for every request'],
  ['src/hooks.js', 'Run user hooks before and after each release step'],
  ['src/dry.js', 'Print what a dry run would publish without publishing'],
  ['src/token.js', 'Explain which token scopes a GitLab release needs'],
] as const;

async function project(name: string): Promise<{
  dir: string;
  commit: (file: string, text: string, message: string) => Promise<string>;
  git: (args: string[]) => string;
}> {
  const dir = path.join(top, name);
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  const git = (args: string[]) =>
    execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...who } }).trim();
  const commit = async (file: string, text: string, message: string) => {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
    git(['add', file]);
    git(['commit', '-q', '-m', message]);
    return git(['rev-parse', 'HEAD']);
  };
  await mkdir(path.join(dir, 'docs', 'standards'), { recursive: true });
  await writeFile(
    path.join(dir, 'docs', 'standards', 'errors.md'),
    '# Error handling standard\n\nEvery command exits with a documented code and names the file it could not read.\n',
  );
  git(['add', '.']);
  git(['commit', '-q', '-m', 'Add the error handling standard']);
  for (const [file, message] of WORK) await commit(file, `export const x = ${JSON.stringify(message)};\n`, message);
  return { dir, commit, git };
}

const cli = (dir: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(['-C', dir, ...args], { env: { CI: 'true', ...env } });
const live = async (dir: string) => {
  const name = readCurrent(dir)!;
  const g = indexPaths(dir).generation(name);
  return {
    name,
    dir: g.dir,
    manifest: JSON.parse(await readFile(g.manifest, 'utf8')) as Manifest,
    files: (await readdir(g.dir)).sort(),
  };
};
async function index(dir: string, extra: string[] = []) {
  const r = await cli(dir, ['index', '--include-history', '--json', ...extra]);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as { added: string[]; chunksEmbedded: number; sources: { git: { mode: string } } };
}
async function nearest(dir: string, title: string, body: string) {
  const file = path.join(top, `${path.basename(dir)}-${title.length}.md`);
  await writeFile(file, `# ${title}\n\n${body}\n`);
  const r = await cli(dir, [
    'issue',
    'start',
    file,
    '--json',
    '--non-interactive',
    '--no-refresh',
    '--out',
    path.join(top, 'out.md'),
  ]);
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as { status: string; nearest: Array<{ ref: string; score: number }> };
  return { status: out.status, nearest: out.nearest.map((m) => ({ ref: m.ref, score: Number(m.score.toFixed(6)) })) };
}

const BRIEFS: Array<[string, string]> = [
  [
    'Sign release artifacts with a GPG key',
    'Every artifact we upload should carry a detached signature made with the maintainers key.',
  ],
  ['Retry uploads after a network failure', 'A flaky connection makes the upload fail halfway; it should try again.'],
  [
    'Cache lookups against the registry',
    'Each run asks the registry the same questions; keep the answers for a while.',
  ],
];

test('new commits are appended beside the linked base, and the index answers exactly as one written whole', async () => {
  const { dir, commit } = await project('append');
  expect(await cli(dir, ['init', '--yes'])).toMatchObject({ code: 0 });
  await index(dir);
  const before = await live(dir);
  expect(before.manifest.delta).toBeUndefined();
  expect(before.files).toContain('templates.json');
  const baseInode = (await stat(path.join(before.dir, 'meta.json'))).ino;

  const sign = await commit('src/sign.js', 'export const sign = true;\n', 'Sign release artifacts with a GPG key');
  const report = await index(dir);
  expect(report.sources.git.mode).toBe('incremental');
  expect(report.added).toEqual([`git:${sign}`]);
  const after = await live(dir);
  expect(after.manifest.formatVersion).toBe(2);
  expect(after.manifest.delta).toMatchObject({
    docs: 1,
    chunks: report.chunksEmbedded,
    firstLabel: before.manifest.nextLabel,
  });
  expect(after.files).toEqual([...before.files, 'delta.hnsw', 'delta.json'].sort());
  // The base is the previous generation's own bytes: linked (one inode, two names), never rewritten.
  for (const f of ['vectors.hnsw', 'meta.json', 'lexical.json', 'sources.json']) {
    const [a, b] = await Promise.all([stat(path.join(before.dir, f)), stat(path.join(after.dir, f))]);
    expect(b.ino).toBe(a.ino);
  }
  // A second new commit grows the delta; the base stays linked.
  const notes = await commit('src/notes-md.js', 'export const md = true;\n', 'Write the release notes as markdown');
  await index(dir);
  const again = await live(dir);
  expect(again.manifest.delta?.docs).toBe(2);
  expect((await stat(path.join(again.dir, 'meta.json'))).ino).toBe(baseInode);

  // The same history indexed whole: every brief gets the same candidates with the same scores.
  const whole = path.join(top, 'append-whole');
  await cp(dir, whole, { recursive: true });
  await index(whole, ['--full']);
  expect((await live(whole)).manifest.delta).toBeUndefined();
  for (const [title, body] of BRIEFS)
    expect(await nearest(dir, title, body)).toEqual(await nearest(whole, title, body));
  const found = await nearest(
    dir,
    'Sign release artifacts with a GPG key',
    'Every artifact we upload should carry a detached signature made with the maintainers key.',
  );
  expect(found.nearest[0].ref).toBe(sign);
  // Every other reader sees the appended work too: what was worked on, and the status counts.
  const worked = await cli(dir, ['worked-on', '--json']);
  expect(worked.code).toBe(0);
  expect(worked.stdout).toContain('Sign release artifacts with a GPG key');
  expect(worked.stdout).toBe((await cli(whole, ['worked-on', '--json'])).stdout.replaceAll(whole, dir));
  const status = await cli(dir, ['status', '--json']);
  expect(status.code).toBe(0);
  expect(JSON.parse(status.stdout)).toMatchObject({
    index: { chunks: (await live(whole)).manifest.chunkCount, documents: { history: 11 } },
  });
  expect(
    (await nearest(dir, 'Release notes as markdown', 'Write the release notes in markdown.')).nearest.map((m) => m.ref),
  ).toContain(notes);

  // A changed file is not an append: the generation is written whole, the delta folded into its base.
  await writeFile(
    path.join(dir, 'docs', 'standards', 'errors.md'),
    '# Error handling standard\n\nEvery command exits with a documented code, names the file and says what to do.\n',
  );
  await commit('src/gpg.js', 'export const gpg = 1;\n', 'Verify GPG signatures before publishing');
  await index(dir);
  const folded = await live(dir);
  expect(folded.manifest.delta).toBeUndefined();
  expect(folded.manifest.formatVersion).toBe(1);
  expect(folded.files).not.toContain('delta.json');
  expect(
    (
      await nearest(
        dir,
        'Sign release artifacts with a GPG key',
        'Every artifact we upload should carry a detached signature.',
      )
    ).nearest[0].ref,
  ).toBe(sign);
});

test('a revert among the new commits marks the work it undid: the update is written whole', async () => {
  const { dir, git } = await project('revert');
  expect(await cli(dir, ['init', '--yes'])).toMatchObject({ code: 0 });
  await index(dir);
  const proxy = git(['log', '--format=%H', '-1', '--', 'src/proxy.js']);
  git(['revert', '--no-edit', proxy]);
  await index(dir);
  const m = await live(dir);
  expect(m.manifest.delta).toBeUndefined();
  const r = await cli(dir, ['search', 'HTTPS proxy settings for every request', '--json']);
  expect(r.code).toBe(0);
  const hit = (
    JSON.parse(r.stdout) as { results: Array<{ ref?: string; path?: string; status?: string }> }
  ).results.find((h) => JSON.stringify(h).includes(proxy));
  expect(JSON.stringify(hit)).toContain('superseded');
});

test('a delta past its share of the base is folded in: the generation is written whole', async () => {
  const { dir, git } = await project('fold');
  expect(await cli(dir, ['init', '--yes'])).toMatchObject({ code: 0 });
  await index(dir);
  // 70 new commits at once: more than the delta may hold beside a base of 9 (MIN_DELTA_CHUNKS is 64).
  for (let i = 0; i < 70; i++)
    git(['commit', '-q', '--allow-empty', '-m', `Tune the step ${i} of the release for the mirror number ${i * 13}`]);
  const report = await index(dir);
  expect(report.added.length).toBe(70);
  expect((await live(dir)).manifest.delta).toBeUndefined();
  expect(
    (await nearest(dir, 'Tune step 42 of the release for mirror 546', 'The release step for the mirror needs tuning.'))
      .nearest.length,
  ).toBeGreaterThan(0);
});

test('a rewritten branch after appends drops the work no longer in it; a damaged delta is rebuilt, never carried on', async () => {
  const { dir, commit, git } = await project('rewrite');
  expect(await cli(dir, ['init', '--yes'])).toMatchObject({ code: 0 });
  await index(dir);
  const keep = await commit('src/keep.js', 'export const keep = 1;\n', 'Keep the release log for a year');
  const gone = await commit('src/gone.js', 'export const gone = 1;\n', 'Upload the coverage report to the dashboard');
  await index(dir);
  expect((await live(dir)).manifest.delta?.docs).toBe(2);
  // The last commit rewritten away: a whole update, its document (in the delta) removed, the other kept.
  git(['reset', '-q', '--hard', keep]);
  await commit('src/other.js', 'export const other = 1;\n', 'Print the registry that answered');
  const report = await index(dir);
  expect(report.sources.git.mode).toBe('full');
  const m = await live(dir);
  expect(m.manifest.delta).toBeUndefined();
  const r = await cli(dir, ['search', 'Upload the coverage report to the dashboard', '--json']);
  const refs = (JSON.parse(r.stdout) as { results: Array<{ ref?: string }> }).results.map((h) => h.ref);
  expect(refs).not.toContain(gone);
  expect(
    (await nearest(dir, 'Keep the release log for a year', 'Release logs should be kept for a year.')).nearest[0].ref,
  ).toBe(keep);

  // A delta whose vectors were damaged on disk (same size, other bytes) is not appended to: the next update rebuilds.
  await commit('src/a.js', 'export const a = 1;\n', 'Mirror the release to a second registry');
  await index(dir);
  const damaged = await live(dir);
  expect(damaged.manifest.delta?.docs).toBe(1);
  const file = path.join(damaged.dir, 'delta.hnsw');
  const bytes = await readFile(file);
  await writeFile(file, Buffer.alloc(bytes.length, 7));
  await commit('src/b.js', 'export const b = 1;\n', 'Announce the release in the team chat');
  const rebuilt = await cli(dir, ['index', '--include-history', '--json']);
  expect(rebuilt.code).toBe(0);
  expect(JSON.parse(rebuilt.stdout).fullRebuildReason).toMatch(/delta\.hnsw is truncated or corrupt/);
  expect((await live(dir)).manifest.delta).toBeUndefined();
});

test('a configured branch that no longer resolves is a whole update: its work is dropped and the reason said', async () => {
  const { dir, git } = await project('branch-gone');
  git(['checkout', '-q', '-b', 'release']);
  git(['commit', '-q', '--allow-empty', '-m', 'Freeze the release branch']);
  expect(await cli(dir, ['init', '--yes'])).toMatchObject({ code: 0 });
  const configFile = path.join(dir, '.agentos', 'config.yaml');
  const config = await readFile(configFile, 'utf8');
  expect(config).toMatch(/^ {2}git: true\b/m);
  await writeFile(configFile, config.replace(/^ {2}git: true\b/m, '  git: { branch: release }'));
  const first = await index(dir);
  expect(first.sources.git).toMatchObject({ mode: 'full' });
  git(['checkout', '-q', 'main']);
  git(['branch', '-q', '-D', 'release']);
  const r = await cli(dir, ['index', '--include-history', '--json']);
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as { warnings: string[]; removed: string[] };
  expect(out.warnings.join('\n')).toMatch(/no commit on release/);
  expect(out.removed.length).toBeGreaterThan(5);
  expect((await live(dir)).manifest.delta).toBeUndefined();
});

/** A preload that SIGKILLs the process at the rename that would make the appended generation live (as crash.test.ts). */
const PRELOAD = `
const fs = require('node:fs');
const path = require('node:path');
const { syncBuiltinESMExports } = require('node:module');
const rename = fs.promises.rename;
fs.promises.rename = async function (from, to) {
  if (path.basename(String(to)) === 'CURRENT') process.kill(process.pid, 'SIGKILL');
  return rename.call(this, from, to);
};
syncBuiltinESMExports();
`;

test('killed before the appended generation goes live: the previous one answers, the next run appends cleanly', async () => {
  const { dir, commit } = await project('crash');
  expect(await cli(dir, ['init', '--yes'])).toMatchObject({ code: 0 });
  await index(dir);
  const before = await live(dir);
  const sign = await commit('src/sign.js', 'export const sign = true;\n', 'Sign release artifacts with a GPG key');
  const preload = path.join(top, 'kill-at-current.cjs');
  await writeFile(preload, PRELOAD);
  const killed = await runCli(['--require', preload, BIN, '-C', dir, 'index', '--include-history'], {
    node: true,
    env: { CI: 'true' },
  });
  expect(killed.signal).toBe('SIGKILL');
  expect(readCurrent(dir)).toBe(before.name);
  expect(
    (await nearest(dir, 'Retry uploads after a network failure', 'A flaky connection makes the upload fail.')).nearest
      .length,
  ).toBeGreaterThan(0);
  await index(dir);
  const after = await live(dir);
  expect(after.manifest.delta?.docs).toBe(1);
  expect((await readdir(indexPaths(dir).dir)).filter((e) => e.startsWith('.tmp-'))).toEqual([]);
  expect(
    (await nearest(dir, 'Sign release artifacts with a GPG key', 'Every artifact should carry a detached signature.'))
      .nearest[0].ref,
  ).toBe(sign);
});
