/** Where a document's other work lies (scoring/neighbours.ts): the trackers' evidence against crowded or generic reports. */
import { nearestOtherWork, NEIGHBOURS } from '../../src/work-memory/scoring/neighbours.js';
import { computeFeatures, NEIGHBOUR_DEFAULT, type CandidateEvidence } from '../../src/work-memory/scoring/features.js';
import { calibratedScore, trackerSameWorkModel } from '../../src/work-memory/scoring/calibrated.js';
import { rescore } from '../../src/work-memory/scoring/rank.js';
import type { WorkOrigin } from '../../src/work-memory/corpus/types.js';
import { basis, InMemoryIndex } from '../helpers/fakes.js';

/** A unit vector at cosine `c` to basis(0), the rest along basis(axis). */
function at(c: number, axis: number): Float32Array {
  const v = basis(0);
  v[0] = c;
  v[axis] = Math.sqrt(1 - c * c);
  return v;
}

const report = (n: string): WorkOrigin => ({ source: 'tracker', kind: 'issue', ref: n, pullRequest: null, closes: [], url: null, files: [], fileCount: 0, date: null, author: null });

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
    .put('sibling.md', at(0.9, 2), { issueId: '2', documentType: 'issue' })
    .put('left-out.md', at(0.95, 3), { issueId: '3', documentType: 'issue' })
    .put('far-1.md', at(0.3, 4), { issueId: '4', documentType: 'issue' })
    .put('far-2.md', at(0.2, 5), { issueId: '5', documentType: 'issue' })
    .put('far-3.md', at(0.1, 6), { issueId: '6', documentType: 'issue' });
  const a = { filePath: 'a.md', issueId: '1', documentType: 'issue' };

  it('gives the nearest other pieces of work, best first, at most NEIGHBOURS: not the document, not its own design, not what the check leaves out', () => {
    const near = nearestOtherWork(index, 'history', a, basis(0), (p) => p === 'left-out.md');
    expect(near).toHaveLength(NEIGHBOURS);
    expect(near[0]).toBeCloseTo(0.9, 5);
    expect(near[1]).toBeCloseTo(0.3, 5);
    expect(near[2]).toBeCloseTo(0.2, 5);
  });

  it('a document the check does not leave out is a neighbour like any other', () => {
    expect(nearestOtherWork(index, 'history', a, basis(0))[0]).toBeCloseTo(0.95, 5);
  });

  it("a long document's own passages do not crowd its neighbours out of the search", () => {
    const long = new MeanIndex();
    // Forty passages of its own, all nearer its mean than any other document.
    long.add({ filePath: 'long.md', issueId: '9', title: 'long', chunks: Array.from({ length: 40 }, () => ({ vector: basis(0) })) });
    long.put('n1.md', at(0.8, 1), { issueId: '10' }).put('n2.md', at(0.7, 2), { issueId: '11' }).put('n3.md', at(0.6, 3), { issueId: '12' });
    const near = nearestOtherWork(long, 'history', { filePath: 'long.md', issueId: '9', documentType: 'issue' }, basis(0));
    expect(near.map((c) => Math.round(c * 100) / 100)).toEqual([0.8, 0.7, 0.6]);
  });

  it("another repository's document (org scope) is nobody's neighbour here: only those fetched for the brief are at hand", () => {
    const org = new MeanIndex().put('a.md', basis(0), { issueId: '1' }).put('acme/other:b.md', at(0.99, 1), { issueId: '2', repository: 'acme/other' }).put('c.md', at(0.5, 2), { issueId: '3' });
    expect(nearestOtherWork(org, 'history', { filePath: 'a.md', issueId: '1', documentType: 'issue' }, basis(0))[0]).toBeCloseTo(0.5, 5);
  });

  it('a document with no issue is its own work only: an issue and a design of another number are its neighbours', () => {
    const near = nearestOtherWork(index, 'history', { filePath: 'a.md', issueId: null, documentType: 'issue' }, basis(0));
    expect(near[0]).toBeCloseTo(0.97, 5);
  });
});

