/**
 * `agentos ci github`: the check where work is filed (issue 32), run by the Action (action.yml)
 * on a GitHub event. Decide, then act:
 *
 * - issues opened / edited / reopened: the issue's title and body are the brief. An alert or
 *   related work is one comment (recognised by its hidden marker: a re-run edits it, never adds a
 *   second) and, on an alert, the label; a clear brief gets nothing, and a comment from an earlier
 *   version of the issue is edited to say it no longer matches.
 * - issues closed as a duplicate, or our label removed by a person: the maintainer's answer, kept
 *   like an answer at the prompt (`.agentos/memory/answers.jsonl`, read by `agentos calibrate`).
 * - pull_request: each brief file it adds or changes is checked; annotations on the file and the
 *   job summary (`issue start --format github`).
 *
 * The event payload is input: validated, and its text only ever becomes a brief.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import picomatch from 'picomatch';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { CommandContext } from '../../context.js';
import { ExitCode, UsageError } from '../../../shared/errors.js';
import { oneLine } from '../../../shared/sanitize.js';
import { COMMENT_MARKER, commentData, renderCommentMarkdown, type CiReport } from '../../../work-memory/output/ci.js';
import { answerScale, briefKey, recordMaintainerAnswer } from '../../../work-memory/decision/answers.js';
import { stripAgentosSections } from '../../../work-memory/output/sections.js';
import { GitHubApi } from './github-api.js';
import { runIssueStart } from '../issue-start/index.js';

export interface CiGithubOptions {
  /** The label added on an alert (default possible-duplicate). */
  label: string;
  /** Globs of brief files a pull request is checked for. */
  briefs: string[];
  /** Event name and payload file; default GITHUB_EVENT_NAME and GITHUB_EVENT_PATH. */
  eventName?: string;
  event?: string;
  /** Print what would be posted; call nothing. */
  dryRun?: boolean;
}

export const DEFAULT_BRIEF_GLOBS = ['docs/briefs/**/*.md', 'briefs/**/*.md', '**/brief.md'];
const MAX_BRIEF_CHARS = 64 * 1024;

interface Issue {
  number: number;
  title: string;
  body: string;
  stateReason: string | null;
  isPullRequest: boolean;
}

export async function runCiGithub(ctx: CommandContext, opts: CiGithubOptions): Promise<number> {
  const { io } = ctx;
  const name = opts.eventName ?? io.env.GITHUB_EVENT_NAME;
  const file = opts.event ?? io.env.GITHUB_EVENT_PATH;
  if (!name || !file) throw new UsageError('ci github: no event (run it in a GitHub Actions job, or give --event-name and --event FILE)');
  const payload = await readEvent(file);
  const action = typeof payload.action === 'string' ? payload.action : '';
  const say = (s: string) => io.stderr.write(`agentos: ${s}\n`);
  const api = opts.dryRun ? null : githubApi(io.env);

  if (name === 'issues') {
    const issue = issueOf(payload, file);
    if (issue.isPullRequest) return ExitCode.Ok;
    if (['opened', 'edited', 'reopened'].includes(action)) return checkIssue(ctx, api, issue, opts, say);
    if (action === 'closed' || action === 'unlabeled') return maintainerAnswer(ctx, api, issue, payload, action, opts, say);
    say(`issues.${oneLine(action, 40)}: nothing to do`);
    return ExitCode.Ok;
  }
  if (name === 'pull_request' || name === 'pull_request_target') {
    const pr = payload.pull_request as { number?: unknown } | undefined;
    if (typeof pr?.number !== 'number') throw new UsageError(`${file}: pull_request.number is missing`);
    const changed = api ? await api.pullRequestFiles(pr.number) : [];
    const isBrief = picomatch(opts.briefs, { dot: false });
    const briefs = changed.filter((f) => isBrief(f));
    if (!briefs.length) say(`pull request #${pr.number}: no brief files changed (${opts.briefs.join(', ')})`);
    let code: number = ExitCode.Ok;
    for (const brief of briefs) {
      // Annotations on stdout for the runner, the summary to $GITHUB_STEP_SUMMARY.
      const c = await runIssueStart(ctx, path.join(ctx.root(), brief), { nonInteractive: true, onDuplicate: 'ignore', format: 'github', context: [], out: await scratchOut() });
      if (c !== ExitCode.Ok) code = c;
    }
    return code;
  }
  say(`${oneLine(name, 60)}: not an event agentos answers (issues, pull_request)`);
  return ExitCode.Ok;
}

