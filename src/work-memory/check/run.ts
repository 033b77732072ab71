import type { LogisticModel } from '../scoring/calibration-types.js';
import type { ProjectLine } from '../scoring/project-line.js';
import { emptyLocalIndex } from './no-local-index.js';
import type { Config } from '../../shared/config/schema.js';
import type { Embedder } from '../embeddings/embedder.js';
import { errorMessage, IndexUnavailableError } from '../../shared/errors.js';
import type { ModelIdentity } from '../index/build.js';
import type { VectorIndex } from '../index/types.js';
import type { HistoryStatus } from './classify.js';
import { checkHistory, embedBriefChunks, type HistoryMatch } from './history.js';
import { matchPaths } from '../scoring/match.js';
import { parseBrief, type ParsedBrief } from './parsed-brief.js';
import type { LexicalData, LexicalView } from '../lexical/file.js';
import type { Scoring } from '../scoring/rank.js';
import { briefPlace, type FilingPlace } from '../scoring/filing.js';
import { retrieveStandards, standardsNamedIn, withSuccessors, type StandardContext } from './standards.js';
import { orgSummary, type OrgRequest, type OrgSummary, type OrgView } from '../org/open.js';

/**
 * How every ranking of a text is scored (issue start, context, search, eval: one rule).
 * Without the model, the lexical fallback; without a lexical index, the cosine alone.
 */
export function scoringFor(
  config: Config,
  brief: ParsedBrief,
  o: {
    lexical: LexicalView | null;
    chunks?: string[];
    model: boolean;
    filed?: FilingPlace | null;
    trackerModel?: LogisticModel;
  },
): Scoring {
  const { relations, ownIssue } = brief;
  // A brief that is issue #N (told by `agentos ci`, or stated as the same-issue rule reads it) stands at
  // N in GitHub's filing order; any other is newer than every report.
  const filed = o.filed ?? (relations.own ? briefPlace('github', relations.own) : null);
  return {
    method: o.model ? (o.lexical ? config.scoring.method : 'cosine') : 'lexical',
    lexical: o.lexical,
    briefText: brief.text,
    briefTitle: brief.title,
    briefRelations: relations,
    briefChunks: o.chunks,
    lines: scoringLines(config),
    ...(filed ? { briefFiled: filed } : {}),
    ...(ownIssue ? { exclude: isRecordOf(ownIssue) } : {}),
    ...(o.trackerModel ? { trackerModel: o.trackerModel } : {}),
  };
}

/**
 * The brief's own GitHub record (`agentos ci` checks issue #N; once the tracker export holds it, as
 * it does for an edited or reopened issue, #N is past work too). Left out before scoring, not after:
 * present, it competes for the best other candidate (`gap`) and is its original's nearest other report.
 * Another tracker's report 19 is not GitHub's #19 (relations.ts isOwnIssue), and the team store never
 * returns this repository's own records.
 */
function isRecordOf(ownIssue: string): (filePath: string) => boolean {
  const key = `github:issue/${Number(ownIssue)}`;
  return (filePath) => filePath === key;
}

/** The lines the calibrated score's semantic floors protect: the configured thresholds. */
export function scoringLines(config: Config): Scoring['lines'] {
  return {
    history: { duplicate: config.thresholds.duplicate, related: config.thresholds.related },
    standard: { duplicate: config.thresholds.standards, related: config.thresholds.standards },
  };
}

/**
 * The method every answer reports when the model answered: the model (with its precision) and the HNSW index, e.g.
 * "embedding:Xenova/all-MiniLM-L6-v2@int8+hnsw"; `+project-line@<id>` and `+pgvector` are added where they answer.
 * Without the model the method is `lexical`. One definition: the CLI, the MCP server, search and eval report it.
 */
export function embeddingMethod(modelId: string): string {
  return `embedding:${modelId}+hnsw`;
}

