/**
 * The check of one brief as `issue start` and `ci github` both run it: refresh the index,
 * check past work and standards, say on stderr what failed and which method answered, and
 * hold back the alerts a person dismissed for this very brief. Nothing is asked and
 * nothing is written here: `issue start` then asks and writes the brief to use, `ci github`
 * comments. (One command never imports another; both import this.)
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CommandContext } from './context.js';
import type { Config } from '../shared/config/schema.js';
import { ExitCode, ExitError, UsageError } from '../shared/errors.js';
import { debugLine, textWidth, useColor } from '../shared/io.js';
import { makeStyle } from '../shared/style.js';
import { safeForTerminal, terminalSafe } from '../shared/sanitize.js';
import type { Brief } from '../work-memory/check/brief.js';
import type { HistoryMatch } from '../work-memory/check/history.js';
import { explainNoHistory } from '../work-memory/check/no-history.js';
import { runChecks, type CheckOutcome, type CheckScope } from '../work-memory/check/run.js';
import { mergeContext, readManualContext, type StandardContext } from '../work-memory/check/standards.js';
import { logRetrievedStandards } from '../work-memory/check/log-standards.js';
import {
  answersFile,
  briefKey,
  dismissedFor,
  readAnswers,
  withoutDismissed,
  type Answer,
} from '../work-memory/decision/answers.js';
import type { RefreshOutcome } from '../work-memory/index/refresh.js';
import { indexPaths } from '../work-memory/index/layout.js';
import type { MatchNotes } from '../work-memory/output/notes.js';
import { stripAgentosSections, workLabel } from '../work-memory/output/sections.js';
import {
  changedSinceFor,
  describeChangedSince,
  possibleRegression,
  sinceNotes,
  type ChangedSince,
} from '../work-memory/sources/since.js';
import { triedForMatches, triedNotes } from '../knowledge/tried-during.js';
import { checkScope, describeScope } from './ui/scope.js';
import { refreshIndexForCheck } from './ui/index-refresh.js';
import { createSpinner, withDelayedSpinner } from './ui/spinner.js';

export interface BriefCheckOptions {
  /** Standards files given by hand (`--context`), attached beside the retrieved ones. */
  context: string[];
  /** false with --no-refresh: check against the index as it is (and warn what it misses). */
  refresh?: boolean;
  /** A failed history check ends the run (exit 4) instead of failing open. */
  strict?: boolean;
  /** For this run only, over config `thresholds.*`. */
  duplicateThreshold?: number;
  relatedThreshold?: number;
  /** Compare with this repository or every repository in the team store (over config store.scope). */
  scope?: CheckScope;
  /** stdout carries a machine's result: no spinner. */
  machine: boolean;
}

/** The design's words (ADR-0002): the history check is the Historian, the standards check the Librarian, in these two messages only (docs/glossary.md). */
export const FAIL_OPEN = (error: string) => `Historian check failed: ${error}. Proceeding without history check.`;

/** What a check found, ready for a decision: the alerts still to raise, and everything the result and the brief to use show. */
export type BriefCheck = Awaited<ReturnType<typeof checkBrief>>;

