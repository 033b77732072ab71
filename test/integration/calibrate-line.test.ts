// SLOW (spawns the built CLI; no model): `agentos calibrate` and the project's own line (issue 48).
// The labels are an evaluation of the project's own history as `agentos eval --save` writes it:
// synthetic reports whose duplicates were filed next to their originals (what the shipped model
// never weighs). Too few labels: said, nothing changed. Enough: the figures before and after,
// out of sample, and the line written only on --write.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { FEATURE_NAMES } from '../../src/work-memory/scoring/features.js';
import { readProjectLine } from '../../src/work-memory/scoring/project-line.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'agentos-calibrate-'));
  await mkdir(path.join(root, '.agentos'));
  await writeFile(path.join(root, '.agentos', 'config.yaml'), 'corpus:\n  history: ["docs/**/*.md"]\n');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A saved evaluation of this project's history: `duplicates` reports with their original among 5 candidates, `others` with nothing to find. */
async function saved(duplicates: number, others: number): Promise<string> {
  let s = 12345;
  const r = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const cand = (path: string, label: 0 | 1) => {
    const f = Object.fromEntries(FEATURE_NAMES.map((n) => [n, 0])) as Record<string, number>;
    f.cosine = f.cosineMean = 0.6 + 0.2 * r();
    f.lexBrief = 0.2 + 0.1 * r();
    f.gap = 0.1 * (r() - 0.5);
    f.standout = 0.1 * r();
    f.filedNear = label ? 0.9 + 0.1 * r() : 0.6 * r();
    return { path, label, score: 0.5, features: f };
  };
  const results = [
    ...Array.from({ length: duplicates }, (_, i) => ({
      id: `tracker:issues.json#d${i}`,
      target: `tracker:issues.json#o${i}`,
      top: 0.5,
      topPath: null,
      targetRank: 1,
      targetScore: 0.5,
      ms: 0,
      history: [
        cand(`tracker:issues.json#o${i}`, 1),
        ...[1, 2, 3, 4].map((j) => cand(`tracker:issues.json#x${i}-${j}`, 0)),
      ],
    })),
    ...Array.from({ length: others }, (_, i) => ({
      id: `tracker:issues.json#n${i}`,
      target: null,
      top: 0.3,
      topPath: null,
      targetRank: null,
      targetScore: null,
      ms: 0,
      history: [1, 2, 3, 4, 5].map((j) => cand(`tracker:issues.json#y${i}-${j}`, 0)),
    })),
  ];
  const file = path.join(root, 'history-eval.json');
  await writeFile(file, JSON.stringify({ report: { source: 'history' }, results }));
  return file;
}

const config = () => readFileSync(path.join(root, '.agentos', 'config.yaml'), 'utf8');

test('too few labels: calibrate says how many it has and needs, and --write changes nothing', async () => {
  const file = await saved(8, 15);
  const before = config();
  const r = await runCli(['-C', root, 'calibrate', '--results', file, '--write'], { cwd: root });
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(
    'calibrate: 8 labelled same-work briefs and 15 with nothing the same; the lines move at 10 and 20',
  );
  const shown = await runCli(['-C', root, 'calibrate', '--results', file], { cwd: root });
  expect(shown.stdout).toContain(
    'too few labels: 8 labelled duplicates and 15 reports with nothing to find; a refit needs 30 and 30',
  );
  expect(existsSync(path.join(root, '.agentos', 'calibration.json'))).toBe(false);
  expect(config()).toBe(before);
});

test("enough labels: the figures before and after, out of sample; the project's line written only on --write", async () => {
  const file = await saved(60, 60);
  const shown = await runCli(['-C', root, 'calibrate', '--results', file], { cwd: root });
  expect(shown.code).toBe(0);
  expect(shown.stdout).toMatch(/this project: 60 labelled duplicates, 60 reports with nothing to find/);
  expect(shown.stdout).toMatch(/^ {4}shipped +0\.\d{3} /m);
  expect(shown.stdout).toMatch(/^ {4}project +[01]\.\d{3} /m);
  expect(shown.stdout).toContain("the project's line beats the shipped model out of sample");
  expect(existsSync(path.join(root, '.agentos', 'calibration.json'))).toBe(false);

  const before = config();
  const wrote = await runCli(['-C', root, 'calibrate', '--results', file, '--write', '--json'], { cwd: root });
  expect(wrote.code).toBe(0);
  const out = JSON.parse(wrote.stdout) as {
    wroteLine: string;
    projectLine: Array<{ earned: boolean; shipped: { auc: number }; refit: { auc: number } }>;
  };
  expect(out.wroteLine).toBe(path.join(root, '.agentos', 'calibration.json'));
  expect(out.projectLine[0].earned).toBe(true);
  expect(out.projectLine[0].refit.auc).toBeGreaterThan(out.projectLine[0].shipped.auc);
  const { line, problem } = readProjectLine(root);
  expect(problem).toBeNull();
  expect(line!.labels).toEqual({ duplicates: 60, others: 60 });
  expect(line!.model.features.filedNear!.weight).toBeGreaterThan(0);
  // The thresholds stay: the line was placed at them.
  expect(config()).toBe(before);
  // status says which line scores a tracker's reports, and what earned it.
  const status = await runCli(['-C', root, 'status'], { cwd: root });
  expect(status.stdout).toContain(`Line: the project's own for tracker reports (project-line@${line!.id})`);
  expect(status.stdout).toMatch(/^ {2}out of sample, project \(shipped\): AUC 1\.000 \(0\.\d{3}\)$/m);
  expect(
    status.stdout
      .split('\n')
      .filter(
        (l) =>
          l.startsWith('Line:') ||
          l.startsWith('  out of sample') ||
          l.startsWith('  original first') ||
          l.startsWith('  fitted'),
      )
      .every((l) => l.length <= 80),
  ).toBe(true);
});
