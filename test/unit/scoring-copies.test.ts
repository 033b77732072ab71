/** Copies among a brief's candidates (scoring/copies.ts): another repository's same text under the same title is one work. */
import { copyLeaders, COPY_COSINE, COPY_COSINE_ANY_TITLE } from '../../src/work-memory/scoring/copies.js';
import { computeFeatures, type QueryEvidence } from '../../src/work-memory/scoring/features.js';

const unit = (...v: number[]) => {
  const n = Math.hypot(...v);
  return Float32Array.from(v.map((x) => x / n));
};

test("another repository's document with the same title and text copies the first; this repository's own are never grouped", () => {
  const a = unit(1, 0, 0);
  const nearA = unit(1, 0.05, 0); // cosine 0.9988 with a
  const other = unit(0, 1, 0);
  const cands = [
    { filePath: 'docs/a.md', title: 'Cache the registry lookups' },
    { filePath: 'copies/1/a.md', title: 'Cache the  registry lookups', repository: 'acme/evil' },
    { filePath: 'copies/2/a.md', title: 'cache the registry lookups', repository: 'acme/evil' },
    { filePath: 'docs/b.md', title: 'Cache the registry lookups' },
    { filePath: 'x.md', title: 'Cache the registry lookups', repository: 'acme/evil' },
    { filePath: 'y.md', title: 'Something else', repository: 'acme/evil' },
  ];
  // y.md: another title, but the very same text (mean cosine 1): a copy all the same.
  expect(copyLeaders(cands, [a, nearA, a, a, other, a])).toEqual([-1, 0, 0, -1, -1, 0]);
  // Without the whole text read, nothing is a copy.
  expect(copyLeaders(cands, [a, null, a, a, null, null])).toEqual([-1, -1, 0, -1, -1, -1]);
});

test("this repository's own document leads its group, whatever the order: a copy under a name that sorts first is still the copy", () => {
  const a = unit(1, 0, 0);
  const cands = [
    { filePath: '0/aaa:docs/a.md', title: 'Cache the registry lookups', repository: '0/aaa' },
    { filePath: 'docs/a.md', title: 'Cache the registry lookups' },
    { filePath: 'acme/b:docs/a.md', title: 'Cache the registry lookups', repository: 'acme/b' },
  ];
  expect(copyLeaders(cands, [a, a, a])).toEqual([1, -1, 1]);
  // Only others' documents: the first in the order given leads.
  expect(copyLeaders([cands[0], cands[2]], [a, a])).toEqual([-1, 0]);
  // The same text under a title changed by a character: still a copy (mean cosine ≥ COPY_COSINE_ANY_TITLE).
  expect(copyLeaders([cands[1], { ...cands[2], title: 'Cache the registry lookupz' }], [a, a])).toEqual([-1, 0]);
  // A different title and a text only near it: not a copy.
  const near = unit(1, Math.tan(Math.acos(COPY_COSINE_ANY_TITLE)) * 1.5, 0);
  expect(copyLeaders([cands[1], { ...cands[2], title: 'Something else' }], [a, near])).toEqual([-1, -1]);
  // Just under the line, not a copy.
  const under = unit(1, Math.tan(Math.acos(COPY_COSINE)) * 1.01, 0);
  expect(copyLeaders([cands[1], cands[2]], [a, under])).toEqual([-1, -1]);
});

test("copies are not the brief's reference twice, nor the original's competitor", () => {
  const q: QueryEvidence = {
    briefTitle: 'Cache lookups',
    briefTokens: ['cache', 'lookups'],
    corpusDocs: 100,
    idf: () => 1,
    df: () => 0.01,
  };
  const base = { cosineMean: 0.8, lexBrief: 0.5, title: 'Cache lookups', terms: undefined, chunks: 1 };
  const original = { ...base, path: 'docs/a.md', work: 'copy:docs/a.md', cosine: 0.9 };
  const others = [0.6, 0.55, 0.5, 0.45].map((cosine, i) => ({ ...base, path: `o${i}.md`, work: null, cosine }));
  const copies = Array.from({ length: 30 }, (_, i) => ({
    ...base,
    path: `copies/${i}/a.md`,
    work: 'copy:docs/a.md',
    copy: true,
    cosine: 0.9,
  }));
  const alone = computeFeatures(q, [original, ...others])[0].features;
  const flooded = computeFeatures(q, [original, ...copies, ...others])[0].features;
  expect(flooded.gap).toBeCloseTo(alone.gap, 10);
  expect(flooded.standout).toBeCloseTo(alone.standout, 10);
  // Counted as competitors (as before issue 47), the copies took both away.
  const counted = computeFeatures(q, [
    original,
    ...copies.map((c, i) => ({ ...c, copy: false, work: `w${i}` })),
    ...others,
  ])[0].features;
  expect(counted.gap).toBeLessThan(alone.gap);
  expect(counted.standout).toBeLessThan(alone.standout);
});