describe('the features', () => {
  const cand = (over: Partial<CandidateEvidence>): CandidateEvidence => ({ cosine: 0.8, cosineMean: 0.75, lexBrief: 0.3, title: 'Crash', terms: undefined, chunks: 1, ...over });
  const q = { briefTitle: 'Crash', briefTokens: ['crash'], corpusDocs: 100, idf: () => 1, df: () => 0.01 };

  it('neighbours is the mean of the nearest three, filled with the default where fewer were found or none were read', () => {
    const [crowd, one, unread] = computeFeatures(q, [cand({ neighbours: [0.9, 0.8, 0.7] }), cand({ neighbours: [0.8] }), cand({})]).map((x) => x.features);
    expect(crowd.neighbours).toBeCloseTo(0.8, 9);
    expect(one.neighbours).toBeCloseTo((0.8 + 2 * NEIGHBOUR_DEFAULT) / 3, 9);
    expect(unread.neighbours).toBe(NEIGHBOUR_DEFAULT);
  });

  it('neighbourGap is how much nearer the brief is to the document as a whole than its nearest other work is', () => {
    const [f] = computeFeatures(q, [cand({ cosineMean: 0.75, neighbours: [0.9, 0.5] })]).map((x) => x.features);
    expect(f.neighbourGap).toBeCloseTo(-0.15, 9);
  });

  it("the shipped trackers' model: the same match scores lower on a report among a crowd of near ones than on one that stands alone", () => {
    const [alone, crowded] = computeFeatures(q, [cand({ neighbours: [0.55, 0.5, 0.45] }), cand({ neighbours: [0.92, 0.9, 0.88] })]).map((x) => x.features);
    const lines = { duplicate: 0.85, related: 0.5 };
    expect(calibratedScore(trackerSameWorkModel(), crowded, lines).score).toBeLessThan(calibratedScore(trackerSameWorkModel(), alone, lines).score);
  });
});

describe('rescore reads neighbours only where the model weighs them', () => {
  const scoring = { method: 'calibrated' as const, lexical: null, briefText: '# Crash on start\n\nbody', briefTitle: 'Crash on start' };
  const searchesFor = (meta: object) => {
    const index = new MeanIndex().put('x.md', at(0.9, 1), { issueId: '1', ...meta }).put('y.md', at(0.7, 2), { issueId: '2', ...meta });
    const before = index.searches.length;
    const out = rescore(index, [basis(0)], 5, 'history', scoring);
    return { extra: index.searches.length - before, out };
  };

  it("a tracker's report whose neighbours were not read (another repository's) reads as the fit's average report", () => {
    const index = new MeanIndex().put('acme/o:x.md', at(0.9, 1), { issueId: '1', origin: report('1'), repository: 'acme/o' }).put('y.md', at(0.7, 2), { issueId: '2', origin: report('2') });
    const [x] = rescore(index, [basis(0)], 5, 'history', scoring).filter((m) => m.filePath === 'acme/o:x.md');
    const model = trackerSameWorkModel();
    expect(x.components?.features?.neighbours).toBe(model.features.neighbours!.mean);
    expect(x.components?.features?.neighbourGap).toBe(model.features.neighbourGap!.mean);
  });

  it('a markdown history: no search beyond retrieval', () => {
    const files = searchesFor({});
    const reports = searchesFor({ origin: report('1') });
    // Retrieval is the same for both; a tracker's reports add one search per candidate read whole.
    expect(reports.extra - files.extra).toBe(2);
    expect(files.out[0].components?.features?.neighbours).toBe(NEIGHBOUR_DEFAULT);
    expect(reports.out[0].components?.features?.neighbours).not.toBe(NEIGHBOUR_DEFAULT);
  });
});