export async function checkBrief(ctx: CommandContext, brief: Brief, opts: BriefCheckOptions) {
  const { io, globals } = ctx;
  const root = ctx.root();
  const { config, warnings: configWarnings } = await ctx.config();
  applyThresholdFlags(config, opts);
  const scope = checkScope(io.env, config, opts.scope);
  // Start loading the model now (in the worker bin/agentos.js started, when there is one), so
  // it loads while the rest starts up. Only when there is an index to check against:
  // without one the check fails open and never needs the model.
  const deps = await ctx.checkDeps();
  if (existsSync(indexPaths(root).current)) deps.loadEmbedder().catch(() => undefined); // a failure is reported by the check itself
  // Loading pino, too, fits in the wait for the model; awaited after the check.
  const loggerLoading = ctx.logger();
  loggerLoading.catch(() => undefined); // (its error surfaces at the await below)
  const manual = await readManualContext(opts.context, io.cwd, root);
  const st = await makeStyle(useColor(io));
  const err = (s = '') => io.stderr.write(s + '\n');
  // Notes and summaries: silenced by --quiet (results, warnings and errors are not).
  const note = (s = '') => {
    if (!globals.quiet) err(s);
  };
  for (const w of configWarnings) err(`warning: ${w}`);
  const { index, checkedText, outcome } = await refreshAndCheck(ctx, brief, opts, { config, deps, scope });
  const logger = await loggerLoading;
  const logBase = { brief: brief.absPath ? path.relative(root, brief.absPath) : 'stdin', briefSha256: brief.hash };
  sayWhatFailed(outcome, opts, { st, err, note, logger, logBase });
  const noHistory =
    outcome.history.status === 'no_history'
      ? await explainNoHistory(root, config, index.manifest?.includeHistory ?? null)
      : null;
  if (noHistory) err(st.yellow(noHistory.message));
  const standards: StandardContext[] = mergeContext(manual, outcome.standards.items);
  const { tried, since, regressions, notes } = await notesOnMatches(ctx, config, outcome, index, checkedText, err);
  logRetrievedStandards(logger, outcome.standards.items, logBase);
  const briefSha256 = briefKey(checkedText);
  const { alerts, dismissed } = await alertsToRaise(
    root,
    config,
    outcome,
    { regressions, since, briefSha256 },
    { st, err, note },
  );
  return {
    brief,
    config,
    checkedText,
    briefSha256,
    index,
    outcome,
    standards,
    noHistory,
    alerts,
    dismissed,
    regressions,
    since,
    tried,
    notes,
    logger,
    logBase,
    st,
    err,
    note,
    width: textWidth(io.stderr),
  };
}

/**
 * What the matches carry beside their score: what was tried during that work and failed (the attempt memory
 * joined to the work memory), and for work from git whether its files changed since, a bug brief on such work
 * being a possible regression (docs/sources.md).
 */
async function notesOnMatches(
  ctx: CommandContext,
  config: Config,
  outcome: CheckOutcome,
  index: RefreshOutcome,
  checkedText: string,
  err: (s?: string) => void,
) {
  const root = ctx.root();
  const { lookup: tried, warning: triedWarning } = await triedForMatches(
    outcome.history.matches,
    config.attempts.enabled,
    () => ctx.attempts('read'),
  );
  if (triedWarning) err(`warning: ${triedWarning}`);
  const since = await changedSinceFor(
    root,
    outcome.history.matches,
    index.manifest?.sources?.git?.ref ?? null,
    config.sources.git,
  );
  const regressions = outcome.history.matches.filter((m) => possibleRegression(checkedText, m, since.get(m.filePath)));
  const triedNote = triedNotes(tried);
  const notes: MatchNotes = (m, safe) => [...sinceNotes(since, regressions)(m, safe), ...triedNote(m, safe)];
  return { tried, since, regressions, notes };
}

/** The index brought up to date (unless --no-refresh), then the check of the brief, timed and traced under --verbose. */
async function refreshAndCheck(
  ctx: CommandContext,
  brief: Brief,
  opts: BriefCheckOptions,
  o: { config: Config; deps: Awaited<ReturnType<CommandContext['checkDeps']>>; scope: CheckScope },
): Promise<{ index: RefreshOutcome; checkedText: string; outcome: CheckOutcome }> {
  const { io, globals } = ctx;
  const { config, deps, scope } = o;
  const spinner = await createSpinner(io, Boolean(globals.quiet) || opts.machine);
  // Never check against an index that has not seen the newest files (src/work-memory/index/refresh.ts).
  const index: RefreshOutcome = await refreshIndexForCheck(io, {
    root: ctx.root(),
    config,
    model: deps.identity,
    loadEmbedder: deps.loadEmbedder,
    noRefresh: opts.refresh === false,
    spinner,
    quiet: Boolean(globals.quiet),
  });
  const started = performance.now();
  const checkedText = stripAgentosSections(brief.text);
  const outcome: CheckOutcome = await withDelayedSpinner(
    spinner,
    'Checking past work…',
    runChecks(checkedText, config, deps, { history: true, standards: true, scope, ownIssue: brief.ownIssue }),
  );
  outcome.timings.checkMs = performance.now() - started;
  for (const [k, v] of Object.entries(outcome.timings)) debugLine(io, globals, `timing ${k}: ${Math.round(v)} ms`);
  debugLine(
    io,
    globals,
    `history: ${outcome.history.status} by ${outcome.history.method}; thresholds duplicate ${config.thresholds.duplicate}, related ${config.thresholds.related}`,
  );
  // Which thread ran the model (the worker bin/agentos.js started, or this one); a load that failed or is still running is not waited for.
  debugLine(io, globals, `model session: ${deps.loadedEmbedder?.()?.sessionIn ?? 'not loaded'}`);
  return { index, checkedText, outcome };
}

