// SLOW: real model
// What a change says about itself (issue 46), end to end on real git repositories built here:
// a brief in a user's words finds the commit through the docs lines, flags and test names its
// diff adds; a merge's pull-request title decides whether it is work; the merged branch's author
// is the work's author; a shallow clone says so and a deepened one is read again; with no remote
// the default branch is the repository's own, never a feature branch's work in progress.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import { runCli } from '../helpers/cli.js';

jest.setTimeout(240_000);

let top: string;
beforeAll(async () => {
  top = await mkdtemp(path.join(os.tmpdir(), 'agentos-git-words-'));
});
afterAll(() => rm(top, { recursive: true, force: true }));

const person = (name: string) => ({
  GIT_AUTHOR_NAME: name,
  GIT_AUTHOR_EMAIL: `${name.split(' ')[0].toLowerCase()}@example.com`,
  GIT_COMMITTER_NAME: name,
  GIT_COMMITTER_EMAIL: 'c@example.com',
});

/** A repository in `top/name` and the helpers to grow it, as `who`. */
async function repo(name: string, branch = 'main') {
  const dir = path.join(top, name);
  execFileSync('git', ['init', '-q', '-b', branch, dir]);
  const g = (args: string[], who = 'Ada Lovelace') =>
    execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...person(who) } }).trim();
  const commit = async (files: Record<string, string>, message: string, who?: string) => {
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
      g(['add', file], who);
    }
    g(['commit', '-q', '-m', message], who);
    return g(['rev-parse', 'HEAD']);
  };
  return { dir, g, commit };
}

const cli = (dir: string, args: string[]) => runCli(['-C', dir, ...args], { env: { CI: 'true' } });
async function check(dir: string, title: string, body: string) {
  const file = path.join(dir, '..', `${path.basename(dir)}-brief.md`);
  await writeFile(file, `# ${title}\n\n${body}\n`);
  const r = await cli(dir, ['issue', 'start', file, '--json', '--non-interactive', '--out', path.join(top, 'out.md')]);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as {
    status: string;
    nearest: Array<{
      ref: string;
      title: string;
      score: number;
      author: string | null;
      mergedBy: string | null;
      fileCount: number;
      components: { why: string[] };
    }>;
  };
}

test("a brief in a user's words finds the change whose docs and tests say it, though its subject says only the flag", async () => {
  const { dir, g, commit } = await repo('publisher');
  await commit(
    { 'readme.md': '# publisher\n\nPublish a package.\n', 'source/cli.js': 'export const flags = {};\n' },
    'Initial commit',
  );
  await commit(
    { 'source/ui.js': 'export const spinner = true;\n' },
    'Show a spinner while the registry answers (#790)',
  );
  await commit(
    { 'source/version.js': 'export const bump = "patch";\n' },
    'Ask for the version bump interactively (#795)',
  );
  const stage = await commit(
    {
      'readme.md':
        '# publisher\n\nPublish a package.\n\n## Options\n\n- `--stage` Stage the publish for later approval\n\n## Staged publishing\n\nWith staged publishing the new version waits on the registry until a second maintainer approves it.\n',
      'source/cli.js': "export const flags = { stage: { type: 'boolean' } };\n",
      'source/publish.js':
        "export async function stagePublish(pkg) {\n  throw new Error('Staged publishing needs npm 11.5 or later');\n}\n",
      'test/stage.js': "test('stages the publish instead of publishing it', async () => {});\n",
    },
    'Add --stage flag (#802)',
  );
  await commit(
    {
      'readme.md': '# publisher\n\nPublish a package.\n\n- `--remote` Git remote to push tags and commits to\n',
      'source/git.js': 'export function pushRemote(remote) {}\n',
    },
    'Add --remote flag (#810)',
  );
  g(['checkout', '-q', 'main']);
  expect((await cli(dir, ['init', '--yes'])).code).toBe(0);
  expect((await cli(dir, ['index', '--include-history'])).code).toBe(0);
  const r = await check(
    dir,
    'Let a second maintainer approve a release',
    "Publish the new version to npm's staging area so that another maintainer has to approve it before it goes live.",
  );
  expect(r.nearest[0].ref).toBe(stage);
  expect(['duplicate_alert', 'related_context']).toContain(r.status);
  expect(r.nearest[0].components.why[0]).toBe('matched what the change adds to its docs and code');
}, 240_000);

