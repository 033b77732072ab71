/**
 * The Action's script end to end (issue 32): `agentos ci github`, built, on the indexed demo,
 * given GitHub's recorded `issues.opened` payload (test/fixtures/github/README.md) and a local
 * server answering GitHub's REST calls (test/helpers/fake-github.ts). And `issue start --format
 * markdown|github` byte for byte on the demo's briefs (test/fixtures/ci-output/).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { indexedDemo, runCli } from '../helpers/cli.js';
import { fakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { REPO } from '../helpers/paths.js';

/** The fields of the recorded payload the tests change. */
type GitHubEvent = { action: string; issue?: Record<string, unknown>; [key: string]: unknown };

const REPO_NAME = 'Codertocat/Hello-World';
const TOKEN = 'ghs_16C7e42F292c6912E7710c838347Ae178B4a';
const SHA = '6dcb09b5b57875f334f61aebed695e2e4193db5e';
let dir: string;
let gh: FakeGitHub;
let scratch: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'agentos-ci-'));
  scratch = await mkdtemp(path.join(os.tmpdir(), 'agentos-ci-events-'));
  await indexedDemo(dir);
  gh = await fakeGitHub(REPO_NAME);
}, 180_000);
afterAll(async () => {
  await gh?.close();
  await rm(dir, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

const opened = async () =>
  JSON.parse(
    await readFile(path.join(REPO, 'test', 'fixtures', 'github', 'issues-opened.json'), 'utf8'),
  ) as GitHubEvent;
const brief = async (name: string) => {
  const text = await readFile(path.join(dir, 'briefs', `${name}.md`), 'utf8');
  return { title: text.split('\n')[0].replace(/^#\s*/, ''), body: text.split('\n').slice(1).join('\n').trim() };
};

/** An event of GitHub's shape: the recorded `opened` payload with this issue's number, text and action. */
async function event(
  action: string,
  number: number,
  text: { title: string; body: string },
  extra: Record<string, unknown> = {},
  issueExtra: Record<string, unknown> = {},
): Promise<string> {
  const e = await opened();
  e.action = action;
  Object.assign(
    e.issue!,
    { number, title: text.title, body: text.body, url: `https://api.github.com/repos/${REPO_NAME}/issues/${number}` },
    issueExtra,
  );
  Object.assign(e, extra);
  const file = path.join(scratch, `${action}-${number}-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify(e));
  return file;
}

function ci(eventName: string, file: string, args: string[] = [], env: NodeJS.ProcessEnv = {}, root = dir) {
  return runCli(['-C', root, 'ci', 'github', ...args], {
    cwd: root,
    env: {
      GITHUB_EVENT_NAME: eventName,
      GITHUB_EVENT_PATH: file,
      GITHUB_TOKEN: TOKEN,
      GITHUB_API_URL: gh.url,
      GITHUB_REPOSITORY: REPO_NAME,
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_SHA: SHA,
      GITHUB_STEP_SUMMARY: undefined,
      ...env,
    },
  });
}

const writes = (n: number) => gh.calls.filter((c) => c.method !== 'GET' && c.path.includes(`/issues/${n}/`));

describe('issues: a re-filed issue gets one comment and the label; a clear one nothing', () => {
  test('opened: one comment naming #27 with its score, why and link, and the label', async () => {
    const r = await ci('issues', await event('opened', 101, await brief('optimize-docker-build-times')));
    expect(r.code).toBe(0);
    expect(gh.comments.get(101)).toHaveLength(1);
    const body = gh.comments.get(101)![0].body;
    expect(body.startsWith('<!-- agentos:check -->\n')).toBe(true);
    expect(body).toMatch(
      /\[#27: Docker Build Optimization\]\(https:\/\/github\.com\/Codertocat\/Hello-World\/blob\/6dcb09b5[0-9a-f]+\/docs\/audit\/done\/27-docker-build-optimization\/001-issue\.md\)/,
    );
    expect(body).toMatch(/\(score 0\.9\d+/);
    expect(gh.labels.get(101)).toEqual(['possible-duplicate']);
    // The label first: the comment says the issue is labelled, which a refused label would make untrue.
    const order = writes(101).map((c) => (c.path.endsWith('/labels') ? 'label' : 'comment'));
    expect(order).toEqual(['label', 'comment']);
    expect(gh.calls.every((c) => c.auth === `Bearer ${TOKEN}`)).toBe(true);
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  }, 60_000);

  test('a re-run (edited, still the same work) edits that comment: never a second one', async () => {
    const before = writes(101).filter((c) => c.method === 'POST' && c.path.endsWith('/comments')).length;
    const text = await brief('optimize-docker-build-times');
    const r = await ci(
      'issues',
      await event('edited', 101, { ...text, body: `${text.body}\n\nAlso: the dashboard image.` }),
    );
    expect(r.code).toBe(0);
    expect(gh.comments.get(101)).toHaveLength(1);
    expect(writes(101).filter((c) => c.method === 'POST' && c.path.endsWith('/comments')).length).toBe(before);
    expect(gh.calls.filter((c) => c.method === 'PATCH')).toHaveLength(1);
    // Labelled once: a label a maintainer removes is their answer, not for an edit to put back.
    expect(writes(101).filter((c) => c.path.endsWith('/labels'))).toHaveLength(1);
  }, 60_000);

  test('a clear brief: nothing posted, no label', async () => {
    const r = await ci('issues', await event('opened', 102, await brief('unrelated-onboarding-tour')));
    expect(r.code).toBe(0);
    expect(writes(102)).toEqual([]);
    expect(r.stderr).toMatch(/#102: no earlier work like it/);
  }, 60_000);

  test('related work: a comment, no label', async () => {
    const r = await ci('issues', await event('opened', 103, await brief('session-refresh')));
    expect(r.code).toBe(0);
    expect(gh.comments.get(103)?.[0].body).toMatch(/### agentos: related past work\n\n- \*\*\[#88: /);
    expect(gh.labels.get(103)).toBeUndefined();
  }, 60_000);

  test("a title that opens with another issue's number is not that issue: the issue is the one opened", async () => {
    // #88 is done work of the demo (frontmatter issue: 88); as its own brief "#88 …" would be raised to an alert.
    const text = await brief('session-refresh');
    const r = await ci('issues', await event('opened', 117, { ...text, title: `#88 follow-up: ${text.title}` }));
    expect(r.code).toBe(0);
    expect(gh.comments.get(117)?.[0].body).toMatch(/### agentos: related past work\n\n- \*\*\[#88: /);
    expect(gh.labels.get(117)).toBeUndefined();
  }, 60_000);

  test('edited until it no longer matches: the earlier comment says so, and the label agentos added comes off', async () => {
    expect(gh.labels.get(101)).toEqual(['possible-duplicate']);
    // As GitHub sends it: the issue's labels at the time of the event.
    const r = await ci(
      'issues',
      await event(
        'edited',
        101,
        await brief('unrelated-onboarding-tour'),
        {},
        { labels: [{ id: 1, name: 'possible-duplicate', color: 'ededed' }] },
      ),
    );
    expect(r.code).toBe(0);
    expect(gh.comments.get(101)).toHaveLength(1);
    expect(gh.comments.get(101)![0].body).toMatch(/no longer matches earlier work/);
    expect(
      writes(101)
        .filter((c) => c.method === 'DELETE')
        .map((c) => c.path),
    ).toEqual([`/repos/${REPO_NAME}/issues/101/labels/possible-duplicate`]);
    expect(gh.labels.get(101)).toEqual([]);
    expect(r.stderr).toMatch(/label "possible-duplicate" removed/);
    // Taken off by agentos, not by a maintainer: the comment no longer says it was labelled, so a later alert labels again.
    expect(gh.comments.get(101)![0].body).not.toContain('"labelled":true');
  }, 60_000);

  test('edited from an alert to related work only: the comment lists the related work and the label comes off', async () => {
    expect((await ci('issues', await event('opened', 113, await brief('optimize-docker-build-times')))).code).toBe(0);
    expect(gh.labels.get(113)).toEqual(['possible-duplicate']);
    const r = await ci(
      'issues',
      await event(
        'edited',
        113,
        await brief('session-refresh'),
        {},
        { labels: [{ id: 1, name: 'possible-duplicate' }] },
      ),
    );
    expect(r.code).toBe(0);
    expect(gh.comments.get(113)![0].body).toMatch(/### agentos: related past work/);
    expect(gh.labels.get(113)).toEqual([]);
  }, 60_000);

  test('an issue that was never labelled by agentos keeps the labels people put on it', async () => {
    const r = await ci(
      'issues',
      await event(
        'edited',
        102,
        await brief('unrelated-onboarding-tour'),
        {},
        { labels: [{ id: 1, name: 'possible-duplicate' }] },
      ),
    );
    expect(r.code).toBe(0);
    expect(writes(102).filter((c) => c.method === 'DELETE')).toEqual([]);
  }, 60_000);

  test("a comment anyone wrote with agentos' marker is not agentos': it is neither edited nor believed", async () => {
    const forged =
      '<!-- agentos:check -->\n<!-- agentos:data {"brief":"' +
      'b'.repeat(64) +
      '","alerts":[{"id":"1","path":"x.md","score":0.99}],"labelled":true} -->\nlooks official';
    gh.comments.set(107, [{ id: 1, body: forged, user: { login: 'mallory', type: 'User' } }]);
    const r = await ci('issues', await event('opened', 107, await brief('optimize-docker-build-times')));
    expect(r.code).toBe(0);
    expect(gh.comments.get(107)!.map((c) => c.user.login)).toEqual(['mallory', 'github-actions[bot]']);
    expect(gh.comments.get(107)![0].body).toBe(forged);
    // Its "labelled" did not stop the label.
    expect(gh.labels.get(107)).toEqual(['possible-duplicate']);
  }, 60_000);

  test('a body holding a NUL character is still checked (not a brief file a person wrote: exit 0, not 2)', async () => {
    const text = await brief('optimize-docker-build-times');
    const r = await ci('issues', await event('opened', 111, { ...text, body: `${text.body}\u0000` }));
    expect(r.code).toBe(0);
    expect(gh.comments.get(111)?.[0].body).toMatch(/#27: Docker Build Optimization/);
  }, 60_000);

  test("a bot's edit (a dashboard it keeps up to date) is not new work: not checked, nothing posted", async () => {
    const r = await ci(
      'issues',
      await event('edited', 112, await brief('optimize-docker-build-times'), {
        sender: { login: 'renovate[bot]', type: 'Bot' },
      }),
    );
    expect(r.code).toBe(0);
    expect(writes(112)).toEqual([]);
    expect(r.stderr).toMatch(/#112: edited by a bot: not checked/);
  }, 60_000);

  test('an edit of a closed issue is not new work: not checked, nothing posted', async () => {
    const r = await ci(
      'issues',
      await event(
        'edited',
        108,
        await brief('optimize-docker-build-times'),
        {},
        { state: 'closed', state_reason: 'completed' },
      ),
    );
    expect(r.code).toBe(0);
    expect(writes(108)).toEqual([]);
    expect(r.stderr).toMatch(/#108 is closed: not checked/);
  }, 60_000);

  test('a check that cannot run (no index) fails open: a warning in the log, nothing posted, an earlier comment left as it was', async () => {
    expect((await ci('issues', await event('opened', 110, await brief('session-refresh')))).code).toBe(0);
    const before = gh.comments.get(110)![0].body;
    const bare = await mkdtemp(path.join(os.tmpdir(), 'agentos-ci-bare-'));
    await mkdir(path.join(bare, '.agentos'));
    const r = await ci('issues', await event('edited', 110, await brief('optimize-docker-build-times')), [], {}, bare);
    await rm(bare, { recursive: true, force: true });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^::warning title=agentos%3A check failed::agentos could not check #110: /m);
    expect(gh.comments.get(110)![0].body).toBe(before);
    expect(writes(110).filter((c) => c.method === 'PATCH')).toEqual([]);
  }, 60_000);

  test('a token without issues: write: one line naming the call and the permission, exit 8, no token', async () => {
    gh.refuse = true;
    try {
      const r = await ci('issues', await event('opened', 104, await brief('optimize-docker-build-times')));
      expect(r.code).toBe(8);
      const lines = r.stderr.trim().split('\n');
      // The label is the first write (the comment then says it is there): its refusal is the one named, and nothing is posted.
      expect(lines[lines.length - 1]).toMatch(
        /GitHub refused to label #104 "possible-duplicate" \(403 Resource not accessible by integration\).*permissions: issues: write/,
      );
      expect(gh.comments.get(104)).toBeUndefined();
      expect(r.stdout + r.stderr).not.toContain(TOKEN);
    } finally {
      gh.refuse = false;
    }
  }, 60_000);
});

/** A pull_request event of GitHub's shape (the recorded payload, its issue taken out) whose files GitHub lists as given. */
async function prEvent(
  number: number,
  action: string,
  files: Array<{ filename: string; status: string }>,
): Promise<string> {
  gh.prFiles.set(number, files);
  const e = await opened();
  delete e.issue;
  Object.assign(e, { action, number, pull_request: { number, title: `Pull request ${number}` } });
  const file = path.join(scratch, `pr-${number}.json`);
  await writeFile(file, JSON.stringify(e));
  return file;
}

describe('pull_request: each brief file it adds or changes', () => {
  test('annotations on the file and the job summary', async () => {
    const file = await prEvent(7, 'opened', [
      { filename: 'briefs/optimize-docker-build-times.md', status: 'added' },
      { filename: 'README.md', status: 'modified' },
      { filename: 'briefs/old.md', status: 'removed' },
    ]);
    const summary = path.join(scratch, 'summary.md');
    const r = await ci('pull_request', file, ['--briefs', 'briefs/*.md'], { GITHUB_STEP_SUMMARY: summary });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^::warning file=briefs\/optimize-docker-build-times\.md,line=1,title=agentos%3A possible duplicate::#27: Docker Build Optimization \(score 0\.9\d+\)/m,
    );
    expect(await readFile(summary, 'utf8')).toMatch(
      /^## agentos: `briefs\/optimize-docker-build-times\.md`\n\n### agentos: this looks like work already done/,
    );
  }, 60_000);
});

describe('pull_request: a brief that cannot be read is named and skipped, the others checked', () => {
  test('an empty brief and a link out of the checkout: one warning each, then the real brief', async () => {
    await writeFile(path.join(dir, 'briefs', 'empty.md'), '');
    // A fork could add a link to the checkout's credentials (actions/checkout keeps the token in .git/config).
    await symlink(path.join(dir, 'README.md'), path.join(dir, 'briefs', 'link.md'));
    try {
      const file = await prEvent(8, 'synchronize', [
        { filename: 'briefs/empty.md', status: 'added' },
        { filename: 'briefs/link.md', status: 'added' },
        { filename: 'briefs/optimize-docker-build-times.md', status: 'modified' },
      ]);
      const r = await ci('pull_request', file, ['--briefs', 'briefs/*.md'], {
        GITHUB_STEP_SUMMARY: path.join(scratch, 'summary-8.md'),
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^::warning file=briefs\/empty\.md,line=1,title=agentos%3A brief not checked::.*empty/m);
      expect(r.stdout).toMatch(
        /^::warning file=briefs\/link\.md,line=1,title=agentos%3A brief not checked::.*symbolic link/m,
      );
      expect(r.stdout).toMatch(
        /^::warning file=briefs\/optimize-docker-build-times\.md,line=1,title=agentos%3A possible duplicate::/m,
      );
      expect(r.stdout).not.toMatch(/README|demo/i);
    } finally {
      await rm(path.join(dir, 'briefs', 'empty.md'), { force: true });
      await rm(path.join(dir, 'briefs', 'link.md'), { force: true });
    }
  }, 60_000);
});

describe('issue start --format markdown | github, byte for byte on the demo briefs', () => {
  const BRIEFS = [
    'fix-logging-bug',
    'optimize-docker-build-times',
    'propose-multi-stage-builds',
    'session-refresh',
    'unrelated-onboarding-tour',
  ];
  test.each(BRIEFS.flatMap((b) => [[b, 'markdown'] as const, [b, 'github'] as const]))(
    '%s --format %s',
    async (name, format) => {
      const r = await runCli(
        [
          '-C',
          dir,
          'issue',
          'start',
          `briefs/${name}.md`,
          '--non-interactive',
          '--format',
          format,
          '--out',
          path.join(scratch, `${name}-${format}.md`),
        ],
        {
          cwd: dir,
          env: {
            GITHUB_SERVER_URL: 'https://github.com',
            GITHUB_REPOSITORY: REPO_NAME,
            GITHUB_SHA: SHA,
            GITHUB_STEP_SUMMARY: undefined,
          },
        },
      );
      expect(r.code).toBe(0);
      const golden = path.join(
        REPO,
        'test',
        'fixtures',
        'ci-output',
        `${name}.${format === 'github' ? 'github.txt' : 'md'}`,
      );
      if (process.env.AGENTOS_WRITE_GOLDEN === '1') await writeFile(golden, r.stdout);
      // Byte for byte but the scores' last digits: int8 inference differs in the third decimal between CPUs
      // (AVX-512 VNNI and AVX2 kernels: 0.7848 on the machine that wrote these, 0.7864 on another).
      const scores = (s: string) => s.replace(/\b([01]\.\d)\d{3}\b/g, '$1···');
      expect(scores(r.stdout)).toBe(scores(await readFile(golden, 'utf8')));
    },
    60_000,
  );
});

// Last: an Ignore it records dismisses #27 for the re-filed text, which the tests above check.
describe("a maintainer's answer is kept like an answer at the prompt", () => {
  const answers = async () => {
    const f = path.join(dir, '.agentos', 'memory', 'answers.jsonl');
    return existsSync(f)
      ? (await readFile(f, 'utf8'))
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  };

  test('closed as a duplicate: an Abort on the top alert; the label removed by a bot: nothing; by a person: an Ignore', async () => {
    // Issue 105: alerted first. Its body as the web form sends it (CRLF): the answers key is the text's, not its bytes'.
    const lf = await brief('optimize-docker-build-times');
    const text = { ...lf, body: lf.body.replace(/\n/g, '\r\n') };
    expect((await ci('issues', await event('opened', 105, text))).code).toBe(0);
    const closed = await ci(
      'issues',
      await event('closed', 105, text, {}, { state: 'closed', state_reason: 'duplicate' }),
    );
    expect(closed.code).toBe(0);
    expect((await answers()).filter((a) => a.by === 'maintainer')).toEqual([
      expect.objectContaining({
        answer: 'abort',
        issueId: '27',
        filePath: 'docs/audit/done/27-docker-build-optimization/001-issue.md',
        by: 'maintainer',
        scale: expect.stringMatching(/^calibrated@/),
      }),
    ]);
    const bot = await ci(
      'issues',
      await event('unlabeled', 105, text, {
        label: { name: 'possible-duplicate' },
        sender: { login: 'github-actions[bot]', type: 'Bot' },
      }),
    );
    expect(bot.code).toBe(0);
    expect((await answers()).filter((a) => a.by === 'maintainer')).toHaveLength(1);
    // As the payload names a label the repository already had in another case (GitHub reuses it: one name per repository, whatever its case).
    const person = await ci('issues', await event('unlabeled', 105, text, { label: { name: 'Possible-Duplicate' } }));
    expect(person.code).toBe(0);
    expect((await answers()).filter((a) => a.by === 'maintainer').map((a) => a.answer)).toEqual(['abort', 'ignore']);
    // Closed as a duplicate by its own author who is no maintainer: not an answer.
    const own = await ci(
      'issues',
      await event(
        'closed',
        109,
        text,
        { sender: { login: 'newcomer', type: 'User' } },
        {
          state: 'closed',
          state_reason: 'duplicate',
          user: { login: 'newcomer', type: 'User' },
          author_association: 'NONE',
        },
      ),
    );
    expect(own.stderr).toMatch(/closed by its author: not a maintainer's answer/);
    // A duplicate closed where agentos raised nothing (no comment of ours): a miss, for recall.
    const missedText = await brief('fix-logging-bug');
    expect(
      (await ci('issues', await event('closed', 106, missedText, {}, { state: 'closed', state_reason: 'duplicate' })))
        .code,
    ).toBe(0);
    expect((await answers()).filter((a) => a.by === 'maintainer').map((a) => a.answer)).toEqual([
      'abort',
      'ignore',
      'missed',
    ]);
    // The prompt's own rule applies from now on: an Ignore is not alerted on again for this brief.
    const again = await runCli(
      ['-C', dir, 'issue', 'start', '-', '--non-interactive', '--json', '--out', path.join(scratch, 'again.md')],
      { cwd: dir, input: `# ${lf.title}\n\n${lf.body}\n` },
    );
    expect(JSON.parse(again.stdout).dismissed).toEqual([expect.objectContaining({ id: '27' })]);
  }, 120_000);
});
