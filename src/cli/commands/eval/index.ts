import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CommandContext } from '../../context.js';
import { ExitCode, UsageError } from '../../../shared/errors.js';
import { type EvalMetrics } from '../../../work-memory/eval/metrics.js';
import type { QueryResult } from '../../../work-memory/eval/metrics.js';

import { evaluate, type EvalOptions, type EvalReport } from '../../evaluate.js';

export type { EvalOptions, EvalReport } from '../../evaluate.js';
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
function renderMetrics(m: EvalMetrics, indent = '  '): string[] {
  return [
    `${indent}queries                     ${m.queries.duplicates} duplicates, ${m.queries.nonDuplicates} with nothing to find`,
    `${indent}right past work ranked 1st  ${pct(m.top1)}   (top 3: ${pct(m.top3)})`,
    `${indent}alerts >= ${m.alert.threshold}             recall ${pct(m.alert.recall)}, precision ${pct(m.alert.precision)}, precision at ${pct(m.alert.baseRate)} duplicates ${pct(m.alert.precisionAtBase)}`,
    `${indent}false alerts                ${pct(m.alert.falseAlerts)} of briefs with nothing to find`,
    `${indent}related >= ${m.related.threshold}             duplicates ${pct(m.related.duplicatesReaching)} (original shown ${pct(m.related.duplicatesTargetShown)}), non-duplicates (noise) ${pct(m.related.nonDuplicatesReaching)}`,
    `${indent}AUC                         ${Number.isNaN(m.auc) ? 'n/a' : m.auc.toFixed(3)}`,
  ];
}

export function renderReport(r: EvalReport): string {
  const m = r.metrics;
  const lines = [
    `Evaluation of ${r.source} (${r.scoring} scoring, calibration ${r.calibration}, ${r.indexed} documents indexed)`,
    ...renderMetrics(m),
  ];
  for (const [name, pm] of Object.entries(r.byProject ?? {})) {
    if (Object.keys(r.byProject ?? {}).length < 2) break;
    lines.push(`  ${name}`, ...renderMetrics(pm, '    '));
  }
  if (r.standards) {
    const s = r.standards;
    lines.push(
      `  standards (score >= ${s.rule.threshold}, best ${s.rule.k} of ${s.rule.candidates})`,
      `    labelled briefs             ${s.labelled}: a governing one attached for ${pct(s.briefRecall)} (pairs ${pct(s.pairRecall)}), precision ${pct(s.precision)}`,
      `    unrelated briefs            ${s.unrelated}: none attached for ${pct(s.unrelatedNone)}`,
    );
  }
  if (r.sweep) {
    lines.push('  corpus-size sweep           docs  dups  none  false alerts  related noise  recall');
    for (const row of r.sweep) {
      lines.push(
        `    ${String(row.size).padStart(5)}                   ${String(row.documents).padStart(5)} ${String(row.duplicates).padStart(5)} ${String(row.nonDuplicates).padStart(5)}  ${pct(row.falseAlerts).padStart(12)}  ${pct(row.relatedNoise).padStart(13)}  ${pct(row.recall).padStart(6)}`,
      );
    }
  }
  lines.push(
    `  timings                     query median ${m.timings.queryMsMedian.toFixed(1)} ms, p95 ${m.timings.queryMsP95.toFixed(1)} ms; ${Object.entries(
      r.timings,
    )
      .map(([k, v]) => `${k} ${Math.round(v)} ms`)
      .join(', ')}`,
  );
  return lines.join('\n');
}

/**
 * A save is an input (of `agentos calibrate --results` and scripts/fit-calibration.mjs, issue 49): the same run gives
 * the same file, so it carries no wall-clock time; the printed report keeps them.
 */
export function withoutTimings(report: EvalReport, results: readonly QueryResult[]): object {
  const metricsOf = ({ timings: _t, ...m }: EvalMetrics) => m;
  const { timings: _timings, metrics, byProject, ...rest } = report;
  return {
    report: {
      ...rest,
      metrics: metricsOf(metrics),
      ...(byProject
        ? { byProject: Object.fromEntries(Object.entries(byProject).map(([k, m]) => [k, metricsOf(m)])) }
        : {}),
    },
    results: results.map(({ ms: _ms, ...r }) => r),
  };
}

export async function runEval(ctx: CommandContext, opts: EvalOptions): Promise<number> {
  const { io } = ctx;
  if (opts.pairs === '') throw new UsageError('eval: --pairs needs a file');
  if (opts.sweep && !opts.pairs)
    throw new UsageError('eval: --sweep needs --pairs (a labelled set to sample projects from)');
  const { report, results } = await evaluate(ctx, opts);
  if (opts.save)
    await writeFile(path.resolve(io.cwd, opts.save), JSON.stringify(withoutTimings(report, results)) + '\n');
  io.stdout.write(opts.json ? JSON.stringify(report, null, 2) + '\n' : renderReport(report) + '\n');
  return ExitCode.Ok;
}
