/** The project's own line on disk (issue 48): written whole by calibrate, read by every check, and input when read. */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { trackerSameWorkModel } from '../../src/work-memory/scoring/calibrated.js';
import { makeProjectLine, PROJECT_LINE_FILE, readProjectLine } from '../../src/work-memory/scoring/project-line.js';
import type { EvalMetrics } from '../../src/work-memory/eval/metrics.js';

const metrics = (auc: number): EvalMetrics => ({
  queries: { duplicates: 40, nonDuplicates: 40 },
  top1: 0.7,
  top3: 0.9,
  alert: { threshold: 0.85, precision: 0.8, recall: 0.3, precisionAtBase: 0.5, baseRate: 0.1, falseAlerts: 0.02 },
  related: { threshold: 0.5, duplicatesReaching: 0.6, duplicatesTargetShown: 0.5, nonDuplicatesReaching: 0.2 },
  auc,
  timings: { queryMsMedian: 0, queryMsP95: 0 },
});

function project(content?: string): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'agentos-line-'));
  mkdirSync(path.join(root, '.agentos'));
  if (content !== undefined) writeFileSync(path.join(root, PROJECT_LINE_FILE), content);
  return root;
}

const line = makeProjectLine(
  { ...trackerSameWorkModel(), intercept: -2 },
  { against: 'abc', labels: { duplicates: 40, others: 40 }, shipped: metrics(0.7), project: metrics(0.8), now: new Date('2026-12-05T00:00:00Z') },
);

test('none: the shipped model answers, nothing said', () => {
  expect(readProjectLine(project())).toEqual({ line: null, problem: null });
});

test('a line calibrate wrote reads back whole, with its figures', () => {
  const r = readProjectLine(project(JSON.stringify(line)));
  expect(r.problem).toBeNull();
  expect(r.line).toEqual(line);
  expect(r.line!.figures.project.auc).toBe(0.8);
  expect(r.line!.id).toMatch(/^[0-9a-f]{8}$/);
});

test.each([
  ['a weight edited by hand', { ...line, model: { ...line.model, intercept: 5 } }, 'its model does not match its id (edited by hand?)'],
  ['an unknown feature', { ...line, model: { ...line.model, features: { ...line.model.features, bogus: { weight: 1, mean: 0, scale: 1 } } } }, 'its model weighs "bogus", which is no feature'],
  ['a scale of 0', { ...line, model: { ...line.model, features: { gap: { weight: 1, mean: 0, scale: 0 } } } }, 'the numbers of "gap" are not finite (or its scale is not positive)'],
  ['another version', { ...line, version: 2 }, 'version 2 is not one this agentos reads'],
])('%s: set aside and named, the shipped model answers', (_name, content, why) => {
  expect(readProjectLine(project(JSON.stringify(content)))).toEqual({
    line: null,
    problem: `${PROJECT_LINE_FILE}: ${why}; the shipped model answers (run \`agentos calibrate --write\` again)`,
  });
});

test('not JSON: named in one line', () => {
  const r = readProjectLine(project('{"version": 1,'));
  expect(r.line).toBeNull();
  expect(r.problem).toMatch(/^\.agentos\/calibration\.json: not readable JSON \(.+\); the shipped model answers$/);
});
