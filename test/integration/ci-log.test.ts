/**
 * The job log of the Action (issue 45). The Action's own script (scripts/action-run.sh) runs
 * under the environment a runner sets (GITHUB_ACTIONS, the event, the workspace as the current
 * folder) against a local stand-in for GitHub's REST API (test/helpers/fake-github.ts), on a
 * project whose past work, issue bodies, pull-request briefs and file names hold workflow
 * commands. Everything the script printed, stdout and stderr, is read by the runner's own rules
 * (test/helpers/actions-runner.ts): the only commands in it are agentos' own annotations, and
 * those are all there (no hostile `stop-commands` switched them off).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { cliEnv, indexedDemo } from '../helpers/cli.js';
import { fakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { REPO } from '../helpers/paths.js';
import { commandsEitherWay, runnerCommands, type RunnerCommand } from '../helpers/actions-runner.js';

const REPO_NAME = 'Codertocat/Hello-World';
const SHA = '6dcb09b5b57875f334f61aebed695e2e4193db5e';
/** Hostile forms of each kind the runner reads, in one line of text. */
const HOSTILE =
  '::add-mask::Docker ##[add-mask]Docker ::stop-commands::agentos-owned ##[error]owned ::error file=README.md::owned';
/** A past issue's folder and title that hold commands (the index prints its path, checks print its title). */
const PAST_DIR = 'docs/audit/done/98-docker ##[add-mask]Docker';

