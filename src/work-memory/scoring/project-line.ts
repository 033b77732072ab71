/**
 * The project's own line (issue 48): the trackers' same-work model refitted on this project's
 * labelled reports by `agentos calibrate --write`, kept in `.agentos/calibration.json` only when
 * it beat the shipped model out of sample. Every check reads it; reports from a tracker are then
 * scored by it, and the answer's method says so (`+project-line@<id>`). The file is input: a
 * model that is not one (unknown features, numbers that are not finite) is set aside, named, and
 * the shipped model answers.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { LogisticModel } from './calibration-types.js';
import { CALIBRATION } from './calibration-data.js';
import { FEATURE_NAMES, type FeatureName } from './features.js';
import type { EvalMetrics } from '../eval/metrics.js';

export const PROJECT_LINE_FILE = '.agentos/calibration.json';
const MAX_BYTES = 64 * 1024;

/** Figures out of sample, on the same folds, as `calibrate` measured them. */
export interface LineFigures {
  auc: number;
  top1: number;
  recall: number;
  precisionAtBase: number;
  falseAlerts: number;
}

export interface ProjectLine {
  version: 1;
  /** A hash of the model's numbers: the method and recorded answers name the line they were made on. */
  id: string;
  fittedAt: string;
  /** The shipped calibration it was measured against (calibration-data.ts version). */
  against: string;
  labels: { duplicates: number; others: number };
  figures: { shipped: LineFigures; project: LineFigures };
  model: LogisticModel;
}

export const figuresOf = (m: EvalMetrics): LineFigures => ({
  auc: m.auc,
  top1: m.top1,
  recall: m.alert.recall,
  precisionAtBase: m.alert.precisionAtBase,
  falseAlerts: m.alert.falseAlerts,
});

export function lineId(model: LogisticModel): string {
  return createHash('sha256').update(JSON.stringify(model)).digest('hex').slice(0, 8);
}

export function makeProjectLine(
  model: LogisticModel,
  o: { against: string; labels: ProjectLine['labels']; shipped: EvalMetrics; project: EvalMetrics; now?: Date },
): ProjectLine {
  return {
    version: 1,
    id: lineId(model),
    fittedAt: (o.now ?? new Date()).toISOString(),
    against: o.against,
    labels: o.labels,
    figures: { shipped: figuresOf(o.shipped), project: figuresOf(o.project) },
    model,
  };
}

/**
 * The project's line, or null when there is none; `problem` names the file and what is wrong with it when it
 * cannot be used. The file is input (a clone brings whatever was committed): read only when it is a regular
 * file of at most MAX_BYTES, every field checked, nothing of its text repeated but what is checked to be safe.
 * A line measured against another shipped calibration is set aside: its figures compared another model.
 */
export function readProjectLine(
  root: string,
  calibration: string = CALIBRATION.version,
): { line: ProjectLine | null; problem: string | null } {
  const file = path.join(root, PROJECT_LINE_FILE);
  const unusable = (why: string) => ({
    line: null,
    problem: `${PROJECT_LINE_FILE}: ${why}; the shipped model answers (\`agentos calibrate --write\` measures a new line)`,
  });
  let st;
  try {
    st = lstatSync(file);
  } catch {
    return { line: null, problem: null };
  }
  if (!st.isFile()) return unusable('not a regular file');
  if (st.size > MAX_BYTES) return unusable(`larger than ${MAX_BYTES} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return unusable('not readable JSON');
  }
  const why = problemOf(parsed);
  if (why) return unusable(why);
  const line = parsed as ProjectLine;
  if (line.against !== calibration)
    return unusable(`measured against calibration ${line.against}, and this agentos ships ${calibration}`);
  return { line, problem: null };
}

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const share = (x: unknown): boolean => finite(x) && x >= 0 && x <= 1;
const count = (x: unknown): boolean => Number.isSafeInteger(x) && (x as number) >= 0;

/** What makes a parsed file no project line, or null. Never repeats the file's own text. */
function problemOf(v: unknown): string | null {
  if (!v || typeof v !== 'object') return 'not an object';
  const o = v as Partial<ProjectLine>;
  if (o.version !== 1) return 'its version is not one this agentos reads';
  if (typeof o.id !== 'string' || !/^[0-9a-f]{8}$/.test(o.id)) return 'its id is not one';
  if (typeof o.fittedAt !== 'string' || !/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(o.fittedAt)) return 'its date is not one';
  if (typeof o.against !== 'string' || !/^[0-9a-f]{8}$/.test(o.against))
    return 'the calibration it was measured against is not named';
  if (!o.labels || !count(o.labels.duplicates) || !count(o.labels.others)) return 'its label counts are not counts';
  const figures = o.figures as Partial<ProjectLine['figures']> | undefined;
  for (const f of [figures?.shipped, figures?.project])
    if (!f || !(['auc', 'top1', 'recall', 'precisionAtBase', 'falseAlerts'] as const).every((k) => share(f[k])))
      return 'its figures are not shares';
  const m = o.model;
  if (!m || typeof m !== 'object' || !finite(m.intercept) || !m.features || typeof m.features !== 'object')
    return 'it holds no model';
  for (const [name, p] of Object.entries(m.features)) {
    if (!(FEATURE_NAMES as readonly string[]).includes(name)) return 'its model weighs something that is no feature';
    const q = p as { weight?: unknown; mean?: unknown; scale?: unknown };
    if (!finite(q.weight) || !finite(q.mean) || !finite(q.scale) || q.scale <= 0)
      return `the numbers of "${name as FeatureName}" are not finite (or its scale is not positive)`;
  }
  if (!m.floors || !finite(m.floors.related) || !finite(m.floors.duplicate)) return 'its floors are not numbers';
  if (lineId(m) !== o.id) return 'its model does not match its id (edited by hand?)';
  return null;
}
