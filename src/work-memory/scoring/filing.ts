/**
 * Where a report stands in its tracker's filing order (issue 29). A bug is
 * reported again while it is current: the same release, the same crash this
 * week. Of two reports that read alike, the one filed nearer the brief is the
 * likelier original; a sibling filed years before is the likelier one to be
 * merely alike. Retrieval studies of duplicate reports say the same (Rakha,
 * Bezemer and Hassan, TSE 2017: time-aware evaluation and candidate windows).
 *
 * A tracker numbers its reports in the order they are filed (GitHub issues,
 * Bugzilla ids, `PROJ-123`), and that order is all this reads: no clock, and
 * no pace, so a busy tracker and a quiet one read the same. A series is the
 * source, the repository and the id's prefix: GitHub's numbers are not a
 * Jira project's, nor another repository's. Two exports whose ids share a
 * prefix (two trackers that number plainly) are one series, and a Bugzilla
 * product prefix (`firefox/`) makes its own, though Bugzilla numbers every
 * product in one series (relations.ts reads them as one): the shipped model
 * does not weigh this feature (docs/scoring.md), and a refit that does
 * should settle both.
 */
import type { WorkOrigin } from '../corpus/types.js';

/** A report's place: its series (tracker, repository, the id's prefix) and its number in it. */
export interface FilingPlace {
  series: string;
  number: number;
}

/** `firefox/1327279`, `PROJ-12`, `42`: the prefix and the number that ends it. */
function parse(ref: string, source: string, repository?: string): FilingPlace | null {
  const m = /^(.{0,200}?)0*(\d{1,15})$/.exec(ref.trim());
  if (!m) return null;
  const number = Number(m[2]);
  return Number.isSafeInteger(number) ? { series: `${repository ?? ''}|${source}:${m[1]}`, number } : null;
}

/** A past report's place; null for work that is not a tracker's report (files, commits, pull requests). */
export function placeOf(origin: WorkOrigin | undefined, repository?: string): FilingPlace | null {
  if (!origin || origin.kind !== 'issue' || origin.source === 'git') return null;
  return parse(origin.ref, origin.source, repository);
}

/** The brief's own place when it is itself a report (`agentos ci` on issue #N, an evaluation's report). */
export function briefPlace(source: 'github' | 'tracker', ref: string): FilingPlace | null {
  return parse(ref, source);
}

/**
 * For each candidate, how near the brief it was filed among the candidates of its series: 1 the
 * nearest, 0 the farthest, null without a place or a second report to compare with. A new brief
 * (no place, or another series) comes after every report: nearer is newer.
 */
export function filedNear(brief: FilingPlace | null, places: Array<FilingPlace | null>): Array<number | null> {
  const distance = (p: FilingPlace) =>
    brief && brief.series === p.series ? Math.abs(brief.number - p.number) : -p.number;
  const bySeries = new Map<string, number[]>();
  places.forEach((p) => {
    if (!p) return;
    const list = bySeries.get(p.series) ?? [];
    list.push(distance(p));
    bySeries.set(p.series, list);
  });
  return places.map((p) => {
    const list = p ? bySeries.get(p.series)! : [];
    if (!p || list.length < 2) return null;
    const d = distance(p);
    let nearer = 0;
    for (const x of list) if (x < d) nearer++;
    return 1 - nearer / (list.length - 1);
  });
}

/** The place of a report known by its source key (`github:issue/12`, `tracker:PROJ-12`): a tracker's closed duplicate asked as a brief. */
export function placeOfKey(key: string): FilingPlace | null {
  const github = /^github:issue\/(\d+)$/.exec(key);
  if (github) return briefPlace('github', github[1]);
  const tracker = /^tracker:(.+)$/.exec(key);
  return tracker ? briefPlace('tracker', tracker[1]) : null;
}
