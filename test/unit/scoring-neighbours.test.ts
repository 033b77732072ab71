/** Where a report's nearest other work lies (scoring/neighbours.ts): the trackers' evidence against a crowded report. */
import { parseBrief } from '../../src/work-memory/check/parsed-brief.js';
import { nearestOtherWork } from '../../src/work-memory/scoring/neighbours.js';
import {
  computeFeatures,
  NEIGHBOUR_REFERENCE_MIN,
  type CandidateEvidence,
} from '../../src/work-memory/scoring/features.js';
import { calibratedScore, sameWorkModel, trackerSameWorkModel } from '../../src/work-memory/scoring/calibrated.js';
import { rescore } from '../../src/work-memory/scoring/rank.js';
import type { WorkOrigin } from '../../src/work-memory/corpus/types.js';
import { scoringFor } from '../../src/work-memory/check/run.js';
import { DEFAULT_CONFIG } from '../../src/shared/config/schema.js';
import { basis, InMemoryIndex } from '../helpers/fakes.js';

/** A unit vector at cosine `c` to basis(0), the rest along basis(axis). */
function at(c: number, axis: number): Float32Array {
  const v = basis(0);
  v[0] = c;
  v[axis] = Math.sqrt(1 - c * c);
  return v;
}

const report = (n: string): WorkOrigin => ({
  source: 'tracker',
  kind: 'issue',
  ref: n,
  pullRequest: null,
  closes: [],
  url: null,
  files: [],
  fileCount: 0,
  date: null,
  author: null,
});

/** An index whose documents have a whole-text vector (the fake's first chunk), as the HNSW index's docMean gives. */
class MeanIndex extends InMemoryIndex {
  private readonly means = new Map<string, Float32Array>();
  put(filePath: string, vector: Float32Array, meta: object = {}): this {
    this.add({ filePath, title: filePath, chunks: [{ vector }], ...meta });
    this.means.set(filePath, vector);
    return this;
  }
  docMean(filePath: string): Float32Array | null {
    return this.means.get(filePath) ?? null;
  }
}

describe('nearestOtherWork', () => {
  const index = new MeanIndex()
    .put('a.md', basis(0), { issueId: '1', documentType: 'issue' })
    .put('a-design.md', at(0.97, 1), { issueId: '1', documentType: 'lld' })
    .put('left-out.md', at(0.95, 3), { issueId: '3', documentType: 'issue' })
    .put('sibling.md', at(0.9, 2), { issueId: '2', documentType: 'issue' })
    .put('far.md', at(0.3, 4), { issueId: '4', documentType: 'issue' });
  const a = { filePath: 'a.md', issueId: '1', documentType: 'issue' };

  it('is the nearest other piece of work: not the document, not its own design, not what the check leaves out', () => {
    expect(nearestOtherWork(index, 'history', a, basis(0), (p) => p === 'left-out.md')).toBeCloseTo(0.9, 5);
    expect(nearestOtherWork(index, 'history', a, basis(0))).toBeCloseTo(0.95, 5);
  });

  it('a document with no issue is its own work only: a design of another number is its neighbour', () => {
    expect(
      nearestOtherWork(index, 'history', { filePath: 'a.md', issueId: null, documentType: 'issue' }, basis(0)),
    ).toBeCloseTo(0.97, 5);
  });

  it('null when the index holds no other work', () => {
    const alone = new MeanIndex().put('a.md', basis(0), { issueId: '1' }).put('a-2.md', at(0.5, 1), { issueId: '1' });
    expect(nearestOtherWork(alone, 'history', a, basis(0))).toBeNull();
  });

  it("a long document's own passages do not crowd its neighbour out of the search", () => {
    const long = new MeanIndex();
    long.add({
      filePath: 'long.md',
      issueId: '9',
      title: 'long',
      chunks: Array.from({ length: 40 }, () => ({ vector: basis(0) })),
    });
    long.put('n1.md', at(0.8, 1), { issueId: '10' });
    expect(
      nearestOtherWork(long, 'history', { filePath: 'long.md', issueId: '9', documentType: 'issue' }, basis(0)),
    ).toBeCloseTo(0.8, 5);
  });

  it('widens the search when the first passages are all its own work or left out', () => {
    const crowd = new MeanIndex().put('a.md', basis(0), { issueId: '1' });
    // Twelve documents the check leaves out, all nearer than the real neighbour: more than the first pass asks for.
    for (let i = 0; i < 12; i++) crowd.put(`out-${i}.md`, at(0.95 - i * 0.001, 2 + i), { issueId: String(100 + i) });
    crowd.put('real.md', at(0.7, 20), { issueId: '2' });
    const before = crowd.searches.length;
    expect(nearestOtherWork(crowd, 'history', a, basis(0), (p) => p.startsWith('out-'))).toBeCloseTo(0.7, 5);
    expect(crowd.searches.length - before).toBeGreaterThan(1);
  });

  it("another repository's document (org scope) is nobody's neighbour here: only those fetched for the brief are at hand", () => {
    const org = new MeanIndex()
      .put('a.md', basis(0), { issueId: '1' })
      .put('acme/other:b.md', at(0.99, 1), { issueId: '2', repository: 'acme/other' })
      .put('c.md', at(0.5, 2), { issueId: '3' });
    expect(nearestOtherWork(org, 'history', a, basis(0))).toBeCloseTo(0.5, 5);
  });
});