/** How a check speaks on stderr: styled, plain, and notes that --quiet silences. */
interface Say {
  st: Awaited<ReturnType<typeof makeStyle>>;
  err: (s?: string) => void;
  note: (s?: string) => void;
}

/** What failed and which method answered, on stderr (fail open), and in the log; --strict ends the run on a failed history check. */
function sayWhatFailed(
  outcome: CheckOutcome,
  opts: BriefCheckOptions,
  o: Say & { logger: Awaited<ReturnType<CommandContext['logger']>>; logBase: Record<string, string> },
): void {
  const { st, err, note, logger, logBase } = o;
  if (outcome.history.error) {
    err(st.yellow(FAIL_OPEN(outcome.history.error)));
    logger.warn(
      { ...logBase, event: 'history_check_failed', error: outcome.history.error },
      'history check failed open',
    );
    if (opts.strict) {
      logger.flush?.();
      throw new ExitError(
        `history check failed and --strict was given: ${outcome.history.error}`,
        ExitCode.IndexUnavailable,
      );
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
}

/**
 * Alerts to raise: never again on a match this brief's user dismissed, never a possible regression (offered as
 * related work to look at, not as a duplicate to abort). An alert with nothing left to raise reads as related work.
 */
async function alertsToRaise(
  root: string,
  config: Config,
  outcome: CheckOutcome,
  o: { regressions: HistoryMatch[]; since: Map<string, ChangedSince>; briefSha256: string },
  say: Say,
) {
  const { st, err, note } = say;
  const candidates =
    outcome.history.status === 'duplicate_alert'
      ? outcome.history.matches.filter((m) => m.score >= config.thresholds.duplicate && !o.regressions.includes(m))
      : [];
  for (const m of o.regressions)
    if (m.score >= config.thresholds.duplicate)
      note(
        st.yellow(
          `Possible regression of ${workLabel(safeForTerminal(m))}: ${describeChangedSince(o.since.get(m.filePath)!)}.`,
        ),
      );
  const { raise: alerts, dismissed } = withoutDismissed(
    candidates,
    dismissedFor(candidates.length ? await readAnswersOrWarn(root, err) : [], o.briefSha256),
  );
  for (const d of dismissed) {
    const who = d.match.issueId
      ? `#${terminalSafe(d.match.issueId)} ${terminalSafe(d.match.title)}`
      : terminalSafe(d.match.filePath);
    err(
      st.dim(
        `Dismissed before: ${who} (Ignore on ${terminalSafe(d.answer.at.slice(0, 10))}); not alerting on it again for this brief.`,
      ),
    );
  }
  if (outcome.history.status === 'duplicate_alert' && !alerts.length) outcome.history.status = 'related_context';
  return { alerts, dismissed };
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
export function applyThresholdFlags(
  config: Config,
  opts: Pick<BriefCheckOptions, 'duplicateThreshold' | 'relatedThreshold'>,
): void {
  if (opts.duplicateThreshold === undefined && opts.relatedThreshold === undefined) return;
  const duplicate = opts.duplicateThreshold ?? config.thresholds.duplicate;
  const related = opts.relatedThreshold ?? config.thresholds.related;
  if (!(related < duplicate))
    throw new UsageError(`--related-threshold (${related}) must be below --duplicate-threshold (${duplicate})`);
  config.thresholds = { ...config.thresholds, duplicate, related };
}
