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
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import type { CommandContext } from '../../context.js';
import { ExitCode, UsageError } from '../../../shared/errors.js';
import { oneLine } from '../../../shared/sanitize.js';
import {
  alertsOf,
  COMMENT_MARKER,
  commentData,
  dataLine,
  githubFileLink,
  renderCommentMarkdown,
  type CiReport,
} from '../../../work-memory/output/ci.js';
import { annotation, writeWorkflowCommand } from '../../../shared/actions-log.js';
import { briefKey, projectScale, recordMaintainerAnswer } from '../../../work-memory/decision/answers.js';
import { stripAgentosSections } from '../../../work-memory/output/sections.js';
import { normalizeText } from '../../../work-memory/corpus/read.js';
import { GitHubApi } from './github-api.js';
import { checkBrief, type BriefCheck } from '../../brief-check.js';
import { checkResult, ciOptions, writeResult } from '../../brief-result.js';
import { briefFromText, readBrief, type Brief } from '../../../work-memory/check/brief.js';
import { decideDuplicate } from '../../../work-memory/decision/decide.js';
import { renderDuplicateAlert } from '../../../work-memory/output/render.js';

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
  /** The login agentos comments as: only its comments are read back (default github-actions[bot], the job token's). */
  botLogin?: string;
}

export const DEFAULT_BRIEF_GLOBS = ['docs/briefs/**/*.md', 'briefs/**/*.md', '**/brief.md'];
const MAX_BRIEF_CHARS = 64 * 1024;

interface Issue {
  number: number;
  title: string;
  body: string;
  state: string;
  stateReason: string | null;
  isPullRequest: boolean;
  author: string | null;
  /** The author's association with the repository (OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, …). */
  association: string | null;
  /** The labels on it when the event fired. */
  labels: string[];
}

/** Label names are one per repository whatever their case (GitHub reuses `Possible-Duplicate` for `possible-duplicate`). */
const sameLabel = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const hasLabel = (issue: Issue, label: string) => issue.labels.some((l) => sameLabel(l, label));

/** Whose comments agentos trusts as its own: the job token comments as github-actions[bot]. */
export const DEFAULT_BOT_LOGIN = 'github-actions[bot]';
const MAINTAINER_ASSOCIATIONS = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);

