/** The project's own line on disk (issue 48): written whole by calibrate, read by every check, and input when read. */
import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { calibrationVersion, trackerSameWorkModel } from '../../src/work-memory/scoring/calibrated.js';
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
  {
    against: calibrationVersion(),
    labels: { duplicates: 40, others: 40 },
    shipped: metrics(0.7),
    project: metrics(0.8),
    now: new Date('2026-12-05T00:00:00Z'),
  },
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
  [
    'a weight edited by hand',
    { ...line, model: { ...line.model, intercept: 5 } },
    'its model does not match its id (edited by hand?)',
  ],
  [
    'an unknown feature (its name is not repeated)',
    {
      ...line,
      model: {
        ...line.model,
        features: { ...line.model.features, '\u001b[31mbogus': { weight: 1, mean: 0, scale: 1 } },
      },
    },
    'its model weighs something that is no feature',
  ],
  [
    'a scale of 0',
    { ...line, model: { ...line.model, features: { gap: { weight: 1, mean: 0, scale: 0 } } } },
    'the numbers of "gap" are not finite (or its scale is not positive)',
  ],
  ['another version', { ...line, version: 2 }, 'its version is not one this agentos reads'],
  [
    'figures that are not shares',
    { ...line, figures: { ...line.figures, project: { ...line.figures.project, auc: 'high' } } },
    'its figures are not shares',
  ],
  ['no figures', { ...line, figures: undefined }, 'its figures are not shares'],
  ['a date with terminal escapes', { ...line, fittedAt: '\u001b]0;owned\u0007' }, 'its date is not one'],
  [
    'another calibration',
    { ...line, against: 'ffffffff' },
    `measured against calibration ffffffff, and this agentos ships ${calibrationVersion()}`,
  ],
])('%s: set aside and named, the shipped model answers', (_name, content, why) => {
  expect(readProjectLine(project(JSON.stringify(content)))).toEqual({
    line: null,
    problem: `${PROJECT_LINE_FILE}: ${why}; the shipped model answers (\`agentos calibrate --write\` measures a new line)`,
  });
});

test('not a regular file (a link to /dev/zero would never end): set aside before anything is read', () => {
  const root = project();
  symlinkSync('/dev/zero', path.join(root, PROJECT_LINE_FILE));
  expect(readProjectLine(root).problem).toBe(
    `${PROJECT_LINE_FILE}: not a regular file; the shipped model answers (\`agentos calibrate --write\` measures a new line)`,
  );
});

test('not JSON: named in one line, without repeating the file', () => {
  const r = readProjectLine(project('{"version": 1, "\u001b[2J'));
  expect(r.line).toBeNull();
  expect(r.problem).toBe(
    `${PROJECT_LINE_FILE}: not readable JSON; the shipped model answers (\`agentos calibrate --write\` measures a new line)`,
  );
});