/** Where the memory comes from; tests pass a fake embedder and an in-memory index. */
export interface CheckDeps {
  loadEmbedder: () => Promise<Embedder>;
  /** The embedder a finished load gave, else null: never starts or waits for a load (for what --verbose reports). */
  loadedEmbedder?: () => Embedder | null;
  openIndex: () => Promise<VectorIndex>;
  /** embeddingMethod's: reported as the method that answered. */
  method: string;
  /** What the embedder will be, known without loading it: lets a stale index be updated first. */
  identity?: ModelIdentity;
  /** The lexical index beside the vectors (the calibrated score, and the answer when the model cannot load). */
  openLexical?: () => Promise<LexicalData>;
  /** The other repositories of the team store joined to the local index (`--scope org`); absent when no store is configured. */
  openOrg?: (q: Omit<OrgRequest, 'self' | 'model'>) => Promise<OrgView & { where: string }>;
  /** The project's own line for a tracker's reports (`agentos calibrate --write`), and why a file there could not be used. */
  projectLine?: () => { line: ProjectLine | null; problem: string | null };
}

/** Which past work a check compares with: this repository's, or every repository's in the team store. */
export type CheckScope = 'repo' | 'org';

export interface HistoryOutcome {
  /** `no_history`: the index holds no completed work, so the check could not look (not "clear"). */
  status: HistoryStatus | 'error' | 'no_history';
  matches: HistoryMatch[];
  nearest: HistoryMatch[];
  error: string | null;
  method: string;
  /** What the check compared with: the scope asked for is `org`, but `repo` answered when the team store could not. */
  scope?: CheckScope;
  /** The other repositories compared with (org scope), and the store they came from. */
  org?: OrgSummary;
}

/** What the standards check says when there is no index at all (the history check says why on its own line). */
export const NO_INDEX = 'Vector store not found. Run `agentos index`.';

export interface StandardsOutcome {
  items: StandardContext[];
  error: string | null;
  /** True when the error is that no index was ever built (a typed reason, not a message to match). */
  noIndex?: boolean;
  method: string;
}

export interface CheckOutcome {
  history: HistoryOutcome;
  standards: StandardsOutcome;
  warnings: string[];
  timings: Record<string, number>;
}

export class CheckTimeoutError extends Error {
  constructor(ms: number) {
    super(`timed out after ${(ms / 1000).toFixed(1)}s`);
    this.name = 'TimeoutError';
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimeoutError(ms)), ms);
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The history check and the standards lookup. Never throws: any technical
 * failure comes back as status "error" with its message, and the caller
 * proceeds (fail open) and says so.
 */
export async function runChecks(
  briefText: string,
  config: Config,
  deps: CheckDeps,
  opts: CheckOptions,
): Promise<CheckOutcome> {
  const run: CheckRun = { timings: {}, warnings: [] };
  try {
    return await withTimeout(checkOnce(briefText, config, deps, opts, run), config.check.timeoutMs);
  } catch (e) {
    const error = errorMessage(e);
    return {
      history: { status: 'error', matches: [], nearest: [], error, method: 'none' },
      standards:
        e instanceof IndexUnavailableError && e.reason === 'missing'
          ? { items: [], error: NO_INDEX, noIndex: true, method: 'none' }
          : { items: [], error, method: 'none' },
      warnings: run.warnings,
      timings: run.timings,
    };
  }
}

type CheckOptions = { history: boolean; standards: boolean; scope?: CheckScope; ownIssue?: string };
/** What a check gathers as it goes, kept when it fails or times out. */
type CheckRun = { timings: Record<string, number>; warnings: string[] };
const now = () => performance.now();