export async function runCiGithub(ctx: CommandContext, opts: CiGithubOptions): Promise<number> {
  const { io } = ctx;
  const name = opts.eventName ?? io.env.GITHUB_EVENT_NAME;
  const file = opts.event ?? io.env.GITHUB_EVENT_PATH;
  if (!name || !file)
    throw new UsageError('ci github: no event (run it in a GitHub Actions job, or give --event-name and --event FILE)');
  const payload = await readEvent(file);
  const action = typeof payload.action === 'string' ? payload.action : '';
  const say = (s: string) => io.stderr.write(`agentos: ${s}\n`);
  if (name === 'pull_request_target') {
    // It runs with the base repository's write token on the base branch's checkout: a brief the pull request
    // adds is not there, and checking out its head would run its files with that token and that cache.
    throw new UsageError(
      'ci github: pull_request_target is not supported (use pull_request: fork runs get a read-only token and their own cache; docs/ci.md)',
    );
  }
  const api = opts.dryRun ? null : githubApi(io.env, opts.botLogin ?? DEFAULT_BOT_LOGIN);

  if (name === 'issues') {
    const issue = issueOf(payload, file);
    if (issue.isPullRequest) return ExitCode.Ok;
    if (['opened', 'edited', 'reopened'].includes(action)) {
      // A closed issue is past work (and, read from the tracker, in the index): edits to it are not new work.
      if (issue.state !== 'open')
        return (say(`#${issue.number} is ${oneLine(issue.state, 20)}: not checked`), ExitCode.Ok);
      // A bot that keeps an issue up to date (a dependency dashboard, edited many times a day) files no new work by editing it.
      if (action === 'edited' && (payload.sender as { type?: unknown } | undefined)?.type === 'Bot')
        return (say(`#${issue.number}: edited by a bot: not checked`), ExitCode.Ok);
      return checkIssue(ctx, api, issue, opts, say);
    }
    if (action === 'closed' || action === 'unlabeled')
      return maintainerAnswer(ctx, api, issue, payload, action, opts, say);
    say(`issues.${oneLine(action, 40)}: nothing to do`);
    return ExitCode.Ok;
  }
  if (name === 'pull_request') {
    const pr = payload.pull_request as { number?: unknown } | undefined;
    if (typeof pr?.number !== 'number') throw new UsageError(`${file}: pull_request.number is missing`);
    if (!api) return (say("dry run: a pull request's files come from GitHub; nothing checked"), ExitCode.Ok);
    const changed = await api.pullRequestFiles(pr.number);
    const isBrief = picomatch(opts.briefs, { dot: false });
    const briefs = changed.filter((f) => isBrief(f));
    if (!briefs.length) say(`pull request #${pr.number}: no brief files changed (${opts.briefs.join(', ')})`);
    for (const file of briefs) {
      // One brief that cannot be read (empty, binary, too large, a link out of the checkout) is named and skipped: the others are still checked.
      const brief = await prBrief(ctx, file).catch((e: unknown) => {
        if (!(e instanceof UsageError)) throw e;
        writeWorkflowCommand(
          io.stdout,
          annotation('warning', { file, line: 1, title: 'agentos: brief not checked' }, oneLine(e.message, 300)),
        );
        return null;
      });
      if (!brief) continue;
      // Annotations on stdout for the runner, the summary to $GITHUB_STEP_SUMMARY.
      const c = await checkBrief(ctx, brief, { context: [], machine: true });
      await writeResult(
        io,
        'github',
        checkResult(c, await policyDecision(c)),
        ciOptions(io, ctx.root(), c.brief.absPath, c.config),
      );
    }
    return ExitCode.Ok;
  }
  say(`${oneLine(name, 60)}: not an event agentos answers (issues, pull_request)`);
  return ExitCode.Ok;
}

