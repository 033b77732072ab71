/** `agentos calibrate --write` moves a project's lines only on enough labels (issue 29). */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MIN_LABELS, runCalibrate } from '../../src/cli/commands/calibrate/index.js';
import { UsageError } from '../../src/shared/errors.js';
import type { QueryResult } from '../../src/work-memory/eval/metrics.js';
import { makeIO, makeProject, testContext } from '../helpers/fakes.js';

/** n briefs whose work was found at 0.95 and m with nothing the same, whose best matches spread over 0.30-0.60. */
function results(n: number, m: number): QueryResult[] {
  const same = Array.from({ length: n }, (_, i) => ({ id: `s${i}`, target: `a${i}.md`, top: 0.95, topPath: `a${i}.md`, targetRank: 1, targetScore: 0.95, ms: 1 }));
  const none = Array.from({ length: m }, (_, i) => ({ id: `n${i}`, target: null, top: 0.3 + (0.3 * i) / m, topPath: `b${i}.md`, targetRank: null, targetScore: null, ms: 1 }));
  return [...same, ...none];
}

async function calibrate(n: number, m: number) {
  const root = await makeProject();
  const file = path.join(root, 'results.json');
  await writeFile(file, JSON.stringify({ results: results(n, m) }));
  const t = makeIO(root);
  const run = runCalibrate(testContext(t.io), { results: file, subset: 1, targetPrecision: 0.8, targetNoise: 0.25, write: true });
  return { root, run, t };
}

test('too few labels: the figures are refused with the counts, and the config is not written', async () => {
  const { root, run } = await calibrate(MIN_LABELS.same - 1, MIN_LABELS.notSame + 5);
  await expect(run).rejects.toThrow(UsageError);
  await expect(run).rejects.toThrow(`${MIN_LABELS.same - 1} labelled same-work briefs and ${MIN_LABELS.notSame + 5} with nothing the same`);
  expect(existsSync(path.join(root, '.agentos', 'config.yaml'))).toBe(false);
});

test('enough labels: the table and the label counts are shown, then the lines are written', async () => {
  const { root, run, t } = await calibrate(MIN_LABELS.same, MIN_LABELS.notSame);
  expect(await run).toBe(0);
  expect(t.stdout()).toContain(`Labels: ${MIN_LABELS.same} briefs with the same work, ${MIN_LABELS.notSame} with nothing the same.`);
  expect(existsSync(path.join(root, '.agentos', 'config.yaml'))).toBe(true);
});
