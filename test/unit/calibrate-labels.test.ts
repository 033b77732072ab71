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
  const same = Array.from({ length: n }, (_, i) => ({
    id: `s${i}`,
    target: `a${i}.md`,
    top: 0.95,
    topPath: `a${i}.md`,
    targetRank: 1,
    targetScore: 0.95,
    ms: 1,
  }));
  const none = Array.from({ length: m }, (_, i) => ({
    id: `n${i}`,
    target: null,
    top: 0.3 + (0.3 * i) / m,
    topPath: `b${i}.md`,
    targetRank: null,
    targetScore: null,
    ms: 1,
  }));
  return [...same, ...none];
}

async function calibrate(n: number, m: number) {
  const root = await makeProject();
  const file = path.join(root, 'results.json');
  await writeFile(file, JSON.stringify({ results: results(n, m) }));
  const t = makeIO(root);
  const run = runCalibrate(testContext(t.io), {
    results: file,
    subset: 1,
    targetPrecision: 0.8,
    targetNoise: 0.25,
    write: true,
  });
  return { root, run, t };
}

test('too few labels: the figures are refused with the counts, and the config is not written', async () => {
  const { root, run } = await calibrate(MIN_LABELS.same - 1, MIN_LABELS.notSame + 5);
  await expect(run).rejects.toThrow(UsageError);
  await expect(run).rejects.toThrow(
    `${MIN_LABELS.same - 1} labelled same-work briefs and ${MIN_LABELS.notSame + 5} with nothing the same`,
  );
  expect(existsSync(path.join(root, '.agentos', 'config.yaml'))).toBe(false);
});

test('enough labels: the table and the label counts are shown, then the lines are written', async () => {
  const { root, run, t } = await calibrate(MIN_LABELS.same, MIN_LABELS.notSame);
  expect(await run).toBe(0);
  expect(t.stdout()).toContain(
    `Labels: ${MIN_LABELS.same} briefs with the same work, ${MIN_LABELS.notSame} with nothing the same.`,
  );
  expect(existsSync(path.join(root, '.agentos', 'config.yaml'))).toBe(true);
});

test("maintainers' answers on the tracker: precision over the alerts they answered, recall over the duplicates they closed; a miss names no match", async () => {
  const { maintainerFigures, readAnswers, recordMaintainerAnswer, answersFile } = await import(
    '../../src/work-memory/decision/answers.js'
  );
  const { answerResults } = await import('../../src/cli/commands/calibrate/index.js');
  const root = await makeProject();
  const alert = (n: number) => ({
    brief: String(n).padStart(64, 'a'),
    alerts: [{ id: `${n}`, path: `docs/${n}.md`, score: 0.9 }],
  });
  await recordMaintainerAnswer(root, alert(1), 'abort', 'hybrid@x');
  await recordMaintainerAnswer(root, alert(2), 'abort', 'hybrid@x');
  await recordMaintainerAnswer(root, alert(3), 'ignore', 'hybrid@x');
  await recordMaintainerAnswer(root, { brief: 'f'.repeat(64), alerts: [] }, 'missed', 'hybrid@x');
  // A person's hand-written "missed" (not by a maintainer) is not a record agentos writes: skipped.
  await writeFile(
    answersFile(root),
    JSON.stringify({
      at: new Date().toISOString(),
      briefSha256: 'e'.repeat(64),
      issueId: null,
      filePath: '',
      score: 0,
      answer: 'missed',
    }) + '\n',
    { flag: 'a' },
  );
  const all = await readAnswers(root);
  expect(all).toHaveLength(4);
  expect(maintainerFigures(all)).toEqual({ confirmed: 2, removed: 1, missed: 1, precision: 2 / 3, recall: 2 / 3 });
  // Labels for the lines: the three answered alerts; the miss has no score to place a line with.
  expect(answerResults(all, 'hybrid@x').map((r) => r.target)).toEqual(['docs/1.md', 'docs/2.md', null]);
  // Answers kept while the calibrated score was called hybrid are on today's scale of the same version, not another's.
  expect(answerResults(all, 'calibrated@x').map((r) => r.target)).toEqual(['docs/1.md', 'docs/2.md', null]);
  expect(answerResults(all, 'calibrated@y')).toEqual([]);
  expect(answerResults(all, 'fused')).toEqual([]);
});

test("a refit of the trackers' model leaves a markdown project's labels on their scale (calibration-data.ts lineage)", async () => {
  const { sameScale } = await import('../../src/work-memory/decision/answers.js');
  const { CALIBRATION } = await import('../../src/work-memory/scoring/calibration-data.js');
  const today = `calibrated@${CALIBRATION.version}`;
  const lineage = CALIBRATION.lineage ?? {};
  const now = lineage[CALIBRATION.version];
  expect(now).toBeDefined();
  // Every earlier version the lineage holds: an answer counts exactly where the model of its past work is the same.
  const earlier = Object.entries(lineage).filter(([v]) => v !== CALIBRATION.version);
  expect(earlier.length).toBeGreaterThan(0);
  for (const [v, models] of earlier) {
    expect(sameScale(`calibrated@${v}`, today, 'docs/lld/done/LLD-001.md')).toBe(models.sameWork === now.sameWork);
    expect(sameScale(`hybrid@${v}`, today, 'docs/lld/done/LLD-001.md')).toBe(models.sameWork === now.sameWork);
    for (const report of ['tracker:1610468', 'github:issue/12'])
      expect(sameScale(`calibrated@${v}`, today, report)).toBe(models.trackerSameWork === now.trackerSameWork);
  }
  // 6db8e8e6 to 42ce4d33 changed the trackers' model only.
  expect(lineage['6db8e8e6'].sameWork).toBe(lineage['42ce4d33'].sameWork);
  expect(lineage['6db8e8e6'].trackerSameWork).not.toBe(lineage['42ce4d33'].trackerSameWork);
  // A version the lineage does not know, another method, or no past work: only the exact scale counts.
  expect(sameScale('calibrated@00000000', today, 'docs/a.md')).toBe(false);
  expect(sameScale('fused', today, 'docs/a.md')).toBe(false);
  // The issue-11 method's first name is its scale still.
  expect(sameScale('standout', 'fused', 'docs/a.md')).toBe(true);
  expect(sameScale('calibrated@6db8e8e6', today)).toBe(false);
  expect(sameScale('calibrated@6db8e8e6', 'fused', 'docs/a.md')).toBe(false);
});

