import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument } from 'yaml';
import type { CommandContext } from '../../context.js';
import { ExitCode, UsageError } from '../../../shared/errors.js';
import { proposeThresholds, tradeOff, type BandRow, type QueryResult } from '../../../work-memory/eval/metrics.js';
import { writeFileAtomic } from '../../../shared/fsutil/atomic-write.js';
import { evaluate, historyCase } from '../../evaluate.js';
import { answerScale, maintainerFigures, readAnswers, sameScale, type Answer } from '../../../work-memory/decision/answers.js';

export interface CalibrateOptions {
  pairs?: string;
  results?: string;
  subset: number;
  targetPrecision: number;
  targetNoise: number;
  write?: boolean;
  json?: boolean;
}

/** The project's own labels needed before `--write` moves its lines (issue 29). */
export const MIN_LABELS = { same: 10, notSame: 20 };

const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(7);

/**
 * Answers as evaluation results: Link or Abort says the alerted match was the
 * same work (a right alert at its score); Ignore says it was not (an alert on
 * a brief with nothing to find). The latest answer per brief and match wins.
 */
export function answerResults(answers: Answer[], scale?: string): QueryResult[] {
  // One label per brief: its latest answer; an Ignore of several matches is one brief with nothing to find at its top score.
  const byBrief = new Map<string, Answer[]>();
  for (const a of answers) {
    if (a.answer === 'missed') continue; // names no match: no score to place a line with
    const list = byBrief.get(a.briefSha256) ?? [];
    const last = list[0];
    if (last && last.at !== a.at) list.length = 0; // a later answer replaces the earlier one
    list.unshift(a);
    byBrief.set(a.briefSha256, list);
  }
  // A score on another scale says nothing about today's lines: a brief counts only when every line of its latest
  // answer is on today's scale (an Ignore of a file and a report, where only the report's model changed, is out).
  const onScale = (list: Answer[]) => !scale || list.every((a) => sameScale(a.scale, scale, a.filePath));
  return [...byBrief.values()].filter(onScale).map((list) => {
    const a = list.reduce((x, y) => (y.score > x.score ? y : x));
    const same = a.answer !== 'ignore';
    return {
      id: `answer:${a.briefSha256.slice(0, 12)}`,
      kind: 'answer',
      target: same ? a.filePath : null,
      top: a.score,
      topPath: a.filePath,
      targetRank: same ? 1 : null,
      targetScore: same ? a.score : null,
      ms: 0,
    };
  });
}

