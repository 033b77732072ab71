/** `agentos calibrate`: the project's own lines placed on its own labels; it does not refit the shipped calibration. */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument } from 'yaml';
import type { CommandContext } from '../../context.js';
import { ExitCode, UsageError } from '../../../shared/errors.js';
import { proposeThresholds, tradeOff, type BandRow, type QueryResult } from '../../../work-memory/eval/metrics.js';
import { writeFileAtomic } from '../../../shared/fsutil/atomic-write.js';
import { evaluate, historyCase } from '../../evaluate.js';
import {
  maintainerFigures,
  projectScale,
  readAnswers,
  sameScale,
  type Answer,
} from '../../../work-memory/decision/answers.js';
import { FOLDS, refitReport, type LabelledBrief, type RefitReport } from '../../../work-memory/eval/refit.js';
import { calibrationVersion, isTrackerReport, trackerSameWorkModel } from '../../../work-memory/scoring/calibrated.js';
import { figuresOf, makeProjectLine, PROJECT_LINE_FILE } from '../../../work-memory/scoring/project-line.js';

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
  const { io } = ctx;
  const { results, maintainers, ownHistory } = await labelledResults(ctx, opts);
  const asked = results.filter(historyCase);
  const config = (await ctx.config()).config;
  // The project's own line: the trackers' model refitted on these labels, measured out of sample beside the shipped one.
  const lines = { duplicate: config.thresholds.duplicate, related: config.thresholds.related };
  const refits = [...labelledBriefs(asked)].map(([project, briefs]) => ({
    project,
    ...refitReport(briefs, trackerSameWorkModel(), lines),
  }));
  const rows = tradeOff(asked);
  const proposal = proposeThresholds(rows, opts.targetPrecision, opts.targetNoise);
  const labels = {
    same: asked.filter((r) => r.target !== null).length,
    notSame: asked.filter((r) => r.target === null).length,
  };
  const written = await writeWhatEarned(ctx, opts, { ownHistory, refits, labels, proposal });
  if (opts.json) {
    const projectLine = refits.map((r) => ({
      project: r.project,
      labels: r.labels,
      shipped: r.shipped && figuresOf(r.shipped),
      refit: r.refit && figuresOf(r.refit),
      earned: r.earned,
      verdict: r.verdict,
    }));
    const targets = { precision: opts.targetPrecision, noise: opts.targetNoise };
    const json = { targets, labels, maintainers, proposal, wrote: written.wrote, table: rows, projectLine };
    io.stdout.write(
      JSON.stringify({ ...json, wroteLine: written.wroteLine, retiredLine: written.retiredLine }, null, 2) + '\n',
    );
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
  if (refits.length) io.stdout.write('\n' + renderRefits(refits) + '\n');
  if (written.retiredLine)
    io.stdout.write(
      `Removed the project's line (${written.retiredLine}): it no longer beats the shipped model; the shipped model answers.\n`,
    );
  if (written.wroteLine)
    io.stdout.write(
      `Wrote the project's line to ${written.wroteLine}; the thresholds stay as they are (the line was placed at them).\n`,
    );
  else
    io.stdout.write(
      written.wrote
        ? `Wrote thresholds to ${written.wrote}.\n`
        : 'Not written (use --write to save them to .agentos/config.yaml).\n',
    );
  return ExitCode.Ok;
}

/**
 * The labelled results calibrate reads: a saved evaluation (`--results`), or one run now (`--pairs`, else the
 * project's own history plus the answers people gave at the duplicate prompt and on the tracker).
 */
async function labelledResults(ctx: CommandContext, opts: CalibrateOptions) {
  const { io, globals } = ctx;
  // The project's own history (asked now, or saved by `agentos eval --save` without --pairs): only it places the project's line.
  if (opts.results) {
    const file = path.resolve(io.cwd, opts.results);
    let parsed: { results?: QueryResult[]; report?: { source?: unknown } };
    try {
      parsed = JSON.parse(await readFile(file, 'utf8')) as { results?: QueryResult[]; report?: { source?: unknown } };
    } catch (e) {
      throw new UsageError(`${opts.results}: cannot read eval results (${(e as Error).message.split('\n')[0]})`);
    }
    if (!Array.isArray(parsed.results))
      throw new UsageError(`${opts.results}: not the output of \`agentos eval --save\``);
    return { results: parsed.results, maintainers: null, ownHistory: parsed.report?.source === 'history' };
  }
  const results = (await evaluate(ctx, { pairs: opts.pairs, limit: 0, subset: opts.subset })).results;
  if (opts.pairs) return { results, maintainers: null, ownHistory: false };
  // The project's own labels: what people answered at the duplicate prompt.
  const root = ctx.root();
  const all = await readAnswers(root);
  const answered = answerResults(all, projectScale((await ctx.config()).config, root));
  if (answered.length && !globals.quiet)
    io.stderr.write(`${answered.length} answers given at the duplicate prompt or on the tracker count as labels\n`);
  return { results: [...results, ...answered], maintainers: maintainerFigures(all), ownHistory: true };
}

/**
 * With --write, what the labels earned: the project's own line where its refit beats the shipped model (or the
 * old line removed where it no longer does), else thresholds, and only on enough of the project's own labels.
 */
