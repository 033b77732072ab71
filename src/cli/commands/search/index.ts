import type { CommandContext } from '../../context.js';
import type { Config } from '../../../shared/config/schema.js';
import { formatScore } from '../../../work-memory/check/classify.js';
import type { CorpusType } from '../../../work-memory/corpus/types.js';
import { assertExplicitModelDir } from '../../../work-memory/embeddings/model-location.js';
import { ExitCode, UsageError, errorMessage } from '../../../shared/errors.js';
import { openLexical } from '../../../work-memory/lexical/file.js';
import { queryLexical, rankQuery, type OrgSearch } from '../../../work-memory/check/search.js';
import { embeddingMethod, type CheckScope } from '../../../work-memory/check/run.js';
import { orgSummary, type OrgSummary } from '../../../work-memory/org/open.js';
import { checkScope, describeScope } from '../../ui/scope.js';
import { debugLine, useColor } from '../../../shared/io.js';
import { makeStyle } from '../../../shared/style.js';
import { issueLabel, workLabel } from '../../../work-memory/output/sections.js';
import { originDone, originJson } from '../../../work-memory/output/origin.js';
import { safeForTerminal, terminalSafe } from '../../../shared/sanitize.js';
import { coverageJson } from '../../../work-memory/index/refresh.js';
import { refreshIndexForCheck } from '../../ui/index-refresh.js';
import { createSpinner, withDelayedSpinner } from '../../ui/spinner.js';

export interface SearchOptions {
  type?: CorpusType;
  limit: number;
  json?: boolean;
  /** false with --no-refresh. */
  refresh?: boolean;
  /** Over config `search.min_score` for this run. */
  minScore?: number;
  /** This repository, or every repository in the team store (over config store.scope). */
  scope?: CheckScope;
}

/** "Have we worked on X?": the k best documents (by their best chunk) across the index. */
export async function runSearch(ctx: CommandContext, query: string, opts: SearchOptions): Promise<number> {
  const { io, globals } = ctx;
  if (query.trim() === '') throw new UsageError('search: the query is empty');
  const root = ctx.root();
  const { config } = await ctx.config();
  const scope = checkScope(io.env, config, opts.scope);
  const t0 = performance.now();
  const { model, index, embedder, lexical, coverage } = await loadForSearch(ctx, config, opts);
  const minScore = opts.minScore ?? config.search.minScore;
  if (index.count() === 0 && scope === 'repo') {
    io.stderr.write(
      'The index is empty: nothing matched the corpus globs. Run `agentos status` to see what each glob matches, or `agentos init`.\n',
    );
    if (opts.json)
      io.stdout.write(
        JSON.stringify({ query, method: null, minScore, belowMinScore: 0, results: [], coverage }, null, 2) + '\n',
      );
    return ExitCode.Ok;
  }
  debugLine(
    io,
    globals,
    `search: model (${model.location.source}) and index loaded in ${Math.round(performance.now() - t0)} ms`,
  );
  const method = embedder ? embeddingMethod(embedder.modelId) : 'lexical';
  const org = scope === 'org' ? await orgSearch(ctx, method) : undefined;
  const ranked = await rankQuery(index, embedder, lexical, config, query, {
    types: opts.type ? [opts.type] : ['history', 'standard'],
    limit: opts.limit,
    org: org?.search,
  });
  const results = ranked.filter((r) => r.score >= minScore).slice(0, opts.limit);
  await logSearch(root, {
    query,
    type: opts.type ?? null,
    minScore,
    results: results.map((r) => ({ path: r.filePath, score: r.score })),
  });
  const below = ranked.length - ranked.filter((r) => r.score >= minScore).length;
  if (opts.json) {
    const answered = org?.answered;
    const head = { query, method: method + (answered ? '+pgvector' : ''), scope: answered ? 'org' : 'repo' };
    const json = {
      ...head,
      org: answered ?? null,
      minScore,
      belowMinScore: below,
      coverage,
      results: results.map(resultJson),
    };
    io.stdout.write(JSON.stringify(json, null, 2) + '\n');
    return ExitCode.Ok;
  }
  await writeResults(io, results, minScore, below);
  return ExitCode.Ok;
}

