/**
 * `agentos issue start`: check a brief (src/cli/brief-check.ts), then decide, then ask, then
 * act: Abort writes nothing; Link, Ignore and a clear check write the brief to use beside the
 * check record, and the work begun is noted for the attempt memory.
 */
import path from 'node:path';
import type { CommandContext } from '../../context.js';
import { readBrief } from '../../../work-memory/check/brief.js';
import { checkScope } from '../../ui/scope.js';
import { cleanTitle, extractMetadata } from '../../../work-memory/corpus/metadata.js';
import { firstH1 } from '../../../work-memory/corpus/heading.js';
import { decideDuplicate, type Decision, type DuplicateAction } from '../../../work-memory/decision/decide.js';
import { inquirerAsker, PromptCancelled } from '../../../work-memory/decision/prompt.js';
import { answerScale, lineOfMethod, answersFile, recordAnswers } from '../../../work-memory/decision/answers.js';
import { ExitCode, UsageError } from '../../../shared/errors.js';
import { currentBranch, noteStartedWork, workId } from '../../../attempt-memory/work.js';
import { canPrompt } from '../../../shared/io.js';
import {
  renderDuplicateAlert,
  renderLinked,
  renderRelated,
  renderStandards,
} from '../../../work-memory/output/render.js';
import { composeBrief } from '../../../work-memory/output/compose.js';
import { slugify } from '../../../work-memory/output/write.js';
import { writeFileAtomic } from '../../../shared/fsutil/atomic-write.js';
import { CHECK_RECORD_KIND, checkRecordPath, isSameFile } from '../../../work-memory/output/safe-target.js';
import { terminalSafe } from '../../../shared/sanitize.js';
import { applyThresholdFlags, checkBrief, type BriefCheck, type BriefCheckOptions } from '../../brief-check.js';
import { checkResult, ciOptions, writeResult } from '../../brief-result.js';

export interface IssueStartOptions extends Omit<BriefCheckOptions, 'context' | 'machine'> {
  nonInteractive?: boolean;
  onDuplicate: DuplicateAction;
  out?: string;
  print?: boolean;
  json?: boolean;
  /** The result on stdout for a machine: json (= --json), markdown (a comment body), github (workflow commands and a job summary). */
  format?: 'json' | 'markdown' | 'github';
  context: string[];
}

export async function runIssueStart(ctx: CommandContext, briefArg: string, opts: IssueStartOptions): Promise<number> {
  const { io } = ctx;
  const root = ctx.root();
  // 1. Decide: flags, the brief and where the brief to use goes, all refused before anything is checked.
  const { config, format, brief, title, ownDir, outPath } = await planRun(ctx, briefArg, opts);
  const c = await checkBrief(ctx, brief, { ...opts, context: opts.context ?? [], machine: format !== null });
  const { outcome, alerts, standards, notes, logger, logBase, st, err, note, width } = c;
  // 2. Ask, when there is an alert and a person to ask; else the policy decides.
  const decision = await askOnDuplicate(ctx, c, opts);
  if (decision === null) return ExitCode.Cancelled;
  logger.info(
    {
      ...logBase,
      event: 'decision',
      status: outcome.history.status,
      decision: decision.action,
      decidedBy: decision.by,
      linked: decision.linked ? { issueId: decision.linked.issueId, filePath: decision.linked.filePath } : null,
      matches: summarize(outcome.history.nearest),
      method: outcome.history.method,
      error: outcome.history.error,
    },
    `history check: ${outcome.history.status}, decision: ${decision.action}`,
  );
  const result = checkResult(c, decision);

  // 3. Act: abort writes nothing; everything else writes the brief to use.
  if (decision.action === 'abort') {
    const top = alerts[0];
    err(
      st.red(
        `Aborted: this appears to duplicate ${top.issueId ? `#${terminalSafe(top.issueId)}` : terminalSafe(top.filePath)}`,
      ),
    );
    if (format) await writeResult(io, format, result, ciOptions(io, root, brief.absPath, config));
    return ExitCode.AbortedDuplicate;
  }
  const related = outcome.history.status === 'related_context' ? outcome.history.matches : [];
  const composed = composeBrief(brief.text, { linked: decision.linked, related, standards, notes });
  await writeFileAtomic(outPath, composed);
  await writeRecordAndWork(ctx, c, { result, outPath, ownDir, title });
  result.output = outPath;

  const shownOut = path.relative(io.cwd, outPath) || outPath;
  if (decision.linked) note(renderLinked(decision.linked, shownOut, st, width));
  if (related.length) note(renderRelated(related, st, width, notes));
  if (standards.length) note(renderStandards(standards, st, width));
  if (outcome.history.status === 'clear' && !outcome.history.error) {
    // A stale index that was not refreshed answered: say so beside the result.
    const missed = result.coverage.staleFiles.length;
    note(
      missed
        ? st.yellow(
            `No similar past work found in the index, which misses ${missed} changed file${missed === 1 ? '' : 's'} (see the warning above).`,
          )
        : st.green('✓ No similar past work found.'),
    );
  }
  note(`Brief to use: ${shownOut}`);

  if (format) await writeResult(io, format, result, ciOptions(io, root, brief.absPath, config));
  else if (opts.print) io.stdout.write(composed);
  return ExitCode.Ok;
}