describe('neighbourGap', () => {
  const cand = (over: Partial<CandidateEvidence>): CandidateEvidence => ({
    cosine: 0.8,
    cosineMean: 0.75,
    lexBrief: 0.3,
    title: 'Crash',
    terms: undefined,
    chunks: 1,
    ...over,
  });
  const q = { briefTitle: 'Crash', briefTokens: ['crash'], corpusDocs: 100, idf: () => 1, df: () => 0.01 };
  const gap = (c: Partial<CandidateEvidence>) => computeFeatures(q, [cand(c)])[0].features.neighbourGap;

  it('is how much nearer the brief is to the document than its nearest other work is', () => {
    expect(gap({ cosineMean: 0.75, nearestOther: 0.9 })).toBeCloseTo(-0.15, 9);
  });

  it('never measures from below the reference: in a small project every neighbour is far, and that is not standing out', () => {
    expect(gap({ cosineMean: 0.75, nearestOther: 0.2 })).toBeCloseTo(0.75 - NEIGHBOUR_REFERENCE_MIN, 9);
    expect(gap({ cosineMean: 0.75, nearestOther: null })).toBeCloseTo(0.75 - NEIGHBOUR_REFERENCE_MIN, 9);
    expect(gap({ cosineMean: 0.75, nearestOther: 0.2 })).toBe(
      gap({ cosineMean: 0.75, nearestOther: NEIGHBOUR_REFERENCE_MIN }),
    );
  });

  it("the shipped trackers' model: the same match scores lower on a report with a near neighbour", () => {
    const [alone, crowded] = computeFeatures(q, [cand({ nearestOther: 0.5 }), cand({ nearestOther: 0.92 })]).map(
      (x) => x.features,
    );
    const lines = { duplicate: 0.85, related: 0.5 };
    expect(calibratedScore(trackerSameWorkModel(), crowded, lines).score).toBeLessThan(
      calibratedScore(trackerSameWorkModel(), alone, lines).score,
    );
  });
});

describe('rescore reads the nearest other work only where the model weighs it', () => {
  const scoring = {
    method: 'calibrated' as const,
    lexical: null,
    briefText: '# Crash on start\n\nbody',
    briefTitle: 'Crash on start',
  };
  const searchesFor = (meta: object) => {
    const index = new MeanIndex()
      .put('x.md', at(0.9, 1), { issueId: '1', ...meta })
      .put('y.md', at(0.5, 2), { issueId: '2', ...meta });
    const before = index.searches.length;
    const out = rescore(index, [basis(0)], 5, 'history', scoring);
    return { extra: index.searches.length - before, out };
  };

  it("a tracker's reports: one search per candidate read whole; a markdown history: none beyond retrieval", () => {
    const files = searchesFor({});
    const reports = searchesFor({ origin: report('1') });
    expect(reports.extra - files.extra).toBe(2);
    // y.md at cosine 0.9·0.5 from x.md's whole text: under the reference, so x.md counts as standing alone.
    const x = reports.out.find((m) => m.filePath === 'x.md')!;
    expect(x.components?.features?.neighbourGap).toBeCloseTo(
      x.components!.features!.cosineMean - NEIGHBOUR_REFERENCE_MIN,
      9,
    );
  });

  it("a report whose nearest other was not read (another repository's) reads as the fit's average report", () => {
    const index = new MeanIndex()
      .put('acme/o:x.md', at(0.9, 1), { issueId: '1', origin: report('1'), repository: 'acme/o' })
      .put('y.md', at(0.7, 2), { issueId: '2', origin: report('2') });
    const x = rescore(index, [basis(0)], 5, 'history', scoring).find((m) => m.filePath === 'acme/o:x.md')!;
    expect(x.components?.features?.neighbourGap).toBe(trackerSameWorkModel().features.neighbourGap!.mean);
  });
});