test("a merge: its pull request's title decides whether it is work, and the merged branch's author is the work's author", async () => {
  const { dir, g, commit } = await repo('merges');
  await commit({ 'README.md': '# merges\n' }, 'Initial commit');
  // A dependency bump merged by a person with the merge button: the bump's title is in the merge body.
  g(['checkout', '-q', '-b', 'dependabot/npm_and_yarn/lodash-4.17.21']);
  await commit(
    { 'package.json': '{"dependencies":{"lodash":"4.17.21"}}\n' },
    'Bump lodash from 4.17.20 to 4.17.21',
    'dependabot[bot]',
  );
  g(['checkout', '-q', 'main']);
  g(
    [
      'merge',
      '-q',
      '--no-ff',
      'dependabot/npm_and_yarn/lodash-4.17.21',
      '-m',
      'Merge pull request #40 from acme/dependabot/npm_and_yarn/lodash-4.17.21\n\nBump lodash from 4.17.20 to 4.17.21',
    ],
    'Mona Maintainer',
  );
  // A feature written by Grace, merged by Mona.
  g(['checkout', '-q', '-b', 'grace/retry']);
  await commit(
    { 'src/retry.js': 'export function retryOnRateLimit(call) {}\n' },
    'Wait for the rate-limit reset and retry GitHub calls',
    'Grace Hopper',
  );
  g(['checkout', '-q', 'main']);
  g(
    [
      'merge',
      '-q',
      '--no-ff',
      'grace/retry',
      '-m',
      'Merge pull request #41 from grace/retry\n\nRetry GitHub API calls when rate limited',
    ],
    'Mona Maintainer',
  );
  expect((await cli(dir, ['init', '--yes'])).code).toBe(0);
  const index = await cli(dir, ['index', '--include-history']);
  expect(index.code).toBe(0);
  // The initial commit and Grace's pull request; the bump a person merged is a bot's.
  expect(index.stdout).toMatch(/2 pieces of work on main/);
  expect(index.stdout).toMatch(/not work\s+1 bot/);
  const r = await check(
    dir,
    'Retry when the GitHub API rate limit is hit',
    'Releases fail with a 403 when the GitHub API rate limit is reached. Wait for the reset and try the call again.',
  );
  expect(r.nearest[0]).toMatchObject({
    title: 'Retry GitHub API calls when rate limited',
    author: 'Grace Hopper',
    mergedBy: 'Mona Maintainer',
  });
}, 240_000);

test('a shallow clone says where its history stops, lists no whole tree for its boundary, and is read again when deepened', async () => {
  const src = await repo('deep');
  await src.commit({ 'README.md': '# deep\n', 'a.js': 'a\n', 'b.js': 'b\n', 'c.js': 'c\n' }, 'Initial commit');
  await src.commit(
    { 'src/old.js': 'export function parseLegacyConfig() {}\n' },
    'Read the legacy configuration file format',
  );
  await src.commit({ 'src/mid.js': 'export function mid() {}\n' }, 'Add a middle feature');
  await src.commit({ 'src/new.js': 'export function newest() {}\n' }, 'Add the newest feature');
  const dir = path.join(top, 'deep-clone');
  execFileSync('git', ['clone', '-q', '--depth', '2', `file://${src.dir}`, dir]);
  expect((await cli(dir, ['init', '--yes'])).code).toBe(0);
  const shallow = await cli(dir, ['index', '--include-history']);
  expect(shallow.code).toBe(0);
  expect(shallow.stdout).toMatch(/shallow clone\s+history before \d{4}-\d\d-\d\d is not there/);
  expect(shallow.stdout).toMatch(/2 pieces of work/);
  const boundary = await check(dir, 'Add a middle feature', 'The middle feature.');
  // Its parent is not there: git would list the whole tree (5 files) as what it added.
  expect(boundary.nearest.find((m) => m.title === 'Add a middle feature')).toMatchObject({ fileCount: 0 });
  execFileSync('git', ['fetch', '-q', '--unshallow'], { cwd: dir });
  const deep = await cli(dir, ['index', '--include-history']);
  expect(deep.code).toBe(0);
  expect(deep.stdout).toMatch(/the clone was deepened to its whole history/);
  expect(deep.stdout).toMatch(/4 pieces of work/);
  expect(deep.stdout).not.toMatch(/shallow clone/);
  expect(
    (await check(dir, 'Add a middle feature', 'The middle feature.')).nearest.find(
      (m) => m.title === 'Add a middle feature',
    ),
  ).toMatchObject({ fileCount: 1 });
}, 240_000);

test("no remote, a develop branch and a feature branch checked out: the history is develop's, never the work in progress, nor a stale master", async () => {
  const { dir, g, commit } = await repo('flow', 'master');
  await commit({ 'README.md': '# flow\n' }, 'Initial commit');
  g(['checkout', '-q', '-b', 'develop']);
  await commit({ 'src/export.js': 'export function exportCsv() {}\n' }, 'Export the report as CSV');
  g(['checkout', '-q', '-b', 'feature/pdf']);
  await commit({ 'src/pdf.js': 'export function exportPdf() {}\n' }, 'WIP: export the report as PDF');
  expect((await cli(dir, ['init', '--yes'])).code).toBe(0);
  const index = await cli(dir, ['index', '--include-history']);
  expect(index.code).toBe(0);
  expect(index.stdout).toMatch(/on develop/);
  const r = await check(dir, 'Export the report as a PDF file', 'Users want to download the monthly report as a PDF.');
  expect(r.nearest.map((m) => m.title)).not.toContain('WIP: export the report as PDF');
  expect(r.status).not.toBe('duplicate_alert');
}, 240_000);

