import type { GlobalOptions } from '../../cli.js';
import { formatScore } from '../../check/classify.js';
import { nearestDocuments } from '../../check/history.js';
import { loadConfig } from '../../config/load.js';
import type { CorpusType } from '../../corpus/types.js';
import { modelSetup } from '../../embeddings/setup.js';
import { assertExplicitModelDir } from '../../embeddings/model-location.js';
import { ExitCode, UsageError } from '../../errors.js';
import { openStore } from '../../index/hnsw-store.js';
import { useColor, type IO } from '../../io.js';
import { makeStyle } from '../../output/render.js';
import { issueLabel } from '../../output/sections.js';
import { safeForTerminal } from '../../output/sanitize.js';
import { findProjectRoot } from '../../project.js';
import { coverageJson } from '../../index/refresh.js';
import { refreshIndexForCheck } from '../../ui/index-refresh.js';
import { createSpinner, withDelayedSpinner } from '../../ui/spinner.js';

export interface SearchOptions {
  type?: CorpusType;
  limit: number;
  json?: boolean;
  /** false with --no-refresh. */
  refresh?: boolean;
}

/** "Have we worked on X?": the k best documents (by their best chunk) across the index. */
export async function runSearch(io: IO, globals: GlobalOptions, query: string, opts: SearchOptions): Promise<number> {
  if (query.trim() === '') throw new UsageError('search: the query is empty');
  const root = findProjectRoot(io.cwd, globals.cwd);
  const { config } = await loadConfig(root);
  const model = modelSetup(io.env, config, root);
  assertExplicitModelDir(model.location);
  const spinner = await createSpinner(io, Boolean(globals.quiet) || Boolean(opts.json));
  // One model load serves a refresh of a stale index and the query.
  let loading: ReturnType<typeof model.load> | null = null;
  const loadEmbedder = () => (loading ??= model.load());
  const index = await refreshIndexForCheck(io, { root, config, model: model.identity, loadEmbedder, noRefresh: opts.refresh === false, spinner, quiet: Boolean(globals.quiet) });
  const coverage = coverageJson(index);
  const [store, embedder] = await withDelayedSpinner(spinner, 'Loading model and index…', Promise.all([openStore(root, model.identity), loadEmbedder()]));
  if (store.count() === 0) {
    io.stderr.write('The index is empty: nothing matched the corpus globs. Run `agentos status` to see what each glob matches, or `agentos init`.\n');
    if (opts.json) io.stdout.write(JSON.stringify({ query, results: [], coverage }, null, 2) + '\n');
    return ExitCode.Ok;
  }
  const [vector] = await embedder.embed([query]);
  const types: CorpusType[] = opts.type ? [opts.type] : ['history', 'standard'];
  // A document indexed as both types must appear once: merge by path, keep the best.
  const byPath = new Map<string, ReturnType<typeof nearestDocuments>[number] & { types: CorpusType[] }>();
  for (const type of types) {
    if (store.count(type) === 0) continue;
    for (const m of nearestDocuments(store, [vector], opts.limit, type)) {
      const prev = byPath.get(m.filePath);
      if (!prev || m.score > prev.score) byPath.set(m.filePath, { ...m, types: [type, ...(prev?.types ?? [])] });
      else if (!prev.types.includes(type)) prev.types.push(type);
    }
  }
  const results = [...byPath.values()].sort((a, b) => b.score - a.score).slice(0, opts.limit);
  if (opts.json) {
    io.stdout.write(
      JSON.stringify(
        {
          query,
          method: `embedding:${embedder.modelId}+hnsw`,
          coverage,
          results: results.map((r) => ({ type: r.types.sort(), id: r.issueId, title: r.title, section: r.section, score: r.score, status: r.status, statusReason: r.statusReason, documentType: r.documentType, path: r.filePath, excerpt: r.excerpt })),
        },
        null,
        2,
      ) + '\n',
    );
    return ExitCode.Ok;
  }
  const st = await makeStyle(useColor(io, 'stdout'));
  if (results.length === 0) io.stdout.write('No results.\n');
  results.forEach((raw, i) => {
    const r = safeForTerminal(raw); // past text may carry terminal escapes
    const status = r.status ? (r.status === 'rejected' || r.status === 'superseded' ? st.red(r.status.toUpperCase()) : r.status) : '';
    io.stdout.write(`${i + 1}. ${st.bold(r.documentType === 'issue' || r.issueId ? `Issue ${issueLabel(r)}` : r.title)}  ${formatScore(r.score)}  [${r.types.join(', ')}]${status ? `  ${status}` : ''}\n`);
    io.stdout.write(`   ${st.dim(r.filePath)} › ${r.section}\n`);
    if (r.excerpt) io.stdout.write(`   ${r.excerpt}\n`);
  });
  return ExitCode.Ok;
}