let dir: string;
let scratch: string;
let gh: FakeGitHub;
let dockerBody: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'agentos-ci-log-'));
  scratch = await mkdtemp(path.join(os.tmpdir(), 'agentos-ci-log-events-'));
  await indexedDemo(dir);
  gh = await fakeGitHub(REPO_NAME);
  // A closed issue like #27 whose title and body carry commands, and a file with no text whose name does.
  const past = await readFile(path.join(dir, 'docs/audit/done/27-docker-build-optimization/001-issue.md'), 'utf8');
  await mkdir(path.join(dir, PAST_DIR), { recursive: true });
  await writeFile(
    path.join(dir, PAST_DIR, '001-issue.md'),
    past
      .replace(/^issue_id: *27$/m, 'issue_id: 98')
      .replace(/^(title: *).*$/m, `$1"Docker build ::stop-commands::agentos-owned ##[add-mask]Docker"`)
      .replace(/^# .*$/m, `# Docker build ${HOSTILE}`) + `\n${HOSTILE}\n`,
  );
  await mkdir(path.join(dir, 'docs/audit/done/97-y ##[add-mask]Docker '), { recursive: true });
  await writeFile(
    path.join(dir, 'docs/audit/done/97-y ##[add-mask]Docker ', '001-issue.md'),
    '---\nstatus: done\n---\n',
  );
  dockerBody = (await readFile(path.join(dir, 'briefs', 'optimize-docker-build-times.md'), 'utf8'))
    .split('\n')
    .slice(1)
    .join('\n')
    .trim();
}, 180_000);
afterAll(async () => {
  await gh?.close();
  await rm(dir, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  log: string;
}

/** scripts/action-run.sh as action.yml runs it: the workspace is the current folder; stdout and stderr are one log. */
function actionRun(eventName: string, event: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const file = path.join(scratch, `event-${Math.random().toString(36).slice(2)}.json`);
    writeFile(file, JSON.stringify(event)).then(() => {
      const child = spawn('bash', [path.join(REPO, 'scripts', 'action-run.sh')], {
        cwd: env.WORKSPACE ?? dir,
        env: cliEnv({
          GITHUB_ACTIONS: 'true',
          CI: 'true',
          GITHUB_ACTION_PATH: REPO,
          GITHUB_EVENT_NAME: eventName,
          GITHUB_EVENT_PATH: file,
          GITHUB_TOKEN: 'ghs_16C7e42F292c6912E7710c838347Ae178B4a',
          GITHUB_API_URL: gh.url,
          GITHUB_REPOSITORY: REPO_NAME,
          GITHUB_SERVER_URL: 'https://github.com',
          GITHUB_SHA: SHA,
          GITHUB_STEP_SUMMARY: path.join(scratch, 'summary.md'),
          AGENTOS_LABEL: 'possible-duplicate',
          ...env,
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let log = '';
      child.stdout.on('data', (d: Buffer) => (log += d.toString()));
      child.stderr.on('data', (d: Buffer) => (log += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, log }));
    }, reject);
  });
}

const issueEvent = (number: number, title: string, body: string) => ({
  action: 'opened',
  issue: {
    number,
    title,
    body,
    state: 'open',
    user: { login: 'stranger', type: 'User' },
    author_association: 'NONE',
    labels: [],
  },
  sender: { login: 'stranger', type: 'User' },
  repository: { full_name: REPO_NAME },
});

/** The commands of a log that are not agentos' own annotations. */
const foreign = (commands: RunnerCommand[]) =>
  commands.filter(
    (c) => !(['warning', 'notice'].includes(c.command) && (c.properties.title ?? '').startsWith('agentos')),
  );

describe('issues: a stranger writes the issue, and past issues were written by strangers too', () => {
  test('hostile bodies with the commands at many wrap positions: the alert is printed, no command reaches the log', async () => {
    let alerted = 0;
    for (const shift of [0, 1, 2, 3, 5, 8, 13, 21]) {
      // Words of every length before each command, so that the alert's wrapped "Your brief:" starts lines with them.
      const words = Array.from({ length: 12 }, (_, k) => `${'w'.repeat(((k + shift) % 17) + 1)} ${HOSTILE}`).join(' ');
      const r = await actionRun(
        'issues',
        issueEvent(
          300 + shift,
          `Optimize Docker build times ${HOSTILE}`,
          `${'x'.repeat(shift)} ${words}\n\n${dockerBody}`,
        ),
      );
      expect(r.code).toBe(0);
      if (/Similar past work detected/.test(r.log)) alerted++;
      expect(r.log).toMatch(/Docker/);
      expect(commandsEitherWay(r.log)).toEqual([]);
    }
    // The hostile text did reach the log, as text: the checks alerted and showed it.
    expect(alerted).toBeGreaterThan(0);
    expect(gh.labels.get(300)).toEqual(['possible-duplicate']);
  }, 300_000);

  test('the same text without the guard would have run: the test can fail', async () => {
    const r = await actionRun(
      'issues',
      issueEvent(320, `Optimize Docker build times ${HOSTILE}`, `${HOSTILE}\n\n${dockerBody}`),
      { GITHUB_ACTIONS: undefined },
    );
    expect(r.code).toBe(0);
    expect(runnerCommands(r.log).map((c) => c.command)).toEqual(expect.arrayContaining(['add-mask']));
  }, 120_000);
});

describe("pull_request: its brief files and their names are the pull request author's", () => {
  test("hostile brief text and file names: agentos' annotations are all there, no other command, the summary's names inert", async () => {
    const names = [
      'briefs/a-stop.md',
      'briefs/<img src=x onerror=alert(1)> @octocat ##[add-mask]Docker.md',
      'briefs/z-last.md',
    ];
    await writeFile(
      path.join(dir, names[0]),
      `# Optimize Docker build times\n\n::stop-commands::agentos-owned\n##[add-mask]Docker\n\n${dockerBody}\n`,
    );
    await writeFile(path.join(dir, names[1]), `# Optimize Docker build times\n\n${dockerBody}\n`);
    await writeFile(path.join(dir, names[2]), `# Optimize Docker build times ::add-mask::Docker\n\n${dockerBody}\n`);
    gh.prFiles.set(
      9,
      names.map((filename) => ({ filename, status: 'added' })),
    );
    await rm(path.join(scratch, 'summary.md'), { force: true });
    const r = await actionRun(
      'pull_request',
      { action: 'opened', number: 9, pull_request: { number: 9, title: 'briefs' } },
      { AGENTOS_BRIEFS: 'briefs/*.md' },
    );
    expect(r.code).toBe(0);
    for (const reading of [runnerCommands(r.log), runnerCommands(r.log, { icu: true })]) {
      expect(foreign(reading)).toEqual([]);
      // Each brief's possible-duplicate warning, on its first line: none was switched off by the one before it.
      const warned = reading.filter(
        (c) => c.command === 'warning' && c.properties.title === 'agentos: possible duplicate',
      );
      expect(warned.map((c) => c.properties.file)).toEqual(expect.arrayContaining(names));
      expect(warned.every((c) => c.properties.line === '1')).toBe(true);
    }
    const summary = await readFile(path.join(scratch, 'summary.md'), 'utf8');
    // Outside code spans (where GitHub reads neither HTML nor mentions), no tag and no mention.
    const outsideCode = summary.replace(/`[^`\n]*`/g, '');
    expect(outsideCode).not.toMatch(/<img|@octocat/);
    expect(summary).toContain('## agentos: `briefs/<img src=x onerror=alert(1)> @octocat ##[add-mask]Docker.md`');
  }, 300_000);
});

describe('pull_request_target is refused before anything runs', () => {
  test('exit 2 and an error annotation; no init, no index, no call to GitHub', async () => {
    const empty = await mkdtemp(path.join(os.tmpdir(), 'agentos-ci-prt-'));
    const calls = gh.calls.length;
    try {
      const r = await actionRun(
        'pull_request_target',
        { action: 'opened', number: 10, pull_request: { number: 10 } },
        { WORKSPACE: empty },
      );
      expect(r.code).toBe(2);
      expect(runnerCommands(r.log).map((c) => [c.command, c.properties.title])).toEqual([['error', 'agentos']]);
      expect(existsSync(path.join(empty, '.agentos'))).toBe(false);
      expect(gh.calls.length).toBe(calls);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  }, 60_000);
});