/** Decide thresholds from an evaluation; show the trade-off; write config only when asked. */
export async function runCalibrate(ctx: CommandContext, opts: CalibrateOptions): Promise<number> {
  const { io, globals } = ctx;
  let results: QueryResult[];
  let maintainers: ReturnType<typeof maintainerFigures> | null = null;
  if (opts.results) {
    const file = path.resolve(io.cwd, opts.results);
    let parsed: { results?: QueryResult[] };
    try {
      parsed = JSON.parse(await readFile(file, 'utf8')) as { results?: QueryResult[] };
    } catch (e) {
      throw new UsageError(`${opts.results}: cannot read eval results (${(e as Error).message.split('\n')[0]})`);
    }
    if (!Array.isArray(parsed.results)) throw new UsageError(`${opts.results}: not the output of \`agentos eval --save\``);
    results = parsed.results;
  } else {
    results = (await evaluate(ctx, { pairs: opts.pairs, limit: 0, subset: opts.subset })).results;
    if (!opts.pairs) {
      // The project's own labels: what people answered at the duplicate prompt.
      const root = ctx.root();
      const all = await readAnswers(root);
      const answered = answerResults(all, answerScale((await ctx.config()).config));
      if (answered.length && !globals.quiet) io.stderr.write(`${answered.length} answers given at the duplicate prompt or on the tracker count as labels\n`);
      results = [...results, ...answered];
      maintainers = maintainerFigures(all);
    }
  }
  const asked = results.filter(historyCase);
  const rows = tradeOff(asked);
  const proposal = proposeThresholds(rows, opts.targetPrecision, opts.targetNoise);
  const labels = { same: asked.filter((r) => r.target !== null).length, notSame: asked.filter((r) => r.target === null).length };
  let wrote: string | null = null;
  if (opts.write) {
    // A project's own lines move only on enough of its own labels: a handful of answers would set them by chance.
    if (labels.same < MIN_LABELS.same || labels.notSame < MIN_LABELS.notSame) {
      throw new UsageError(
        `calibrate: ${labels.same} labelled same-work briefs and ${labels.notSame} with nothing the same; the lines move at ${MIN_LABELS.same} and ${MIN_LABELS.notSame} (answers at the prompt, "duplicate of #N" links, a tracker's duplicates); nothing written`,
      );
    }
    if (proposal.duplicate === null || proposal.related === null) throw new UsageError('calibrate: no thresholds meet the targets; nothing written (loosen --target-precision or --target-noise)');
    wrote = await writeThresholds(ctx.root(), proposal.duplicate, proposal.related);
  }
  if (opts.json) {
    io.stdout.write(JSON.stringify({ targets: { precision: opts.targetPrecision, noise: opts.targetNoise }, labels, maintainers, proposal, wrote, table: rows }, null, 2) + '\n');
    return ExitCode.Ok;
  }
  io.stdout.write(`Labels: ${labels.same} briefs with the same work, ${labels.notSame} with nothing the same.\n`);
  if (maintainers && maintainers.confirmed + maintainers.removed + maintainers.missed > 0) {
    const m = maintainers;
    const share = (x: number | null) => (x === null ? 'n/a' : `${Math.round(x * 100)}%`);
    io.stdout.write(
      `On the tracker: ${m.confirmed} alert${m.confirmed === 1 ? '' : 's'} closed as duplicates, ${m.removed} label${m.removed === 1 ? '' : 's'} removed, ${m.missed} duplicate${m.missed === 1 ? '' : 's'} closed with no alert: ` +
        `precision ${share(m.precision)}, recall ${share(m.recall)}.\n`,
    );
  }
  io.stdout.write(renderTable(rows, proposal) + '\n');
  io.stdout.write(
    `Proposed: duplicate ${proposal.duplicate ?? 'none meets the precision target'}, related ${proposal.related ?? 'none meets the noise target'} ` +
      `(targets: alert precision >= ${opts.targetPrecision} at 10% duplicates, noise <= ${opts.targetNoise}).\n`,
  );
  io.stdout.write(wrote ? `Wrote thresholds to ${wrote}.\n` : 'Not written (use --write to save them to .agentos/config.yaml).\n');
  return ExitCode.Ok;
}

function renderTable(rows: BandRow[], p: { duplicate: number | null; related: number | null }): string {
  const lines = ['threshold  dup.recall  precision@10%  noise  dup.reach'];
  for (const r of rows) {
    if (Math.round(r.threshold * 100) % 5 !== 0 && r.threshold !== p.duplicate && r.threshold !== p.related) continue;
    const mark = r.threshold === p.duplicate ? '  <- duplicate' : r.threshold === p.related ? '  <- related' : '';
    lines.push(`${r.threshold.toFixed(2).padStart(9)}  ${pct(r.recall)}     ${pct(r.precisionAtBase)}  ${pct(r.noise)}  ${pct(r.dupReach)}${mark}`);
  }
  return lines.join('\n');
}

/** Set thresholds.duplicate/related in the project's config, keeping the rest (and its comments). */
async function writeThresholds(root: string, duplicate: number, related: number): Promise<string> {
  const file = path.join(root, '.agentos', 'config.yaml');
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const doc = parseDocument(text);
  doc.setIn(['thresholds', 'duplicate'], duplicate);
  doc.setIn(['thresholds', 'related'], related);
  await writeFileAtomic(file, doc.toString());
  return file;
}
