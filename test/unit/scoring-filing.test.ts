/** A report's place in its tracker's filing order (issue 29, scoring/filing.ts) and the filedNear feature. */
import { parseBrief } from '../../src/work-memory/check/parsed-brief.js';
import { briefPlace, filedNear, placeOf, placeOfKey, type FilingPlace } from '../../src/work-memory/scoring/filing.js';
import { computeFeatures, FILED_NEAR_UNKNOWN, type CandidateEvidence } from '../../src/work-memory/scoring/features.js';
import type { WorkOrigin } from '../../src/work-memory/corpus/types.js';
import { rescore } from '../../src/work-memory/scoring/rank.js';
import type { HistoryMatch } from '../../src/work-memory/scoring/match.js';
import { trackerSameWorkModel } from '../../src/work-memory/scoring/calibrated.js';
import { scoringFor } from '../../src/work-memory/check/run.js';
import { DEFAULT_CONFIG } from '../../src/shared/config/schema.js';
import { basis, InMemoryIndex } from '../helpers/fakes.js';

const origin = (source: WorkOrigin['source'], kind: WorkOrigin['kind'], ref: string): WorkOrigin => ({
  source,
  kind,
  ref,
  pullRequest: null,
  closes: [],
  url: null,
  files: [],
  fileCount: 0,
  date: null,
  author: null,
});

const bugzilla = (n: number): FilingPlace => briefPlace('tracker', `firefox/${n}`)!;

describe('a report’s place', () => {
  it('is its number in the series its id names: tracker, product prefix, repository', () => {
    expect(placeOf(origin('tracker', 'issue', 'firefox/1327279'))).toEqual({
      series: '|tracker:firefox/',
      number: 1327279,
    });
    expect(placeOf(origin('tracker', 'issue', 'PROJ-0042'))).toEqual({ series: '|tracker:PROJ-', number: 42 });
    expect(placeOf(origin('github', 'issue', '17'))).toEqual({ series: '|github:', number: 17 });
    expect(placeOf(origin('github', 'issue', '17'), 'acme/api')).toEqual({ series: 'acme/api|github:', number: 17 });
  });

  it('is none for work that is not a report, or an id without a number', () => {
    expect(placeOf(origin('git', 'commit', 'abc123'))).toBeNull();
    expect(placeOf(origin('github', 'pull-request', '18'))).toBeNull();
    expect(placeOf(origin('tracker', 'issue', 'crash-on-start'))).toBeNull();
    expect(placeOf(undefined)).toBeNull();
  });

  it('reads a tracker duplicate’s source key as the same series as the reports', () => {
    expect(placeOfKey('github:issue/12')).toEqual(placeOf(origin('github', 'issue', '12')));
    expect(placeOfKey('tracker:firefox/99')).toEqual(placeOf(origin('tracker', 'issue', 'firefox/99')));
    expect(placeOfKey('git:abc123')).toBeNull();
  });
});

describe('filedNear', () => {
  it('ranks reports by distance from a brief that has a place: either side counts', () => {
    // Brief 1000; candidates at 990 (10 away), 1500 (500), 10 (990), 1003 (3).
    const near = filedNear(bugzilla(1000), [bugzilla(990), bugzilla(1500), bugzilla(10), bugzilla(1003)]);
    expect(near.map((x) => x!.toFixed(3))).toEqual(['0.667', '0.333', '0.000', '1.000']);
  });

  it('takes a new brief as filed after every report: the newest is the nearest', () => {
    expect(filedNear(null, [bugzilla(5), bugzilla(9), bugzilla(7)])).toEqual([0, 1, 0.5]);
    // A brief of another series is new to this one.
    expect(filedNear(briefPlace('github', '3'), [bugzilla(5), bugzilla(9)])).toEqual([0, 1]);
  });

  it('never compares numbers of different series, and says nothing of a report alone in its series or with no place', () => {
    const gh = (n: number) => briefPlace('github', String(n))!;
    const near = filedNear(null, [
      bugzilla(100),
      gh(1),
      bugzilla(200),
      null,
      gh(50),
      { series: 'other|tracker:', number: 7 },
    ]);
    expect(near).toEqual([0, 0, 1, null, 1, null]);
  });
});

