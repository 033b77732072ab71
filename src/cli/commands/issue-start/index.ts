import { existsSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { githubFileLink, renderCommentMarkdown, renderGithub, type CiOptions, type CiReport } from '../../../work-memory/output/ci.js';
import { changedSinceFor, describeChangedSince, possibleRegression, sinceNotes, type ChangedSince } from '../../../work-memory/sources/since.js';
import type { MatchNotes } from '../../../work-memory/output/notes.js';
import { workLabel } from '../../../work-memory/output/sections.js';
import { originJson } from '../../../work-memory/output/origin.js';
import path from 'node:path';
import type { CommandContext } from '../../context.js';
import { readBrief } from '../../../work-memory/check/brief.js';
import { explainNoHistory } from '../../../work-memory/check/no-history.js';
import { runChecks, type CheckOutcome, type CheckScope } from '../../../work-memory/check/run.js';
import { checkScope, describeScope } from '../../ui/scope.js';
import { mergeContext, readManualContext } from '../../../work-memory/check/standards.js';
import type { Config } from '../../../shared/config/schema.js';
import { firstH1, cleanTitle } from '../../../work-memory/corpus/metadata.js';
import { decideDuplicate, type Decision, type DuplicateAction } from '../../../work-memory/decision/decide.js';
import { inquirerAsker, PromptCancelled } from '../../../work-memory/decision/prompt.js';
import { answerScale, answersFile, briefKey, dismissedFor, readAnswers, recordAnswers, withoutDismissed, type Answer } from '../../../work-memory/decision/answers.js';
import { ExitCode, ExitError, UsageError } from '../../../shared/errors.js';
import { currentBranch, noteStartedWork, workKey } from '../../../attempt-memory/work.js';
import { extractMetadata } from '../../../work-memory/corpus/metadata.js';
import { triedForMatches, triedNotes } from '../../../knowledge/tried-during.js';
import { canPrompt, debugLine, textWidth, useColor } from '../../../shared/io.js';
import { logRetrievedStandards } from '../../../work-memory/check/log-standards.js';
import { renderDuplicateAlert, renderLinked, renderRelated, renderStandards } from '../../../work-memory/output/render.js';
import { composeBrief } from '../../../work-memory/output/compose.js';
import { stripAgentosSections } from '../../../work-memory/output/sections.js';
import { slugify } from '../../../work-memory/output/write.js';
import { writeFileAtomic } from '../../../shared/fsutil/atomic-write.js';
import { CHECK_RECORD_KIND, checkRecordPath, isSameFile } from '../../../work-memory/output/safe-target.js';
import { safeForTerminal, terminalSafe } from '../../../shared/sanitize.js';
import { coverageJson } from '../../../work-memory/index/refresh.js';
import { indexPaths } from '../../../work-memory/index/layout.js';
import { refreshIndexForCheck } from '../../ui/index-refresh.js';
import { createSpinner, withDelayedSpinner } from '../../ui/spinner.js';
import { makeStyle } from '../../../shared/style.js';

export interface IssueStartOptions {
  nonInteractive?: boolean;
  onDuplicate: DuplicateAction;
  out?: string;
  print?: boolean;
  json?: boolean;
  /** The result on stdout for a machine: json (= --json), markdown (a comment body), github (workflow commands and a job summary). */
  format?: 'json' | 'markdown' | 'github';
  strict?: boolean;
  context: string[];
  /** false with --no-refresh: check against the index as it is (and warn what it misses). */
  refresh?: boolean;
  /** For this run only, over config `thresholds.*`. */
  duplicateThreshold?: number;
  relatedThreshold?: number;
  /** Compare with this repository or every repository in the shared store (over config store.scope). */
  scope?: CheckScope;
}

export const FAIL_OPEN = (error: string) => `Historian check failed: ${error}. Proceeding without history check.`;

export async function runIssueStart(ctx: CommandContext, briefArg: string, opts: IssueStartOptions): Promise<number> {
  const { io, globals } = ctx;
  if (opts.json && opts.format && opts.format !== 'json') throw new UsageError(`--json and --format ${opts.format} both choose what stdout carries; choose one`);
  const format = opts.json ? 'json' : (opts.format ?? null);
  if (opts.print && format) throw new UsageError(`--print and --${format === 'json' ? 'json' : `format ${format}`} both write to stdout; choose one`);
  const root = ctx.root();
  const { config, warnings: configWarnings } = await ctx.config();
  applyThresholdFlags(config, opts);
  const scope = checkScope(io.env, config, opts.scope);
  const brief = await readBrief(briefArg, io.cwd, io.stdin);
  const title = cleanTitle(firstH1(brief.text) ?? (brief.absPath ? path.basename(brief.absPath, path.extname(brief.absPath)) : 'brief'));
  const ownDir = path.join(root, '.agentos', 'issues', slugify(title, `brief-${brief.hash.slice(0, 8)}`));
  const outPath = opts.out ? path.resolve(io.cwd, opts.out) : path.join(ownDir, 'brief.md');
  if (brief.absPath && (path.resolve(outPath) === brief.absPath || isSameFile(outPath, brief.absPath))) {
    throw new UsageError(`${opts.out ?? path.relative(io.cwd, outPath)}: is the brief itself; agentos never modifies the brief in place (choose another --out)`);
  }
  // Start loading the model now (in the worker bin/agentos.js started, when there is one), so
  // it loads while the rest starts up. Only when there is an index to check against:
  // without one the check fails open and never needs the model.
  const deps = await ctx.checkDeps();
  if (existsSync(indexPaths(root).current)) deps.loadEmbedder().catch(() => undefined); // a failure is reported by the check itself
  // Loading pino, too, fits in the wait for the model; awaited after the check.
  const loggerLoading = ctx.logger();
  loggerLoading.catch(() => undefined); // (its error surfaces at the await below)
  const manual = await readManualContext(opts.context ?? [], io.cwd, root);
  const st = await makeStyle(useColor(io));
  const err = (s = '') => io.stderr.write(s + '\n');
  // Notes and summaries: silenced by --quiet (results, warnings and errors are not).
  const note = (s = '') => {
    if (!globals.quiet) err(s);
  };
  const width = textWidth(io.stderr);
  for (const w of configWarnings) err(`warning: ${w}`);

  // 1. Decide what the memory says.
  const spinner = await createSpinner(io, Boolean(globals.quiet) || format !== null);
  // Never check against an index that has not seen the newest files (src/work-memory/index/refresh.ts).
  const index = await refreshIndexForCheck(io, { root, config, model: deps.identity, loadEmbedder: deps.loadEmbedder, noRefresh: opts.refresh === false, spinner, quiet: Boolean(globals.quiet) });
  const started = performance.now();
  const checkedText = stripAgentosSections(brief.text);
  const outcome: CheckOutcome = await withDelayedSpinner(spinner, 'Checking past work…', runChecks(checkedText, config, deps, { history: true, standards: true, scope }));
  outcome.timings.checkMs = performance.now() - started;
  for (const [k, v] of Object.entries(outcome.timings)) debugLine(io, globals, `timing ${k}: ${Math.round(v)} ms`);
  debugLine(io, globals, `history: ${outcome.history.status} by ${outcome.history.method}; thresholds duplicate ${config.thresholds.duplicate}, related ${config.thresholds.related}`);
  const logger = await loggerLoading;
  const logBase = { brief: brief.absPath ? path.relative(root, brief.absPath) : 'stdin', briefSha256: brief.hash };

  if (outcome.history.error) {
    err(st.yellow(FAIL_OPEN(outcome.history.error)));
    logger.warn({ ...logBase, event: 'history_check_failed', error: outcome.history.error }, 'history check failed open');
    if (opts.strict) {
      logger.flush?.();
      throw new ExitError(`history check failed and --strict was given: ${outcome.history.error}`, ExitCode.IndexUnavailable);
    }
  }
  if (outcome.standards.error) {
    const e = outcome.standards.error;
    const line = outcome.standards.noIndex
      ? `warning: ${e}`
      : e === outcome.history.error
        ? 'warning: Librarian check failed for the same reason. Proceeding without standards context.'
        : `warning: Librarian check failed: ${e}. Proceeding without standards context.`;
    err(st.yellow(line));
  }
  for (const w of outcome.warnings) err(st.yellow(`warning: ${w}`));
  if (outcome.history.org) note(st.dim(describeScope(outcome.history.org)));
  const noHistory = outcome.history.status === 'no_history' ? await explainNoHistory(root, config, index.manifest?.includeHistory ?? null) : null;
  if (noHistory) err(st.yellow(noHistory.message));
  const standards = mergeContext(manual, outcome.standards.items);
  // What was tried during the matched past work and failed (the attempt memory joined to the work memory).
  const { lookup: tried, warning: triedWarning } = await triedForMatches(outcome.history.matches, config.attempts.enabled, () => ctx.attempts('read'));
  if (triedWarning) err(`warning: ${triedWarning}`);
  // For work from git: whether its files changed since, and a bug brief on such work is a possible regression (docs/sources.md).
  const since = await changedSinceFor(root, outcome.history.matches, index.manifest?.sources?.git?.ref ?? null, config.sources.git);
  const regressions = outcome.history.matches.filter((m) => possibleRegression(checkedText, m, since.get(m.filePath)));
  const triedNote = triedNotes(tried);
  const notes: MatchNotes = (m, safe) => [...sinceNotes(since, regressions)(m, safe), ...triedNote(m, safe)];
  logRetrievedStandards(logger, outcome.standards.items, logBase);

  // 2. Ask (or apply the policy) only for a duplicate alert, and never again on a match this brief's user dismissed.
  const briefSha256 = briefKey(checkedText);
  // A possible regression of done work is offered as related work to look at, not as a duplicate to abort.
  const candidates = outcome.history.status === 'duplicate_alert' ? outcome.history.matches.filter((m) => m.score >= config.thresholds.duplicate && !regressions.includes(m)) : [];
  for (const m of regressions) if (m.score >= config.thresholds.duplicate) note(st.yellow(`Possible regression of ${workLabel(safeForTerminal(m))}: ${describeChangedSince(since.get(m.filePath)!)}.`));
  const { raise: alerts, dismissed } = withoutDismissed(candidates, dismissedFor(candidates.length ? await readAnswersOrWarn(root, err) : [], briefSha256));
  for (const d of dismissed) {
    const who = d.match.issueId ? `#${terminalSafe(d.match.issueId)} ${terminalSafe(d.match.title)}` : terminalSafe(d.match.filePath);
    err(st.dim(`Dismissed before: ${who} (Ignore on ${terminalSafe(d.answer.at.slice(0, 10))}); not alerting on it again for this brief.`));
  }
  if (outcome.history.status === 'duplicate_alert' && !alerts.length) outcome.history.status = 'related_context';
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
    if (e instanceof PromptCancelled) {
      logger.info({ ...logBase, event: 'decision', status: outcome.history.status, decision: 'cancelled', decidedBy: 'user', matches: summarize(alerts) }, 'cancelled at prompt');
      err('Cancelled: nothing was written.');
      return ExitCode.Cancelled;
    }
    throw e;
  }
  if (alerts.length && decision.by === 'policy') err(`Not prompting (non-interactive): applying --on-duplicate ${decision.action}.`);
  if (decision.by === 'user' && decision.action !== 'proceed') {
    // A person's answer is remembered (Ignore) and kept as a label for `agentos calibrate`.
    const action = decision.action;
    await recordAnswers(root, briefSha256, alerts, action, decision.linked, answerScale(config)).catch((e: unknown) =>
      err(st.yellow(`warning: could not record the answer in ${answersFile(root)} (${(e as Error).message})`)),
    );
  }

  const record = {
    ...logBase,
    event: 'decision',
    status: outcome.history.status,
    decision: decision.action,
    decidedBy: decision.by,
    linked: decision.linked ? { issueId: decision.linked.issueId, filePath: decision.linked.filePath } : null,
    matches: summarize(outcome.history.nearest),
    method: outcome.history.method,
    error: outcome.history.error,
  };
  logger.info(record, `history check: ${outcome.history.status}, decision: ${decision.action}`);

  const result = {
    status: outcome.history.status,
    decision: decision.action,
    decidedBy: decision.by,
    method: outcome.history.method,
    error: outcome.history.error,
    scope: outcome.history.scope ?? 'repo',
    org: outcome.history.org ?? null,
    // alert: raised as the same work (not dismissed before, not a possible regression): what the prompt, a comment or an annotation alerts on.
    matches: outcome.history.matches.map((m) => ({ ...jsonMatch(m, since), alert: alerts.includes(m), possibleRegression: regressions.includes(m), tried: tried(m) })),
    nearest: outcome.history.nearest.map((m) => jsonMatch(m, since)),
    linked: decision.linked ? { ...jsonMatch(decision.linked, since), tried: tried(decision.linked) } : null,
    dismissed: dismissed.map((d) => ({ ...jsonMatch(d.match, since), dismissedAt: d.answer.at })),
    standards: { method: outcome.standards.method, error: outcome.standards.error, items: standards },
    // key: the brief as answers know it (text as checked: newlines normalised, agentos' sections out), for Ignore and calibrate.
    brief: { path: brief.absPath, sha256: brief.hash, key: briefSha256 },
    output: null as string | null,
    warnings: outcome.warnings,
    timings: Object.fromEntries(Object.entries(outcome.timings).map(([k, v]) => [k, Math.round(v)])),
    coverage: coverageJson(index),
    noHistory,
  };

  // 3. Act: abort writes nothing; everything else writes the brief to use.
  if (decision.action === 'abort') {
    const top = alerts[0];
    err(st.red(`Aborted: this appears to duplicate ${top.issueId ? `#${terminalSafe(top.issueId)}` : terminalSafe(top.filePath)}`));
    if (format) await writeResult(io, format, result, ciOptions(io, root, brief.absPath, config));
    return ExitCode.AbortedDuplicate;
  }
  const related = outcome.history.status === 'related_context' ? outcome.history.matches : [];
  const composed = composeBrief(brief.text, { linked: decision.linked, related, standards, notes });
  await writeFileAtomic(outPath, composed);
  const recordPath = checkRecordPath(outPath, ownDir, brief.absPath);
  await writeFileAtomic(recordPath, JSON.stringify({ kind: CHECK_RECORD_KIND, ...result, output: outPath }, null, 2) + '\n');
  // Attempts recorded from now on, on this branch, belong to this brief's work (src/attempt-memory/work.ts).
  const work = briefWork(root, brief.absPath, brief.text);
  if (work) await noteStartedWork(root, work, title, currentBranch(root)).catch((e: unknown) => err(st.yellow(`warning: could not note the work begun (${(e as Error).message})`)));
  if (path.dirname(recordPath) !== path.dirname(outPath)) err(`Check record: ${path.relative(io.cwd, recordPath)} (an existing check.json beside the brief is not agentos' file)`);
  result.output = outPath;

  const shownOut = path.relative(io.cwd, outPath) || outPath;
  if (decision.linked) note(renderLinked(decision.linked, shownOut, st, width));
  if (related.length) note(renderRelated(related, st, width, notes));
  if (standards.length) note(renderStandards(standards, st, width));
  if (outcome.history.status === 'clear' && !outcome.history.error) {
    // A stale index that was not refreshed answered: say so beside the result.
    const missed = result.coverage.staleFiles.length;
    note(
      missed ? st.yellow(`No similar past work found in the index, which misses ${missed} changed file${missed === 1 ? '' : 's'} (see the warning above).`) : st.green('✓ No similar past work found.'),
    );
  }
  note(`Brief to use: ${shownOut}`);

  if (format) await writeResult(io, format, result, ciOptions(io, root, brief.absPath, config));
  else if (opts.print) io.stdout.write(composed);
  return ExitCode.Ok;
}

/**
 * The result for a machine. github: the annotations on stdout (the runner reads workflow commands
 * there), the summary appended to $GITHUB_STEP_SUMMARY when the runner gives one, else on stdout.
 */
async function writeResult(io: CommandContext['io'], format: 'json' | 'markdown' | 'github', result: CiReport, o: CiOptions): Promise<void> {
  if (format === 'json') return void io.stdout.write(JSON.stringify(result, null, 2) + '\n');
  if (format === 'markdown') return void io.stdout.write(renderCommentMarkdown(result, o));
  const { annotations, summary } = renderGithub(result, o);
  io.stdout.write(annotations);
  const file = io.env.GITHUB_STEP_SUMMARY;
  if (file) await appendFile(file, summary + '\n');
  else io.stdout.write(summary);
}

/** Links to this repository's files where the run knows where it is browsed (a GitHub Actions run: server, repository, commit). */
function ciOptions(io: CommandContext['io'], root: string, briefPath: string | null, config: Config): CiOptions {
  const rel = briefPath ? path.relative(root, briefPath).split(path.sep).join('/') : null;
  return {
    duplicate: config.thresholds.duplicate,
    fileLink: githubFileLink(io.env),
    briefFile: rel && !rel.startsWith('..') ? rel : (briefPath ?? undefined),
  };
}

/** The brief's own issue id (front matter, its folder or file name, its H1), as the index would read it. */
function briefWork(root: string, absPath: string | null, text: string): string | null {
  const rel = absPath ? path.relative(root, absPath).split(path.sep).join('/') : 'brief.md';
  return workKey(extractMetadata(rel.startsWith('..') ? path.basename(rel) : rel, text, ['history'], '').metadata.issueId);
}

/** Past answers; unreadable answers warn and count as none (the check still runs). */
async function readAnswersOrWarn(root: string, err: (s: string) => void): Promise<Answer[]> {
  try {
    return await readAnswers(root);
  } catch (e) {
    err(`warning: could not read ${answersFile(root)} (${(e as Error).message}); past answers not applied`);
    return [];
  }
}

/** `--duplicate-threshold` / `--related-threshold` win over the config for this run; the pair must stay ordered. */
export function applyThresholdFlags(config: Config, opts: Pick<IssueStartOptions, 'duplicateThreshold' | 'relatedThreshold'>): void {
  if (opts.duplicateThreshold === undefined && opts.relatedThreshold === undefined) return;
  const duplicate = opts.duplicateThreshold ?? config.thresholds.duplicate;
  const related = opts.relatedThreshold ?? config.thresholds.related;
  if (!(related < duplicate)) throw new UsageError(`--related-threshold (${related}) must be below --duplicate-threshold (${duplicate})`);
  config.thresholds = { ...config.thresholds, duplicate, related };
}

function summarize(matches: { issueId: string | null; filePath: string; score: number }[]) {
  return matches.map((m) => ({ issueId: m.issueId, filePath: m.filePath, score: m.score }));
}

function jsonMatch(m: import('../../../work-memory/check/history.js').HistoryMatch, since?: Map<string, ChangedSince>) {
  return {
    id: m.issueId,
    title: m.title,
    path: m.filePath,
    score: m.score, // full precision: a rounded 0.85 must not sit beside status "related_context"
    status: m.status,
    statusReason: m.statusReason,
    summary: m.summary,
    section: m.section,
    excerpt: m.excerpt,
    paths: m.paths ?? [m.filePath],
    repository: m.repository ?? null,
    ...originJson(m.origin),
    changedSince: since?.get(m.filePath) ?? null,
    briefExcerpt: m.briefExcerpt ?? null,
    components: m.components ?? null,
  };
}