async function checkIssue(
  ctx: CommandContext,
  api: GitHubApi | null,
  issue: Issue,
  opts: CiGithubOptions,
  say: (s: string) => void,
): Promise<number> {
  // The issue's own record, once the tracker export has it, is left out by the check itself (check/run.ts scoringFor).
  const report = await check(ctx, issueBrief(issue), issue.number);
  const { config } = await ctx.config();
  if (report.error || report.status === 'error' || report.status === 'no_history') {
    // Failed open: nothing is said on the issue (an earlier comment stands), and the job log says why.
    const why = report.error ?? 'no past work in the index';
    writeWorkflowCommand(
      ctx.io.stdout,
      annotation(
        'warning',
        { title: 'agentos: check failed' },
        oneLine(`agentos could not check #${issue.number}: ${why}`, 400),
      ),
    );
    say(`#${issue.number}: not checked (${oneLine(why, 200)}); nothing posted`);
    return ExitCode.Ok;
  }
  const alerts = alertsOf(report, config.thresholds.duplicate);
  const worth = alerts.length > 0 || report.matches.length > 0;
  const ours = api ? await api.findComment(issue.number, COMMENT_MARKER) : null;
  const before = ours ? commentData(ours.body) : null;
  // Labelled once, on the first alert: a label a maintainer removed since (their answer) is not put back by an edit.
  const label = alerts.length > 0 && !before?.labelled;
  // Edited until it alerts no more (clear, or related work only): the label agentos added comes off (one a person put on is theirs).
  const unlabel = alerts.length === 0 && Boolean(before?.labelled) && hasLabel(issue, opts.label);
  const labelled = (Boolean(before?.labelled) || label) && !unlabel;
  const body = worth
    ? renderCommentMarkdown(report, {
        duplicate: config.thresholds.duplicate,
        fileLink: githubFileLink(ctx.io.env),
        labelled,
      })
    : `${COMMENT_MARKER}\n${dataLine({ brief: report.brief.key ?? report.brief.sha256, alerts: [], ...(labelled ? { labelled } : {}) })}\nagentos: after the last edit this issue no longer matches earlier work.\n`;
  if (!api) {
    ctx.io.stdout.write(worth ? body : '');
    say(
      `dry run: ${worth ? `would comment on #${issue.number}${label ? ` and label it "${opts.label}"` : ''}` : `nothing to post (clear)${unlabel ? `; would remove the label "${opts.label}"` : ''}`}`,
    );
    return ExitCode.Ok;
  }
  if (!worth) {
    // An earlier version of this issue matched: that comment no longer holds.
    if (ours) await api.updateComment(ours.id, body);
    if (unlabel) await api.removeLabel(issue.number, opts.label);
    say(
      `#${issue.number}: no earlier work like it${ours ? ' (the earlier comment now says so)' : ''}${unlabel ? `; label "${opts.label}" removed` : ''}`,
    );
    return ExitCode.Ok;
  }
  // The label first: the comment says the issue is labelled, and a label GitHub refused must not be said to be there.
  if (label) await api.addLabel(issue.number, opts.label);
  if (ours) await api.updateComment(ours.id, body);
  else await api.createComment(issue.number, body);
  if (unlabel) await api.removeLabel(issue.number, opts.label);
  say(
    `#${issue.number}: ${alerts.length ? `possible duplicate${label ? ` (label "${opts.label}")` : ''}` : 'related work'}; comment ${ours ? 'edited' : 'added'}${unlabel ? `; label "${opts.label}" removed` : ''}`,
  );
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
  const sender = payload.sender as { type?: unknown; login?: unknown } | undefined;
  const removed = (payload.label as { name?: unknown } | undefined)?.name;
  const removedOurs = typeof removed === 'string' && sameLabel(removed, opts.label);
  const answer =
    action === 'closed' ? (issue.stateReason === 'duplicate' ? 'abort' : null) : removedOurs ? 'ignore' : null;
  if (!answer || !api) return ExitCode.Ok;
  // A maintainer's answer: not a bot's, and not the issue's own author's unless they are a maintainer
  // (closing someone else's issue or removing a label takes triage rights on GitHub; closing one's own does not).
  const byAuthor = typeof sender?.login === 'string' && sender.login === issue.author;
  // agentos itself (its label taken off when an edit made the issue clear) answers nothing, whatever token it acts with.
  const bySelf = typeof sender?.login === 'string' && sender.login === (opts.botLogin ?? DEFAULT_BOT_LOGIN);
  if (sender?.type === 'Bot' || bySelf || (byAuthor && !MAINTAINER_ASSOCIATIONS.has(issue.association ?? ''))) {
    say(
      `#${issue.number}: ${action} by ${sender?.type === 'Bot' || bySelf ? 'a bot' : 'its author'}: not a maintainer's answer`,
    );
    return ExitCode.Ok;
  }
  const ours = await api.findComment(issue.number, COMMENT_MARKER);
  const data = ours ? commentData(ours.body) : null;
  const { config } = await ctx.config();
  if (!data?.alerts.length) {
    // A duplicate agentos did not alert on: what recall is measured against.
    if (answer === 'abort') {
      await recordMaintainerAnswer(
        ctx.root(),
        { brief: briefKey(stripAgentosSections(normalizeText(issueBrief(issue)))), alerts: [] },
        'missed',
        projectScale(config, ctx.root()),
        issue.number,
      );
      say(
        `#${issue.number}: closed as a duplicate agentos had not alerted on; kept as a miss for \`agentos calibrate\``,
      );
    }
    return ExitCode.Ok;
  }
  const n = await recordMaintainerAnswer(ctx.root(), data, answer, projectScale(config, ctx.root()), issue.number);
  say(
    `#${issue.number}: ${answer === 'abort' ? 'closed as a duplicate' : `label "${opts.label}" removed`}: ${n} answer${n === 1 ? '' : 's'} kept for \`agentos calibrate\``,
  );
  return ExitCode.Ok;
}