describe('the filedNear feature', () => {
  const cand = (n: number | null): CandidateEvidence => ({
    cosine: 0.7,
    cosineMean: 0.65,
    lexBrief: 0.3,
    title: 'Crash on start',
    terms: new Map([['crash', 1]]),
    chunks: 1,
    filed: n === null ? null : bugzilla(n),
  });
  const query = { briefTitle: 'Crash on start', briefTokens: ['crash'], corpusDocs: 50, idf: () => 1, df: () => 0.1 };

  it('is computed per candidate from the brief’s place, the middle where there is none', () => {
    const out = computeFeatures({ ...query, briefFiled: bugzilla(300) }, [cand(100), cand(290), cand(null)]);
    expect(out.map((o) => o.features.filedNear)).toEqual([0, 1, FILED_NEAR_UNKNOWN]);
  });

  it('with no brief place takes the brief as new', () => {
    const out = computeFeatures(query, [cand(100), cand(290)]);
    expect(out.map((o) => o.features.filedNear)).toEqual([0, 1]);
  });
});

describe('the scorer reads each report’s place and the brief’s (rank.ts, check/run.ts scoringFor)', () => {
  const gh = (n: string): WorkOrigin => origin('github', 'issue', n);
  /** Unit vector at cosine c to basis(0), the rest along its own axis: equally close, apart from each other. */
  const at = (c: number, axis: number) => {
    const v = basis(0);
    v[0] = c;
    v[axis] = Math.sqrt(1 - c * c);
    return v;
  };
  const index = () => {
    const i = new InMemoryIndex();
    i.add({
      filePath: 'github:issue/3',
      title: 'Crash on start',
      issueId: '3',
      origin: gh('3'),
      chunks: [{ vector: at(0.8, 1) }],
    });
    i.add({
      filePath: 'github:issue/40',
      title: 'Crash on start',
      issueId: '40',
      origin: gh('40'),
      chunks: [{ vector: at(0.8, 2) }],
    });
    i.add({
      filePath: 'tracker:PROJ-9',
      title: 'Crash on start',
      issueId: 'PROJ-9',
      origin: origin('tracker', 'issue', 'PROJ-9'),
      chunks: [{ vector: at(0.8, 3) }],
    });
    i.add({
      filePath: 'docs/done/7-crash.md',
      title: 'Crash on start',
      issueId: '7',
      chunks: [{ vector: at(0.8, 4) }],
    });
    return i;
  };
  const text = '# Crash on start\n\nThe app crashes on start.';
  const check = (ownIssue?: string) => {
    const s = {
      ...scoringFor(structuredClone(DEFAULT_CONFIG), parseBrief(text, { ownIssue }), { lexical: null, model: true }),
      method: 'calibrated' as const,
    };
    return new Map(rescore(index(), [basis(0)], 5, 'history', s).map((m) => [m.filePath, m]));
  };
  const near = (m: Map<string, HistoryMatch>, p: string) => m.get(p)!.components!.features!.filedNear;

  it('a new brief: the newer of two reports of one tracker is the nearer', () => {
    const m = check();
    expect([near(m, 'github:issue/40'), near(m, 'github:issue/3')]).toEqual([1, 0]);
  });

  it('`agentos ci` on issue #5: #3 was filed nearer it than #40', () => {
    const m = check('5');
    expect([near(m, 'github:issue/3'), near(m, 'github:issue/40')]).toEqual([1, 0]);
  });

  it('a report alone in its tracker, and a file, have no place to compare', () => {
    const m = check();
    expect(near(m, 'tracker:PROJ-9')).toBe(FILED_NEAR_UNKNOWN);
    expect(near(m, 'docs/done/7-crash.md')).toBe(FILED_NEAR_UNKNOWN);
  });

  it('is measured, not weighed: the shipped trackers’ model does not read it (docs/scoring.md)', () => {
    expect(trackerSameWorkModel().features.filedNear).toBeUndefined();
    const m = check();
    expect(m.get('github:issue/40')!.score).toBe(m.get('github:issue/3')!.score);
  });
});

describe('the brief’s own place (check/run.ts scoringFor)', () => {
  const place = (text: string, ownIssue?: string) =>
    scoringFor(structuredClone(DEFAULT_CONFIG), parseBrief(text, { ownIssue }), { lexical: null, model: true })
      .briefFiled ?? null;

  it('is the issue `agentos ci` was told, or the one the brief states, in GitHub’s series', () => {
    expect(place('# Crash on start', '12')).toEqual(briefPlace('github', '12'));
    expect(place('---\nissue: 19\n---\n# Crash on start\n')).toEqual(briefPlace('github', '19'));
    expect(place('# Issue #7: Crash on start\n')).toEqual(briefPlace('github', '7'));
  });

  it('is none for a brief that states no issue, or names another as related', () => {
    expect(place('# Crash on start\n\nFollow-up to #7.\n')).toBeNull();
  });
});
