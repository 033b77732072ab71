import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { GlobalOptions } from '../../cli.js';
import { loadConfig } from '../../config/load.js';
import { modelSetup } from '../../embeddings/setup.js';
import { ExitCode, UsageError } from '../../errors.js';
import { summarize, type EvalMetrics, type QueryResult } from '../../eval/metrics.js';
import type { IO } from '../../io.js';
import { findProjectRoot } from '../../project.js';

export interface EvalOptions {
  pairs?: string;
  json?: boolean;
  work?: string;
  limit: number;
  subset: number;
  method?: 'hybrid' | 'cosine';
  save?: string;
}

export interface EvalReport {
  source: string;
  method: string;
  scoring: 'hybrid' | 'cosine';
  indexed: number;
  metrics: EvalMetrics;
  timings: Record<string, number>;
}

/** Run an evaluation and return its per-query results (shared by `eval` and `calibrate`). */
export async function evaluate(io: IO, globals: GlobalOptions, opts: EvalOptions): Promise<{ report: EvalReport; results: QueryResult[] }> {
  const root = findProjectRoot(io.cwd, globals.cwd);
  const { config } = await loadConfig(root);
  if (opts.method) config.scoring.method = opts.method;
  const model = modelSetup(io.env, config, root);
  const progress = (m: string) => {
    if (!globals.quiet) io.stderr.write(`${m}\n`);
  };
  if (opts.pairs) {
    const file = path.resolve(io.cwd, opts.pairs);
    const { runPairsEval } = await import('../../eval/run-pairs.js');
    const work = path.resolve(io.cwd, opts.work ?? path.join(root, '.agentos', 'eval', path.basename(file).replace(/\W+/g, '-')));
    const run = await runPairsEval({ file, work, config, model: model.identity, loadEmbedder: () => model.load('batch'), limit: opts.limit, subset: opts.subset, onProgress: progress });
    const metrics = summarize(run.results, config.thresholds);
    return {
      report: { source: opts.pairs, method: `embedding:${model.identity.modelId}+hnsw`, scoring: config.scoring.method, indexed: run.indexed, metrics, timings: run.timings },
      results: run.results,
    };
  }
  const { runHistoryEval } = await import('../../eval/run-history.js');
  const run = await runHistoryEval({ root, config, model, onProgress: progress });
  return {
    report: { source: 'history', method: `embedding:${model.identity.modelId}+hnsw`, scoring: config.scoring.method, indexed: run.indexed, metrics: summarize(run.results, config.thresholds), timings: run.timings },
    results: run.results,
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function renderReport(r: EvalReport): string {
  const m = r.metrics;
  return [
    `Evaluation of ${r.source} (${r.scoring} scoring, ${r.indexed} documents indexed)`,
    `  queries                     ${m.queries.duplicates} duplicates, ${m.queries.nonDuplicates} with nothing to find`,
    `  right past work ranked 1st  ${pct(m.top1)}   (top 3: ${pct(m.top3)})`,
    `  alerts >= ${m.alert.threshold}             recall ${pct(m.alert.recall)}, precision ${pct(m.alert.precision)}, precision at ${pct(m.alert.baseRate)} duplicates ${pct(m.alert.precisionAtBase)}`,
    `  related >= ${m.related.threshold}             duplicates ${pct(m.related.duplicatesReaching)} (original shown ${pct(m.related.duplicatesTargetShown)}), non-duplicates (noise) ${pct(m.related.nonDuplicatesReaching)}`,
    `  AUC                         ${m.auc.toFixed(3)}`,
    `  timings                     query median ${m.timings.queryMsMedian.toFixed(1)} ms, p95 ${m.timings.queryMsP95.toFixed(1)} ms; ${Object.entries(r.timings)
      .map(([k, v]) => `${k} ${Math.round(v)} ms`)
      .join(', ')}`,
  ].join('\n');
}

export async function runEval(io: IO, globals: GlobalOptions, opts: EvalOptions): Promise<number> {
  if (opts.pairs === '') throw new UsageError('eval: --pairs needs a file');
  const { report, results } = await evaluate(io, globals, opts);
  if (opts.save) await writeFile(path.resolve(io.cwd, opts.save), JSON.stringify({ report, results }) + '\n');
  io.stdout.write(opts.json ? JSON.stringify(report, null, 2) + '\n' : renderReport(report) + '\n');
  return ExitCode.Ok;
}