/** An issue as a brief: its title as the heading, then its body (bounded; NUL characters, which a brief file may not hold, left out). */
function issueBrief(issue: Issue): string {
  return `# ${oneLine(issue.title, 300)}\n\n${issue.body.slice(0, MAX_BRIEF_CHARS).replace(/\0/g, '')}\n`;
}

/** The check of an issue's text, as `issue start --non-interactive --on-duplicate ignore --format json` gives it. */
async function check(ctx: CommandContext, text: string, issue: number): Promise<CiReport> {
  // The brief is issue #N, whatever its title opens with ("#12 follow-up: …" names other work).
  const c = await checkBrief(ctx, { ...briefFromText(text), ownIssue: String(issue) }, { context: [], machine: true });
  return checkResult(c, await policyDecision(c));
}

/** Nobody is asked on a runner: an alert is shown in the job log, as `issue start` shows it, and the work goes on (`--on-duplicate ignore`). */
function policyDecision(c: BriefCheck) {
  if (c.alerts.length) {
    c.err(renderDuplicateAlert(c.alerts, c.config.thresholds.duplicate, c.st, c.width, c.notes));
    c.err('Not prompting (non-interactive): applying --on-duplicate ignore.');
  }
  return decideDuplicate(c.alerts, { canPrompt: false, policy: 'ignore', asker: null });
}

/** A brief file a pull request changed, read from the checkout; a symbolic link is refused (it could point at the checkout's own credentials). */
async function prBrief(ctx: CommandContext, file: string): Promise<Brief> {
  const st = await lstat(path.resolve(ctx.root(), file)).catch(() => null);
  if (st?.isSymbolicLink()) throw new UsageError(`${file}: a symbolic link, not a brief file`);
  return readBrief(file, ctx.root(), ctx.io.stdin);
}

async function readEvent(file: string): Promise<Record<string, unknown>> {
  let v: unknown;
  try {
    v = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`${file}: not a GitHub event payload (${oneLine((e as Error).message, 120)})`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new UsageError(`${file}: not a GitHub event payload (not a JSON object)`);
  return v as Record<string, unknown>;
}

function issueOf(payload: Record<string, unknown>, file: string): Issue {
  const i = payload.issue as Record<string, unknown> | undefined;
  if (!i || typeof i.number !== 'number' || !Number.isInteger(i.number) || i.number < 1)
    throw new UsageError(`${file}: issue.number is missing`);
  if (typeof i.title !== 'string') throw new UsageError(`${file}: issue.title is not text`);
  const user = i.user as { login?: unknown } | undefined;
  return {
    number: i.number,
    title: i.title,
    body: typeof i.body === 'string' ? i.body : '',
    state: typeof i.state === 'string' ? i.state : 'open',
    stateReason: typeof i.state_reason === 'string' ? i.state_reason : null,
    isPullRequest: i.pull_request !== undefined && i.pull_request !== null,
    author: typeof user?.login === 'string' ? user.login : null,
    association: typeof i.author_association === 'string' ? i.author_association : null,
    labels: Array.isArray(i.labels)
      ? i.labels.map((l) => (l as { name?: unknown } | null)?.name).filter((n): n is string => typeof n === 'string')
      : [],
  };
}

function githubApi(env: NodeJS.ProcessEnv, botLogin: string): GitHubApi {
  const token = env.GITHUB_TOKEN || env.GH_TOKEN;
  const repo = env.GITHUB_REPOSITORY;
  if (!token)
    throw new UsageError(
      'ci github: no token (set GITHUB_TOKEN: `env: GITHUB_TOKEN: ${{ github.token }}`, or run with --dry-run)',
    );
  if (!repo || !/^[\w.-]+\/[\w.-]+$/.test(repo)) throw new UsageError('ci github: GITHUB_REPOSITORY is not owner/name');
  return new GitHubApi(env.GITHUB_API_URL || 'https://api.github.com', token, repo, botLogin);
}
