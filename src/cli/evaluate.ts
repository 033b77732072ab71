/**
 * Running an evaluation, shared by `agentos eval` (which reports it) and `agentos calibrate`
 * (which places the project's lines from it): one command never imports another.
 */
import path from 'node:path';
import type { CommandContext } from './context.js';
import type { Config } from '../shared/config/schema.js';
import { modelSetup } from '../work-memory/index/model-setup.js';
import { summarize, type EvalMetrics, type QueryResult } from '../work-memory/eval/metrics.js';
import { standardsMetrics, type StandardsMetrics } from '../work-memory/eval/standards-metrics.js';
import type { SweepRow } from '../work-memory/eval/sweep.js';
import { calibrationVersion } from '../work-memory/scoring/calibrated.js';
import { embeddingMethod } from '../work-memory/check/run.js';
import { RENAMED_METHODS, type ScoringMethod } from '../shared/config/model-values.js';

export interface EvalOptions {
  pairs?: string;
  json?: boolean;
  work?: string;
  limit: number;
  subset: number;
  /** A scoring method, or an earlier name of one (model-values.ts RENAMED_METHODS), still taken with a warning. */
  method?: string;
  save?: string;
  /** Corpus sizes for the sweep (`--sweep 5,10,30`; `--sweep` alone: the default sizes). */
  sweep?: number[] | true;
}

export interface EvalReport {
  source: string;
  method: string;
  scoring: ScoringMethod;
  calibration: string;
  indexed: number;
  /** The history check over every project of the set. */
  metrics: EvalMetrics;
  /** The same per project (tracker or repository). */
  byProject?: Record<string, EvalMetrics>;
  /** The standards check, where the set labels governing standards. */
  standards?: StandardsMetrics & { rule: { threshold: number; k: number; candidates: number } };
  sweep?: SweepRow[];
  timings: Record<string, number>;
}

/** Briefs the history check is judged on: not the ones only an ADR records, nor the standards check's own cases. */
export const historyCase = (r: { kind?: string }) =>
  !r.kind || !/_adr$|^design_cites_standard$|^cross_project$/.test(r.kind);

/** Run an evaluation and return its per-query results (shared by `eval` and `calibrate`). */
export async function evaluate(
  ctx: CommandContext,
  opts: EvalOptions,
): Promise<{ report: EvalReport; results: QueryResult[] }> {
  const { io, globals } = ctx;
  const root = ctx.root();
  // A copy: the run changes the method and thresholds without touching the context's config.
  const config = structuredClone((await ctx.config()).config);
  const renamed = opts.method ? RENAMED_METHODS[opts.method] : undefined;
  if (renamed) io.stderr.write(`warning: --method ${opts.method} is now called ${renamed} (still read)\n`);
  if (opts.method) config.scoring.method = renamed ?? (opts.method as ScoringMethod);
  const model = modelSetup(io.env, config, root);
  const progress = (m: string) => {
    if (!globals.quiet) io.stderr.write(`${m}\n`);
  };
  const method = embeddingMethod(model.identity.modelId);
  if (opts.pairs) return evaluatePairs(ctx, opts, { pairs: opts.pairs, config, model, method, progress });
  const { runHistoryEval } = await import('../work-memory/eval/run-history.js');
  const run = await runHistoryEval({ root, config, model, onProgress: progress });
  return {
    report: {
      source: 'history',
      method,
      scoring: config.scoring.method,
      calibration: calibrationVersion(),
      indexed: run.indexed,
      metrics: summarize(run.results, config.thresholds),
      timings: run.timings,
    },
    results: run.results,
  };
}

/** An evaluation on labelled pairs (`--pairs`): each project indexed in its own folder and its briefs asked. */
async function evaluatePairs(
  ctx: CommandContext,
  opts: EvalOptions,
  o: {
    pairs: string;
    config: Config;
    model: ReturnType<typeof modelSetup>;
    method: string;
    progress: (m: string) => void;
  },
): Promise<{ report: EvalReport; results: QueryResult[] }> {
  const { io } = ctx;
  const root = ctx.root();
  const { config, model, method, progress } = o;
  const file = path.resolve(io.cwd, o.pairs);
  const { loadEvalSet, sampleById } = await import('../work-memory/eval/sets.js');
  const { runSet } = await import('../work-memory/eval/run-set.js');
  let projects = loadEvalSet(file, { subset: opts.subset });
  if (opts.limit > 0) projects = projects.map((p) => ({ ...p, cases: sampleById(p.cases, opts.limit) }));
  const work = path.resolve(
    io.cwd,
    opts.work ?? path.join(root, '.agentos', 'eval', path.basename(file).replace(/\W+/g, '-')),
  );
  const base = { work, config, model: model.identity, loadEmbedder: () => model.load('batch'), onProgress: progress };
  const run = await runSet({ ...base, projects, crossStandards: true });
  const history = run.results.filter(historyCase);
  // What stands out is the calibrated score's rule only (check/standards.ts), as the product applies it.
  const rule = {
    threshold: config.thresholds.standards,
    k: config.standards.k,
    candidates: config.standards.candidates,
    standout: config.scoring.method === 'calibrated',
  };
  const hasStandards = run.results.some((r) => r.standards && r.standards.governing.length > 0);
  const report: EvalReport = {
    source: o.pairs,
    method,
    scoring: config.scoring.method,
    calibration: calibrationVersion(),
    indexed: run.indexed,
    metrics: summarize(history, config.thresholds),
    byProject: Object.fromEntries(
      projects.map((p) => [
        p.name,
        summarize(
          history.filter((r) => r.project === p.name),
          config.thresholds,
        ),
      ]),
    ),
    ...(hasStandards ? { standards: { ...standardsMetrics(run.results, rule), rule } } : {}),
    timings: run.timings,
  };
  if (opts.sweep) {
    const { runSweep, DEFAULT_SIZES } = await import('../work-memory/eval/sweep.js');
    report.sweep = (
      await runSweep(projects, opts.sweep === true ? DEFAULT_SIZES : opts.sweep, {
        ...base,
        work: path.join(work, 'sweep'),
      })
    ).rows;
  }
  return { report, results: run.results };
}
