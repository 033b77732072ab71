/**
 * The project's own line (issue 48): the trackers' same-work model refitted on this project's
 * labelled reports by `agentos calibrate --write`, kept in `.agentos/calibration.json` only when
 * it beat the shipped model out of sample. Every check reads it; reports from a tracker are then
 * scored by it, and the answer's method says so (`+project-line@<id>`). The file is input: a
 * model that is not one (unknown features, numbers that are not finite) is set aside, named, and
 * the shipped model answers.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { LogisticModel } from './calibration-types.js';
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

export const figuresOf = (m: EvalMetrics): LineFigures => ({ auc: m.auc, top1: m.top1, recall: m.alert.recall, precisionAtBase: m.alert.precisionAtBase, falseAlerts: m.alert.falseAlerts });

export function lineId(model: LogisticModel): string {
  return createHash('sha256').update(JSON.stringify(model)).digest('hex').slice(0, 8);
}

export function makeProjectLine(model: LogisticModel, o: { against: string; labels: ProjectLine['labels']; shipped: EvalMetrics; project: EvalMetrics; now?: Date }): ProjectLine {
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

/** The project's line, or null when there is none; `problem` names the file and what is wrong with it when it cannot be used. */
export function readProjectLine(root: string): { line: ProjectLine | null; problem: string | null } {
  const file = path.join(root, PROJECT_LINE_FILE);
  if (!existsSync(file)) return { line: null, problem: null };
  try {
    const text = readFileSync(file, 'utf8');
    if (text.length > MAX_BYTES) return { line: null, problem: `${PROJECT_LINE_FILE}: larger than ${MAX_BYTES} bytes; the shipped model answers` };
    const why = problemOf(JSON.parse(text));
    if (why) return { line: null, problem: `${PROJECT_LINE_FILE}: ${why}; the shipped model answers (run \`agentos calibrate --write\` again)` };
    return { line: JSON.parse(text) as ProjectLine, problem: null };
  } catch (e) {
    return { line: null, problem: `${PROJECT_LINE_FILE}: not readable JSON (${(e as Error).message.slice(0, 120)}); the shipped model answers` };
  }
}

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** What makes a parsed file no project line, or null. */
function problemOf(v: unknown): string | null {
  if (!v || typeof v !== 'object') return 'not an object';
  const o = v as Partial<ProjectLine>;
  if (o.version !== 1) return `version ${String(o.version)} is not one this agentos reads`;
  if (typeof o.id !== 'string' || typeof o.fittedAt !== 'string' || typeof o.against !== 'string') return 'its id, date or calibration is missing';
  const m = o.model;
  if (!m || typeof m !== 'object' || !finite(m.intercept) || !m.features || typeof m.features !== 'object') return 'it holds no model';
  for (const [name, p] of Object.entries(m.features)) {
    if (!(FEATURE_NAMES as readonly string[]).includes(name)) return `its model weighs "${name.slice(0, 40)}", which is no feature`;
    const q = p as { weight?: unknown; mean?: unknown; scale?: unknown };
    if (!finite(q.weight) || !finite(q.mean) || !finite(q.scale) || q.scale <= 0) return `the numbers of "${name as FeatureName}" are not finite (or its scale is not positive)`;
  }
  if (!m.floors || !finite(m.floors.related) || !finite(m.floors.duplicate)) return 'its floors are not numbers';
  if (lineId(m) !== o.id) return 'its model does not match its id (edited by hand?)';
  return null;
}