test('a revert whose title was edited is found by what it undoes: the reverted work shows as reverted', async () => {
  const { dir, g, commit } = await repo('reverts');
  await commit({ 'README.md': '# reverts\n', 'src/api.js': 'export const api = 1;\n' }, 'Initial commit');
  const proxy = await commit(
    { 'src/proxy.js': 'export function proxyAgent(url) {\n  return new HttpsProxyAgent(url);\n}\n' },
    'Route API requests through the HTTPS_PROXY environment variable (#6552)',
  );
  await commit({ 'src/api.js': 'export const api = 2;\n' }, 'Raise the API version (#6560)');
  // `git revert` with the message rewritten by its author, as GitHub's edited revert titles are.
  g(['revert', '--no-commit', proxy]);
  g(['commit', '-q', '-m', 'Drop proxy support: it broke GitHub Enterprise Server (#6608)']);
  expect((await cli(dir, ['init', '--yes'])).code).toBe(0);
  expect((await cli(dir, ['index', '--include-history'])).code).toBe(0);
  const r = await check(
    dir,
    'Send API calls through a corporate proxy',
    'Behind our corporate proxy every API call times out. Read HTTPS_PROXY and route requests through it.',
  );
  const m = r.nearest.find((x) => x.ref === proxy) as { status: string; statusReason: string } | undefined;
  expect(m).toMatchObject({ status: 'superseded', statusReason: expect.stringMatching(/^Reverted in [0-9a-f]{7} /) });
}, 240_000);

test('a 100 KB subject is a line, not a document: its text is capped and it makes a chunk or two', async () => {
  const { dir, g, commit } = await repo('long-subject');
  await commit({ 'README.md': '# long\n' }, 'Initial commit');
  await writeFile(path.join(dir, 'msg.txt'), `${'Handle the very long subject line '.repeat(3100)}\n`);
  await writeFile(path.join(dir, 'a.js'), 'export const a = 1;\n');
  g(['add', 'a.js']);
  g(['commit', '-q', '-F', 'msg.txt']);
  expect((await cli(dir, ['init', '--yes'])).code).toBe(0);
  const index = await cli(dir, ['index', '--include-history', '--json']);
  expect(index.code).toBe(0);
  // Two pieces of work: the initial commit (one chunk) and the long one (its capped title, and what it adds).
  expect(JSON.parse(index.stdout).chunks).toBeLessThanOrEqual(4);
}, 240_000);

test('a blob missing from the clone (a partial clone offline, a damaged object): that commit has no words, the others keep theirs, and index says so', async () => {
  const { dir, g, commit } = await repo('missing-blob');
  await commit({ 'README.md': '# tool\n' }, 'Initial commit');
  const early = await commit(
    {
      'README.md': '# tool\n\n`--stage` Stage the publish for later approval by a second maintainer.\n',
      'src/cli.js': "flags.option('--stage');\n",
    },
    'Add --stage flag (#802)',
  );
  const lost = await commit({ 'data/session.json': '{"turns": 1}\n' }, 'Record a sample chat session');
  await commit(
    {
      'README.md': '# tool\n\n`--remote` Git remote to push tags and commits to.\n',
      'src/cli.js': "flags.option('--remote');\n",
    },
    'Add --remote flag (#810)',
  );
  // The sample's blob goes from the object store: `git log -p` dies on that commit.
  const blob = g(['rev-parse', `${lost}:data/session.json`]);
  await rm(path.join(dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
  expect((await cli(dir, ['init', '--yes'])).code).toBe(0);
  const index = await cli(dir, ['index', '--include-history', '--json']);
  expect(index.code).toBe(0);
  const json = JSON.parse(index.stdout) as { warnings: string[]; added: string[] };
  expect(json.added).toHaveLength(4);
  expect(json.warnings.join('\n')).toMatch(
    new RegExp(`git could not read the diff of 1 commit \\(fatal: unable to read ${blob}\\)`),
  );
  // Commits before and after the unreadable one were read for their words.
  const stage = await check(
    dir,
    'Hold a publish until another maintainer approves it',
    'Releases should wait until a second maintainer approves the staged publish.',
  );
  expect(stage.nearest[0].ref).toBe(early);
  // As stored: the words of the commits on both sides of it, none for it.
  const generation = (await readFile(path.join(dir, '.agentos', 'index', 'CURRENT'), 'utf8')).trim();
  const texts = (
    JSON.parse(await readFile(path.join(dir, '.agentos', 'index', generation, 'sources.json'), 'utf8')) as {
      texts: Record<string, string>;
    }
  ).texts;
  const latest = g(['rev-parse', 'HEAD']);
  expect(texts[`git:${latest}`]).toContain('Git remote to push tags and commits to');
  expect(texts[`git:${early}`]).toContain('Stage the publish for later approval');
  expect(texts[`git:${lost}`]).not.toContain('What the change adds');
}, 240_000);