describe("`agentos ci` leaves the issue's own record out of its check (check/run.ts scoringFor)", () => {
  const gh = (n: string): WorkOrigin => ({ ...report(n), source: 'github' });
  const build = (withSelf: boolean) => {
    const index = new MeanIndex();
    // Issue #7, edited after the tracker export picked it up: its own record is the nearest of all.
    if (withSelf) index.put('github:issue/7', at(0.99, 1), { issueId: '7', origin: gh('7') });
    return index
      .put('github:issue/3', at(0.9, 2), { issueId: '3', origin: gh('3') })
      .put('github:issue/4', at(0.5, 3), { issueId: '4', origin: gh('4') });
  };
  const text = '# Crash on start\n\nThe app crashes on start.';
  const scoring = (ownIssue?: string) => ({
    ...scoringFor(structuredClone(DEFAULT_CONFIG), parseBrief(text, { ownIssue }), { lexical: null, model: true }),
    method: 'calibrated' as const,
  });

  it('scores the original as if the record were not in the index: neither the best other candidate nor its nearest other report', () => {
    const checked = rescore(build(true), [basis(0)], 5, 'history', scoring('7'));
    const absent = rescore(build(false), [basis(0)], 5, 'history', scoring('7'));
    expect(checked.map((m) => m.filePath)).toEqual(['github:issue/3', 'github:issue/4']);
    // Only the count of documents in the index knows the record is there (the trackers' model does not read it).
    expect({ ...checked[0].components?.features, corpusDocs: 0 }).toEqual({
      ...absent[0].components?.features,
      corpusDocs: 0,
    });
    expect(checked[0].score).toBe(absent[0].score);
    // Left in (any other brief), the record is a candidate and the original is scored against it.
    const other = rescore(build(true), [basis(0)], 5, 'history', scoring());
    expect(other.map((m) => m.filePath)).toContain('github:issue/7');
    expect(other.find((m) => m.filePath === 'github:issue/3')!.components!.features!.gap).toBeLessThan(0);
  });

  it("another tracker's report 7 is not GitHub's #7", () => {
    const index = new MeanIndex()
      .put('tracker:7', at(0.99, 1), { issueId: '7', origin: report('7') })
      .put('github:issue/3', at(0.9, 2), { issueId: '3', origin: gh('3') });
    expect(rescore(index, [basis(0)], 5, 'history', scoring('7')).map((m) => m.filePath)).toContain('tracker:7');
  });
});

describe("each candidate's whole text is read down to its own model's related floor", () => {
  it("a report and a markdown file at the same passage cosine, between the two models' floors: only the one whose floor is lower is read whole", () => {
    const md = sameWorkModel().floors.related;
    // Two different floors to tell them apart (a project's own line is a tracker model of its own): 0.034 apart, as
    // the shipped floors were at calibration 42ce4d33.
    const shipped = trackerSameWorkModel();
    const trackerModel = { ...shipped, floors: { ...shipped.floors, related: md - 0.034 } };
    const trk = trackerModel.floors.related;
    const c = (md + trk) / 2 - 0.05; // under one floor's margin, over the other's
    const read: string[] = [];
    class Recording extends MeanIndex {
      override docMean(filePath: string): Float32Array | null {
        read.push(filePath);
        return super.docMean(filePath);
      }
    }
    const index = new Recording()
      .put('docs/done/9-x.md', at(c, 1), { issueId: '9' })
      .put('tracker:5', at(c, 2), { issueId: '5', origin: report('5') });
    rescore(index, [basis(0)], 5, 'history', {
      method: 'calibrated',
      lexical: null,
      briefText: '# Crash\n\nbody',
      briefTitle: 'Crash',
      trackerModel,
    });
    expect(read.filter((p) => p === 'docs/done/9-x.md' || p === 'tracker:5')).toEqual([
      trk < md ? 'tracker:5' : 'docs/done/9-x.md',
    ]);
  });
});