/** A calibration version no refit wrote: see its use below. */
const TRACKERS_REFIT = 'e0e0e0e0';

test('a brief counts only when every line of its latest answer is on today’s scale; org-scope and commit paths read their own model', async () => {
  const { sameScale } = await import('../../src/work-memory/decision/answers.js');
  const { answerResults } = await import('../../src/cli/commands/calibrate/index.js');
  const { CALIBRATION } = await import('../../src/work-memory/scoring/calibration-data.js');
  const today = `calibrated@${CALIBRATION.version}`;
  // Another repository's report (org scope) is a report, its file a file; a commit counts on today's version only.
  const lineage = CALIBRATION.lineage ?? {};
  const now = lineage[CALIBRATION.version];
  // A version before a refit of the trackers' model only (as 6db8e8e6 was to 42ce4d33), so that the two models'
  // answers are told apart whatever the shipped lineage holds; taken out again at the end.
  lineage[TRACKERS_REFIT] = { sameWork: now.sameWork, trackerSameWork: 'f0f0f0f0' };
  expect(sameScale(`calibrated@${TRACKERS_REFIT}`, today, 'acme/other:docs/a.md')).toBe(true);
  expect(sameScale(`calibrated@${TRACKERS_REFIT}`, today, 'acme/other:tracker:5')).toBe(false);
  for (const [v, models] of Object.entries(lineage).filter(([v]) => v !== CALIBRATION.version)) {
    const tracker = models.trackerSameWork === now.trackerSameWork;
    expect(sameScale(`calibrated@${v}`, today, 'acme/other:tracker:5')).toBe(tracker);
    expect(sameScale(`calibrated@${v}`, today, 'acme/other:github:issue/12')).toBe(tracker);
    expect(sameScale(`calibrated@${v}`, today, 'acme/other:docs/a.md')).toBe(models.sameWork === now.sameWork);
    expect(sameScale(`calibrated@${v}`, today, 'git:a1b2c3d')).toBe(false);
  }
  expect(sameScale(today, today, 'git:a1b2c3d')).toBe(true);
  const at = '2026-11-01T00:00:00.000Z';
  const line = (filePath: string, score: number, answer: 'ignore' | 'link', when = at) => ({
    at: when,
    briefSha256: 'a'.repeat(64),
    issueId: null,
    filePath,
    score,
    answer,
    scale: `calibrated@${TRACKERS_REFIT}`,
  });
  // One Ignore of a file and a report: the report's model changed, so the brief is out (not kept at the file's lower score).
  expect(answerResults([line('docs/a.md', 0.86, 'ignore'), line('tracker:9', 0.97, 'ignore')], today)).toEqual([]);
  // An earlier Link on a file replaced by a later Ignore on a report: out too, not the stale Link.
  expect(
    answerResults(
      [line('docs/a.md', 0.9, 'link'), line('tracker:9', 0.97, 'ignore', '2026-11-02T00:00:00.000Z')],
      today,
    ),
  ).toEqual([]);
  // Files only: kept at the top score.
  expect(
    answerResults([line('docs/a.md', 0.86, 'ignore'), line('docs/b.md', 0.91, 'ignore')], today).map((r) => r.top),
  ).toEqual([0.91]);
  delete lineage[TRACKERS_REFIT];
});

test("the project's line is part of a tracker report's scale, and of nothing else's (issue 48)", async () => {
  const { sameScale, answerScale, lineOfMethod } = await import('../../src/work-memory/decision/answers.js');
  const config = { scoring: { method: 'calibrated' } };
  const shipped = answerScale(config);
  const own = answerScale(config, 'ab12cd34');
  expect(own).toBe(`${shipped}/project-line@ab12cd34`);
  expect(lineOfMethod('embedding:Xenova/all-MiniLM-L6-v2@int8+hnsw+project-line@ab12cd34')).toBe('ab12cd34');
  expect(lineOfMethod('embedding:Xenova/all-MiniLM-L6-v2@int8+hnsw')).toBeNull();
  // A report scored by the shipped model is on another scale than one the project's line scored, and two lines differ.
  expect(sameScale(shipped, own, 'tracker:issues.json#12')).toBe(false);
  expect(sameScale(own, own, 'github:issue/12')).toBe(true);
  expect(sameScale(answerScale(config, 'ffffffff'), own, 'tracker:issues.json#12')).toBe(false);
  // A markdown design is scored the same way with or without the line.
  expect(sameScale(shipped, own, 'docs/lld/done/LLD-001.md')).toBe(true);
  expect(sameScale(own, shipped, 'docs/lld/done/LLD-001.md')).toBe(true);
});