async function checkIssue(ctx: CommandContext, api: GitHubApi | null, issue: Issue, opts: CiGithubOptions, say: (s: string) => void): Promise<number> {
  const report = await check(ctx, issueBrief(issue));
  const { config } = await ctx.config();
  const body = renderCommentMarkdown(report, { duplicate: config.thresholds.duplicate, fileLink: fileLink(ctx.io.env) });
  const alert = report.status === 'duplicate_alert';
  const worth = alert || report.matches.length > 0;
  if (!api) {
    ctx.io.stdout.write(worth ? body : '');
    say(`dry run: ${worth ? `would comment on #${issue.number}${alert ? ` and label it "${opts.label}"` : ''}` : 'nothing to post (clear)'}`);
    return ExitCode.Ok;
  }
  const ours = await api.findComment(issue.number, COMMENT_MARKER);
  if (!worth) {
    // An earlier version of this issue matched: that comment no longer holds.
    if (ours) await api.updateComment(ours.id, `${COMMENT_MARKER}\nagentos: after the last edit this issue no longer matches earlier work.\n`);
    say(`#${issue.number}: no earlier work like it${ours ? ' (the earlier comment now says so)' : ''}`);
    return ExitCode.Ok;
  }
  if (ours) await api.updateComment(ours.id, body);
  else await api.createComment(issue.number, body);
  // Labelled once, on the first alert: a label a maintainer removed since (their answer) is not put back by an edit.
  const alertedBefore = (ours ? (commentData(ours.body)?.alerts.length ?? 0) : 0) > 0;
  if (alert && !alertedBefore) await api.addLabel(issue.number, opts.label);
  say(`#${issue.number}: ${alert ? `possible duplicate (label "${opts.label}")` : 'related work'}; comment ${ours ? 'edited' : 'added'}`);
  return ExitCode.Ok;
}

/** Closed as a duplicate: Abort on the top alert. Our label removed by a person: Ignore of every alert. */
async function maintainerAnswer(
  ctx: CommandContext,
  api: GitHubApi | null,
  issue: Issue,
  payload: Record<string, unknown>,
  action: string,
  opts: CiGithubOptions,
  say: (s: string) => void,
): Promise<number> {
  const sender = payload.sender as { type?: unknown } | undefined;
  const removed = (payload.label as { name?: unknown } | undefined)?.name;
  const answer = action === 'closed' ? (issue.stateReason === 'duplicate' ? 'abort' : null) : removed === opts.label && sender?.type !== 'Bot' ? 'ignore' : null;
  if (!answer || !api) return ExitCode.Ok;
  const ours = await api.findComment(issue.number, COMMENT_MARKER);
  const data = ours ? commentData(ours.body) : null;
  const { config } = await ctx.config();
  if (!data?.alerts.length) {
    // A duplicate agentos did not alert on: what recall is measured against.
    if (answer === 'abort') await recordMaintainerAnswer(ctx.root(), { brief: briefKey(stripAgentosSections(issueBrief(issue))), alerts: [] }, 'missed', answerScale(config));
    if (answer === 'abort') say(`#${issue.number}: closed as a duplicate agentos had not alerted on; kept as a miss for \`agentos calibrate\``);
    return ExitCode.Ok;
  }
  const n = await recordMaintainerAnswer(ctx.root(), data, answer, answerScale(config));
  say(`#${issue.number}: ${answer === 'abort' ? 'closed as a duplicate' : `label "${opts.label}" removed`}: ${n} answer${n === 1 ? '' : 's'} kept for \`agentos calibrate\``);
  return ExitCode.Ok;
}

/** An issue as a brief: its title as the heading, then its body (bounded). */
function issueBrief(issue: Issue): string {
  return `# ${oneLine(issue.title, 300)}\n\n${issue.body.slice(0, MAX_BRIEF_CHARS)}\n`;
}

/** The check of a brief text, as `issue start --non-interactive --format json` gives it. */
async function check(ctx: CommandContext, brief: string): Promise<CiReport> {
  const stdin = new PassThrough();
  stdin.end(brief);
  const stdout = new PassThrough();
  let json = '';
  stdout.on('data', (c) => (json += c));
  const out = await scratchOut();
  try {
    const code = await runIssueStart({ ...ctx, io: { ...ctx.io, stdin, stdout } }, '-', { nonInteractive: true, onDuplicate: 'ignore', format: 'json', context: [], out });
    if (code !== ExitCode.Ok) throw new Error(`the check ended with exit ${code}`);
    return JSON.parse(json) as CiReport;
  } finally {
    await rm(path.dirname(out), { recursive: true, force: true });
  }
}

/** Where a check's brief to use is written: outside the checkout (the Action caches .agentos/). */
async function scratchOut(): Promise<string> {
  return path.join(await mkdtemp(path.join(os.tmpdir(), 'agentos-ci-')), 'brief.md');
}

async function readEvent(file: string): Promise<Record<string, unknown>> {
  let v: unknown;
  try {
    v = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`${file}: not a GitHub event payload (${oneLine((e as Error).message, 120)})`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new UsageError(`${file}: not a GitHub event payload (not a JSON object)`);
  return v as Record<string, unknown>;
}

function issueOf(payload: Record<string, unknown>, file: string): Issue {
  const i = payload.issue as Record<string, unknown> | undefined;
  if (!i || typeof i.number !== 'number' || !Number.isInteger(i.number) || i.number < 1) throw new UsageError(`${file}: issue.number is missing`);
  if (typeof i.title !== 'string') throw new UsageError(`${file}: issue.title is not text`);
  return {
    number: i.number,
    title: i.title,
    body: typeof i.body === 'string' ? i.body : '',
    stateReason: typeof i.state_reason === 'string' ? i.state_reason : null,
    isPullRequest: i.pull_request !== undefined && i.pull_request !== null,
  };
}

function githubApi(env: NodeJS.ProcessEnv): GitHubApi {
  const token = env.GITHUB_TOKEN || env.GH_TOKEN;
  const repo = env.GITHUB_REPOSITORY;
  if (!token) throw new UsageError('ci github: no token (set GITHUB_TOKEN: `env: GITHUB_TOKEN: ${{ github.token }}`, or run with --dry-run)');
  if (!repo || !/^[\w.-]+\/[\w.-]+$/.test(repo)) throw new UsageError('ci github: GITHUB_REPOSITORY is not owner/name');
  return new GitHubApi(env.GITHUB_API_URL || 'https://api.github.com', token, repo);
}

function fileLink(env: NodeJS.ProcessEnv): ((p: string) => string | null) | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_SHA: sha } = env;
  if (!server || !repo || !sha || !/^[\w.-]+\/[\w.-]+$/.test(repo) || !/^[0-9a-f]{7,64}$/.test(sha)) return undefined;
  const base = `${server.replace(/\/+$/, '')}/${repo}/blob/${sha}/`;
  return (p) => base + p.split('/').map(encodeURIComponent).join('/');
}