/** The flags checked, the brief read, and where the brief to use is written (never over the brief itself). */
async function planRun(ctx: CommandContext, briefArg: string, opts: IssueStartOptions) {
  const { io } = ctx;
  if (opts.json && opts.format && opts.format !== 'json')
    throw new UsageError(`--json and --format ${opts.format} both choose what stdout carries; choose one`);
  const format = opts.json ? 'json' : (opts.format ?? null);
  if (opts.print && format)
    throw new UsageError(
      `--print and --${format === 'json' ? 'json' : `format ${format}`} both write to stdout; choose one`,
    );
  const { config } = await ctx.config();
  // Bad flags are refused before the brief is read (the check applies them again, the same way).
  applyThresholdFlags(config, opts);
  checkScope(io.env, config, opts.scope);
  const brief = await readBrief(briefArg, io.cwd, io.stdin);
  const title = cleanTitle(
    firstH1(brief.text) ?? (brief.absPath ? path.basename(brief.absPath, path.extname(brief.absPath)) : 'brief'),
  );
  const ownDir = path.join(ctx.root(), '.agentos', 'issues', slugify(title, `brief-${brief.hash.slice(0, 8)}`));
  const outPath = opts.out ? path.resolve(io.cwd, opts.out) : path.join(ownDir, 'brief.md');
  if (brief.absPath && (path.resolve(outPath) === brief.absPath || isSameFile(outPath, brief.absPath))) {
    throw new UsageError(
      `${opts.out ?? path.relative(io.cwd, outPath)}: is the brief itself; agentos never modifies the brief in place (choose another --out)`,
    );
  }
  return { config, format, brief, title, ownDir, outPath };
}

/**
 * The decision on the alerts: a person's, at a prompt, or the policy's. A person's answer other than proceed is
 * remembered (Ignore) and kept as a label for `agentos calibrate`. null: cancelled at the prompt, nothing written.
 */
async function askOnDuplicate(ctx: CommandContext, c: BriefCheck, opts: IssueStartOptions): Promise<Decision | null> {
  const { io } = ctx;
  const { config, outcome, alerts, notes, logger, logBase, st, err, width, briefSha256 } = c;
  if (alerts.length) err(renderDuplicateAlert(alerts, config.thresholds.duplicate, st, width, notes));
  const interactive = canPrompt(io, Boolean(opts.nonInteractive));
  let decision: Decision;
  try {
    decision = await decideDuplicate(alerts, {
      canPrompt: interactive,
      policy: opts.onDuplicate,
      asker: ctx.prompts.duplicate ?? (interactive ? inquirerAsker(io.stdin, io.stderr) : null),
    });
  } catch (e) {
    if (!(e instanceof PromptCancelled)) throw e;
    logger.info(
      {
        ...logBase,
        event: 'decision',
        status: outcome.history.status,
        decision: 'cancelled',
        decidedBy: 'user',
        matches: summarize(alerts),
      },
      'cancelled at prompt',
    );
    err('Cancelled: nothing was written.');
    return null;
  }
  if (alerts.length && decision.by === 'policy')
    err(`Not prompting (non-interactive): applying --on-duplicate ${decision.action}.`);
  if (decision.by === 'user' && decision.action !== 'proceed') {
    const root = ctx.root();
    await recordAnswers(
      root,
      briefSha256,
      alerts,
      decision.action,
      decision.linked,
      answerScale(config, lineOfMethod(outcome.history.method)),
    ).catch((e: unknown) =>
      err(st.yellow(`warning: could not record the answer in ${answersFile(root)} (${(e as Error).message})`)),
    );
  }
  return decision;
}

/** The check record beside the brief to use, and the work this brief begins (attempts from now on belong to it). */
async function writeRecordAndWork(
  ctx: CommandContext,
  c: BriefCheck,
  o: { result: ReturnType<typeof checkResult>; outPath: string; ownDir: string; title: string },
): Promise<void> {
  const root = ctx.root();
  const { brief, st, err } = c;
  const recordPath = checkRecordPath(o.outPath, o.ownDir, brief.absPath);
  await writeFileAtomic(
    recordPath,
    JSON.stringify({ kind: CHECK_RECORD_KIND, ...o.result, output: o.outPath }, null, 2) + '\n',
  );
  // Attempts recorded from now on, on this branch, belong to this brief's work (src/attempt-memory/work.ts).
  const work = briefWork(root, brief.absPath, brief.text);
  if (work)
    await noteStartedWork(root, work, o.title, currentBranch(root)).catch((e: unknown) =>
      err(st.yellow(`warning: could not note the work begun (${(e as Error).message})`)),
    );
  if (path.dirname(recordPath) !== path.dirname(o.outPath))
    err(
      `Check record: ${path.relative(ctx.io.cwd, recordPath)} (an existing check.json beside the brief is not agentos' file)`,
    );
}

/** The brief's own issue id (front matter, its folder, a header field such as `Issue: #116`, its file name, its H1), as the index would read it. */
function briefWork(root: string, absPath: string | null, text: string): string | null {
  const rel = absPath ? path.relative(root, absPath).split(path.sep).join('/') : 'brief.md';
  return workId(
    extractMetadata(rel.startsWith('..') ? path.basename(rel) : rel, text, ['history'], '').metadata.issueId,
  );
}

function summarize(matches: { issueId: string | null; filePath: string; score: number }[]) {
  return matches.map((m) => ({ issueId: m.issueId, filePath: m.filePath, score: m.score }));
}