/** The index brought up to date (unless --no-refresh), then it and the model loaded together: one model load serves both. */
async function loadForSearch(ctx: CommandContext, config: Config, opts: SearchOptions) {
  const { io, globals } = ctx;
  const root = ctx.root();
  const model = await ctx.model();
  assertExplicitModelDir(model.location);
  const spinner = await createSpinner(io, Boolean(globals.quiet) || Boolean(opts.json));
  let loading: ReturnType<typeof model.load> | null = null;
  const loadEmbedder = () => (loading ??= model.load());
  const refreshed = await refreshIndexForCheck(io, {
    root,
    config,
    model: model.identity,
    loadEmbedder,
    noRefresh: opts.refresh === false,
    spinner,
    quiet: Boolean(globals.quiet),
  });
  const [index, loaded] = await withDelayedSpinner(
    spinner,
    'Loading model and index…',
    Promise.all([
      ctx.index(),
      loadEmbedder().then(
        (e) => ({ e, error: null }),
        (error: unknown) => ({ e: null, error }),
      ),
    ]),
  );
  const { lexical, warnings } = queryLexical(loaded, () => openLexical(root));
  for (const w of warnings) io.stderr.write(`warning: ${w}\n`);
  return { model, index, embedder: loaded.e, lexical, coverage: coverageJson(refreshed) };
}

type Ranked = Awaited<ReturnType<typeof rankQuery>>[number];

function resultJson(r: Ranked) {
  return {
    type: r.types.sort(),
    id: r.issueId,
    title: r.title,
    section: r.section,
    score: r.score,
    status: r.status,
    statusReason: r.statusReason,
    documentType: r.documentType,
    path: r.filePath,
    repository: r.repository ?? null,
    ...originJson(r.origin),
    excerpt: r.excerpt,
  };
}

/** The results as a person reads them: a numbered line each, where it is, and its best passage. */
async function writeResults(io: CommandContext['io'], results: Ranked[], minScore: number, below: number) {
  const st = await makeStyle(useColor(io, 'stdout'));
  if (results.length === 0)
    io.stdout
      .write(`No results scoring ${formatScore(minScore)} or more${below ? ` (${below} below; --min-score 0 lists them)` : ''}.
`);
  results.forEach((raw, i) => {
    const r = safeForTerminal(raw); // past text may carry terminal escapes
    const status = r.status
      ? r.status === 'rejected' || r.status === 'superseded'
        ? st.red(r.status.toUpperCase())
        : r.status
      : '';
    io.stdout.write(
      `${i + 1}. ${st.bold(r.origin ? workLabel(r) : r.documentType === 'issue' || r.issueId ? `Issue ${issueLabel(r)}` : r.title)}  ${formatScore(r.score)}  [${r.types.join(', ')}]${status ? `  ${status}` : ''}\n`,
    );
    // Work from git or a tracker: when it was done and where to see it, not its internal key.
    const o = r.origin;
    const where = o
      ? [originDone(o), o.url]
          .filter(Boolean)
          .map((t) => terminalSafe(t!))
          .join(' · ')
      : `${r.filePath} › ${r.section}`;
    io.stdout.write(`   ${st.dim(where)}\n`);
    if (r.excerpt) io.stdout.write(`   ${r.excerpt}\n`);
  });
}

/**
 * The org search's hooks: the team store's answer is described once on stderr; a
 * failure says that the local index answered (fail open, never silently).
 */
async function orgSearch(ctx: CommandContext, method: string) {
  const deps = await ctx.checkDeps();
  const state: { search?: OrgSearch; answered: OrgSummary | null } = { answered: null };
  const warned = new Set<string>();
  if (!deps.openOrg) {
    ctx.io.stderr.write(
      `warning: store.scope is org but no team store is configured (AGENTOS_DATABASE_URL or store.url); answered from this repository's local index only (method: ${method})\n`,
    );
    return undefined;
  }
  state.search = {
    open: deps.openOrg,
    answered: (view) => {
      for (const n of view.notes) {
        if (warned.has(n)) continue;
        warned.add(n);
        ctx.io.stderr.write(`warning: ${n}\n`);
      }
      if (!state.answered && !ctx.globals.quiet) ctx.io.stderr.write(describeScope(orgSummary(view)) + '\n');
      state.answered = orgSummary(view);
    },
    failed: (e) => {
      const line = `warning: the team store could not answer (${errorMessage(e)}); answered from this repository's local index only (method: ${method})`;
      if (!warned.has(line)) ctx.io.stderr.write(line + '\n');
      warned.add(line);
    },
  };
  return state;
}

/** Searches go in the audit log too: what was asked and what the memory answered. */
async function logSearch(root: string, record: Record<string, unknown>): Promise<void> {
  try {
    const { createFileLogger } = await import('../../../shared/log/logger.js');
    (await createFileLogger(root)).info({ event: 'search', ...record }, 'search');
  } catch {
    /* logging must never fail a search */
  }
}
