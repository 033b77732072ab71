/**
 * The corpus-size sweep (issue 20, part 2): the same briefs asked against
 * projects of 5 to 3,000 documents sampled from one labelled set, so that
 * false alerts and related-noise can be compared across project sizes. A
 * brief whose past work was not sampled has nothing to find at that size.
 */
import { summarize } from './metrics.js';
import { runSet, type CaseResult, type SetRunOptions } from './run-set.js';
import { restrictTo, sampleById, type EvalProject } from './sets.js';

export const DEFAULT_SIZES = [5, 10, 30, 100, 300, 1000, 3000];

export interface SweepRow {
  size: number;
  /** Documents actually indexed (the set may hold fewer than asked). */
  documents: number;
  duplicates: number;
  nonDuplicates: number;
  /** Share of briefs with nothing to find that raise an alert. */
  falseAlerts: number;
  /** Share of briefs with nothing to find reaching "related" or above. */
  relatedNoise: number;
  /** Share of duplicates alerted on the right work. */
  recall: number;
}

/**
 * One pool from every project of the set, as a monorepo holds them: each project's history in
 * its own folder, in its own layout (ids prefixed so that trackers' reports cannot collide).
 * Until issue 29 the pool renamed every file `docs/audit/done/<k>-doc/001-issue.md`, which made
 * each document its own piece of work: an issue's own design became its nearest competitor
 * (the `gap` feature), and pooled alert recall read 63% where each project alone read 89.5%.
 */
export function pooled(projects: EvalProject[]): EvalProject {
  // `p1/`, not the project's name: a tracker's report keeps an id its export reader accepts (`[\w.#/-]`, at
  // most 64); with `firefox:` every report was skipped and the trackers' sweep read 0 at every size (until 2026-11-27).
  const pre = (i: number, id: string) => `p${i + 1}/${id}`;
  return {
    name: 'pool',
    docs: projects.flatMap((p, i) =>
      p.docs.map((d) => ({ ...d, id: pre(i, d.id), relPath: `projects/${i + 1}/${d.relPath}` })),
    ),
    cases: projects.flatMap((p, i) =>
      p.cases
        .filter((c) => c.kind !== 'design_cites_standard')
        .map((c) => ({
          ...c,
          id: pre(i, c.id),
          expected: c.expected.map((x) => pre(i, x)),
          exclude: c.exclude.map((x) => pre(i, x)),
          governing: [],
          related: c.related.map((x) => pre(i, x)),
          // A report's place is read from its id: the pool's prefix is part of its series, as it is of its documents'.
          ...(c.reportId !== undefined ? { reportId: pre(i, c.reportId) } : {}),
        })),
    ),
  };
}

export async function runSweep(
  projects: EvalProject[],
  sizes: number[],
  o: Omit<SetRunOptions, 'projects' | 'crossStandards'>,
): Promise<{ rows: SweepRow[]; results: Record<number, CaseResult[]> }> {
  const pool = pooled(projects);
  const rows: SweepRow[] = [];
  const results: Record<number, CaseResult[]> = {};
  for (const size of sizes) {
    const docs = sampleById(pool.docs, size, 'sweep');
    const cut = restrictTo(pool, docs, `sweep-${size}`);
    o.onProgress?.(`sweep: ${docs.length} documents`);
    const run = await runSet({ ...o, projects: [cut], work: o.work });
    const history = run.results.filter((r) => !/_adr$/.test(r.kind));
    const m = summarize(history, o.config.thresholds);
    rows.push({
      size,
      documents: docs.length,
      duplicates: m.queries.duplicates,
      nonDuplicates: m.queries.nonDuplicates,
      falseAlerts: m.queries.nonDuplicates
        ? history.filter((r) => r.target === null && r.top >= o.config.thresholds.duplicate).length /
          m.queries.nonDuplicates
        : 0,
      relatedNoise: m.related.nonDuplicatesReaching,
      recall: m.alert.recall,
    });
    results[size] = run.results;
  }
  return { rows, results };
}