async function checkOnce(
  briefText: string,
  config: Config,
  deps: CheckDeps,
  opts: CheckOptions,
  run: CheckRun,
): Promise<CheckOutcome> {
  const { timings, warnings } = run;
  const { loaded, index, lexical, noLocalIndex } = await loadAll(deps, opts, run);
  // No model: the keyword fallback answers when there is a lexical index (and says so).
  if (!loaded.embedder && !lexical) throw loaded.error;
  const own = deps.projectLine?.() ?? { line: null, problem: null };
  if (own.problem) warnings.push(own.problem);
  // Which line decided a tracker's report is part of the method every answer reports.
  const method = loaded.embedder ? `${deps.method}${own.line ? `+project-line@${own.line.id}` : ''}` : 'lexical';
  if (!loaded.embedder)
    warnings.push(
      `the model could not be loaded (${errorMessage(loaded.error)}); answering from the lexical index (method: lexical), which never reports a duplicate unless the brief is a near-verbatim copy`,
    );
  const t1 = now();
  // Read once: bounded work per brief (the user is told which part), and every step below reads this value.
  const brief = parseBrief(briefText, { ownIssue: opts.ownIssue });
  if (brief.limitNote) warnings.push(brief.limitNote);
  const { texts, vectors } = loaded.embedder
    ? await embedBriefChunks(brief, loaded.embedder, warnings)
    : { texts: [], vectors: [] };
  timings.embedMs = now() - t1;
  // The calibrated score needs the lexical index; without one the score is the cosine (and a warning said why).
  const scoring = scoringFor(config, brief, {
    lexical,
    chunks: texts,
    model: Boolean(loaded.embedder),
    trackerModel: own.line?.model,
  });
  const t2 = now();
  const asked = { index, lexical, noLocalIndex, vectors, scoring, method };
  const history = opts.history
    ? await historyOutcome(config, deps, opts, asked, run)
    : { status: 'clear' as const, matches: [], nearest: [], error: null, method };
  const standards = opts.standards
    ? standardsOutcome(config, opts, asked, history, brief)
    : { items: [], error: null, method };
  timings.queryMs = now() - t2;
  return { history, standards, warnings, timings };
}

/** The model, the index and the lexical index, loaded in parallel: they are independent and all take time. */
async function loadAll(deps: CheckDeps, opts: CheckOptions, run: CheckRun) {
  const { timings, warnings } = run;
  // No index here, but a team store to ask (`--scope org`): its repositories are the whole history.
  const orgWithoutIndex = opts.scope === 'org' && opts.history && deps.openOrg !== undefined;
  const askStoreInstead = (e: unknown) =>
    orgWithoutIndex && e instanceof IndexUnavailableError && e.reason === 'missing';
  const t0 = now();
  const [loaded, index, lexical] = await Promise.all([
    deps.loadEmbedder().then(
      (e) => ((timings.modelLoadMs = now() - t0), { embedder: e, error: null }),
      (e: unknown) => ({ embedder: null, error: e }),
    ),
    deps.openIndex().then(
      (s) => ((timings.indexLoadMs = now() - t0), s),
      (e: unknown) => {
        if (!askStoreInstead(e)) throw e;
        warnings.push(
          'this project has no index of its own: compared with the team store only, and no standards attached',
        );
        return null;
      },
    ),
    deps.openLexical
      ? deps.openLexical().then(
          (l) => ((timings.lexicalLoadMs = now() - t0), l),
          (e: unknown) => {
            if (askStoreInstead(e)) return null;
            warnings.push(`lexical index unavailable (${errorMessage(e)}); scoring by cosine alone`);
            return null;
          },
        )
      : Promise.resolve(null),
  ]);
  if (index) return { loaded, index, lexical, noLocalIndex: false };
  const empty = emptyLocalIndex(
    deps.identity ?? { modelId: 'unknown', modelFingerprint: 'unknown', dimensions: 384, maxTokens: 256 },
  );
  return { loaded, index: empty.index, lexical: empty.lexical, noLocalIndex: true };
}