async function writeWhatEarned(
  ctx: CommandContext,
  opts: CalibrateOptions,
  o: {
    ownHistory: boolean;
    refits: Array<ReturnType<typeof refitReport> & { project: string }>;
    labels: { same: number; notSame: number };
    proposal: ReturnType<typeof proposeThresholds>;
  },
): Promise<{ wrote: string | null; wroteLine: string | null; retiredLine: string | null }> {
  const { refits, labels, proposal } = o;
  let wroteLine: string | null = null;
  let retiredLine: string | null = null;
  // Only the project's own history places its line (a development set is someone else's tracker).
  const own = o.ownHistory ? refits.find((r) => r.earned && r.model) : undefined;
  const lineFile = path.join(ctx.root(), PROJECT_LINE_FILE);
  if (opts.write && own?.model && own.shipped && own.refit) {
    const line = makeProjectLine(own.model, {
      against: calibrationVersion(),
      labels: own.labels,
      shipped: own.shipped,
      project: own.refit,
    });
    await mkdir(path.dirname(lineFile), { recursive: true });
    await writeFileAtomic(lineFile, JSON.stringify(line, null, 2) + '\n');
    wroteLine = lineFile;
  } else if (opts.write && o.ownHistory && refits.some((r) => r.refit) && existsSync(lineFile)) {
    // A line that no longer beats the shipped model goes: the shipped model answers again.
    await rm(lineFile, { force: true });
    retiredLine = lineFile;
  }
  if (!opts.write || wroteLine) return { wrote: null, wroteLine, retiredLine };
  // A project's own lines move only on enough of its own labels: a handful of answers would set them by chance.
  if (labels.same < MIN_LABELS.same || labels.notSame < MIN_LABELS.notSame) {
    throw new UsageError(
      `calibrate: ${labels.same} labelled same-work briefs and ${labels.notSame} with nothing the same; the lines move at ${MIN_LABELS.same} and ${MIN_LABELS.notSame} (answers at the prompt, "duplicate of #N" links, a tracker's duplicates); nothing written`,
    );
  }
  if (proposal.duplicate === null || proposal.related === null)
    throw new UsageError(
      'calibrate: no thresholds meet the targets; nothing written (loosen --target-precision or --target-noise)',
    );
  return { wrote: await writeThresholds(ctx.root(), proposal.duplicate, proposal.related), wroteLine, retiredLine };
}

/**
 * The labelled briefs a refit reads, per project: candidates that are reports, with their features; briefs whose
 * original is a report or that have nothing to find. A brief's cluster is its duplicate cluster, joined through
 * every link (union-find over the brief and its labelled candidates): asked in turn, report A finds B and B finds
 * A, and neither may train a fold the other is measured on.
 */
export function labelledBriefs(results: Array<QueryResult & { project?: string }>): Map<string, LabelledBrief[]> {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let root = x;
    while (parent.has(root) && parent.get(root) !== root) root = parent.get(root)!;
    parent.set(x, root);
    return root;
  };
  const union = (a: string, b: string) => {
    const [ra, rb] = [find(a), find(b)];
    if (ra !== rb) parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  };
  // Only briefs a tracker's report could answer: a project with no tracker has no line of its own to measure.
  const kept = results.filter(
    (r) =>
      r.history &&
      (r.target === null || isTrackerReport(r.target)) &&
      r.history.some((c) => c.features && isTrackerReport(c.path)),
  );
  // Names are per project: the same path in two development trackers is two reports.
  const inProject = (r: { project?: string }, name: string) => `${r.project ?? ''}\u0000${name}`;
  for (const r of kept) {
    if (r.target) union(inProject(r, r.id), inProject(r, r.target));
    for (const c of r.history!) if (c.label === 1) union(inProject(r, r.id), inProject(r, c.path));
  }
  const out = new Map<string, LabelledBrief[]>();
  for (const r of kept) {
    const candidates = r
      .history!.filter((c) => c.features && isTrackerReport(c.path))
      .map((c) => ({ path: c.path, label: c.label, features: c.features! }));
    const project = r.project ?? 'this project';
    const list = out.get(project) ?? [];
    list.push({ id: r.id, cluster: find(inProject(r, r.id)), target: r.target, candidates });
    out.set(project, list);
  }
  return out;
}

function renderRefits(refits: Array<RefitReport & { project: string }>): string {
  const lines = [
    `The project's own line: the trackers' model refitted on each project's labels, measured out of sample (${FOLDS}-fold by duplicate cluster) beside the shipped model on the same folds.`,
  ];
  for (const r of refits) {
    lines.push(
      `  ${r.project}: ${r.labels.duplicates} labelled duplicates, ${r.labels.others} reports with nothing to find`,
    );
    if (r.shipped && r.refit) {
      lines.push('              AUC   first  alert recall  precision@10%  false alerts');
      for (const [name, m] of [
        ['shipped', r.shipped],
        ['project', r.refit],
      ] as const)
        lines.push(
          `    ${name.padEnd(8)} ${m.auc.toFixed(3)}  ${pct(m.top1)}       ${pct(m.alert.recall)}        ${pct(m.alert.precisionAtBase)}       ${pct(m.alert.falseAlerts)}`,
        );
    }
    lines.push(`    ${r.verdict}`);
  }
  return lines.join('\n');
}

function renderTable(rows: BandRow[], p: { duplicate: number | null; related: number | null }): string {
  const lines = ['threshold  dup.recall  precision@10%  noise  dup.reach'];
  for (const r of rows) {
    if (Math.round(r.threshold * 100) % 5 !== 0 && r.threshold !== p.duplicate && r.threshold !== p.related) continue;
    const mark = r.threshold === p.duplicate ? '  <- duplicate' : r.threshold === p.related ? '  <- related' : '';
    lines.push(
      `${r.threshold.toFixed(2).padStart(9)}  ${pct(r.recall)}     ${pct(r.precisionAtBase)}  ${pct(r.noise)}  ${pct(r.dupReach)}${mark}`,
    );
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