/** What the check asks with: the index and lexical index, the brief's vectors and scoring, and the method it reports. */
interface Asked {
  index: VectorIndex;
  lexical: LexicalData | null;
  noLocalIndex: boolean;
  vectors: Float32Array[];
  scoring: Scoring;
  method: string;
}

async function historyOutcome(
  config: Config,
  deps: CheckDeps,
  opts: CheckOptions,
  q: Asked,
  run: CheckRun,
): Promise<HistoryOutcome> {
  const org =
    opts.scope === 'org'
      ? await orgHistory(
          deps,
          {
            local: q.index,
            localLexical: q.lexical,
            noLocalIndex: q.noLocalIndex,
            vectors: q.vectors,
            scoring: q.scoring,
            k: config.history.k,
            type: 'history',
          },
          run.warnings,
          q.method,
        )
      : null;
  if (org) run.timings.orgMs = org.ms;
  const against = org ?? {
    index: q.index,
    scoring: q.scoring,
    method: q.method,
    scope: 'repo' as const,
    info: undefined,
  };
  const said = { error: null, method: against.method, scope: against.scope, org: against.info };
  // Documents, not chunks read: an org view holds only the candidates it fetched, and counts the whole organisation.
  if ((against.index.docCount?.('history') ?? against.index.count('history')) === 0)
    // Nothing to compare with: saying "clear" would claim a check that did not happen.
    return { status: 'no_history', matches: [], nearest: [], ...said };
  return { ...checkHistory(against.index, q.vectors, config.history.k, config.thresholds, against.scoring), ...said };
}

function standardsOutcome(
  config: Config,
  opts: CheckOptions,
  q: Asked,
  history: HistoryOutcome,
  brief: ParsedBrief,
): StandardsOutcome {
  const { index, vectors, scoring } = q;
  // What the history check shows (a duplicate or related work): a design there is not repeated as a standard.
  const shown = new Set(history.matches.flatMap(matchPaths));
  // A design is attached only where this repository's history check places it as related work (standards.ts):
  // the check above when it ran on this repository, else one for the gate alone.
  const relatedHere =
    opts.history && history.scope !== 'org'
      ? shown
      : new Set(
          (index.count('history') > 0
            ? checkHistory(index, vectors, config.history.k, config.thresholds, scoring).matches
            : []
          ).flatMap(matchPaths),
        );
  const items = retrieveStandards(
    index,
    vectors,
    { candidates: config.standards.candidates, threshold: config.thresholds.standards, k: config.standards.k },
    scoring,
    relatedHere,
    standardsNamedIn(index, brief.citations),
  ).filter((s) => !shown.has(s.filePath));
  return { items: withSuccessors(index, items), error: null, method: q.method };
}

/**
 * The history check's view of the organisation (`--scope org`), or null after saying
 * why the local index answers alone: no store configured, or the store failed (down,
 * slow past store.timeout_ms, wrong schema). The check itself never fails for it.
 */
async function orgHistory(deps: CheckDeps, q: Omit<OrgRequest, 'self' | 'model'>, warnings: string[], method: string) {
  const local = `answered from this repository's local index only (method: ${method})`;
  if (!deps.openOrg) {
    warnings.push(`--scope org: no team store is configured (AGENTOS_DATABASE_URL or store.url); ${local}`);
    return null;
  }
  const started = performance.now();
  try {
    const view = await deps.openOrg(q);
    warnings.push(...view.notes);
    if (view.otherModel.length)
      warnings.push(
        `${view.otherModel.length} repositories in the team store were indexed with another model and were not compared: ${view.otherModel.join(', ')}`,
      );
    const scoring = { ...q.scoring, lexical: view.lexical };
    return {
      index: view.index,
      scoring,
      method: `${method}+pgvector`,
      scope: 'org' as const,
      info: orgSummary(view),
      ms: performance.now() - started,
    };
  } catch (e) {
    warnings.push(`the team store could not answer (${errorMessage(e)}); ${local}`);
    return null;
  }
}
