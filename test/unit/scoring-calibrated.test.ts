/** The calibrated same-work score (issue 20): features, the model and its floors, explanations. */
import { parseBrief } from '../../src/work-memory/check/parsed-brief.js';
import {
  calibratedScore,
  commitSameWorkModel,
  logit,
  sigmoid,
  whyInWords,
  type LogisticModel,
} from '../../src/work-memory/scoring/calibrated.js';
import { CALIBRATION } from '../../src/work-memory/scoring/calibration-data.js';
import {
  computeFeatures,
  dice,
  FEATURE_NAMES,
  GAP_REFERENCE_MIN,
  PRIOR_REFERENCE_COSINE,
  titleWords,
  type CandidateEvidence,
  type Features,
  type QueryEvidence,
} from '../../src/work-memory/scoring/features.js';
import { informativeChunks, rescore } from '../../src/work-memory/scoring/rank.js';
import type { CorpusType } from '../../src/work-memory/corpus/types.js';
import { basis, indexWithScores } from '../helpers/fakes.js';
import { detectTemplates } from '../../src/work-memory/lexical/templates.js';

const query = (over: Partial<QueryEvidence> = {}): QueryEvidence => ({
  briefTitle: 'Cache Docker layers in CI',
  briefTokens: ['cache', 'docker', 'layers', 'cache-from', 'buildkit'],
  corpusDocs: 100,
  idf: () => 2,
  df: () => 0.01,
  ...over,
});

const cand = (cosine: number, over: Partial<CandidateEvidence> = {}): CandidateEvidence => ({
  cosine,
  cosineMean: cosine - 0.05,
  lexBrief: 0.4,
  title: 'Docker layer caching',
  terms: new Map([
    ['docker', 1],
    ['cache-from', 2],
    ['registry', 1],
  ]),
  chunks: 4,
  ...over,
});

const features = (over: Partial<Features> = {}): Features => ({
  cosine: 0.8,
  cosineMean: 0.75,
  lexBrief: 0.5,
  lexDoc: 0.3,
  title: 0.5,
  titleCover: 0.5,
  identifiers: 1,
  standout: 0.3,
  gap: 0.2,
  corpusDocs: 2,
  briefTerms: 2,
  docChunks: 2,
  rareCover: 0.5,
  docRareCover: 0.4,
  namedRelated: 0,
  sameIssue: 0,
  neighbourGap: 0,
  filedNear: 0.5,
  ...over,
});

describe('features', () => {
  test('every feature is computed, with the names the model is keyed by', () => {
    const [f] = computeFeatures(query(), [cand(0.8)]);
    expect(Object.keys(f.features).sort()).toEqual([...FEATURE_NAMES].sort());
    expect(f.features.corpusDocs).toBeCloseTo(2);
    expect(f.features.briefTerms).toBeCloseTo(Math.log10(5));
    expect(f.features.docChunks).toBeCloseTo(2);
  });

  test('the gap is measured from the best other candidate, never from below GAP_REFERENCE_MIN (a tiny project)', () => {
    const big = computeFeatures(query(), [cand(0.9), cand(0.7), cand(0.65), cand(0.6), cand(0.55)]);
    expect(big[0].features.gap).toBeCloseTo(0.2);
    expect(big[1].features.gap).toBeCloseTo(-0.2); // another candidate scores higher
    // Two documents, the other unrelated (0.1): the gap is not 0.5, it is 0.6 - 0.5.
    const tiny = computeFeatures(query(), [cand(0.6), cand(0.1)]);
    expect(tiny[0].features.gap).toBeCloseTo(0.6 - GAP_REFERENCE_MIN);
    // Fewer than four candidates: the standout reference is the prior, not the 4th best.
    expect(tiny[0].features.standout).toBeCloseTo(0.6 - PRIOR_REFERENCE_COSINE);
    expect(big[0].features.standout).toBeCloseTo(0.9 - 0.6);
  });

  test('identifiers count only names rare in the corpus and shared by both texts', () => {
    const rare = computeFeatures(query(), [cand(0.8)]);
    expect(rare[0].sharedIdentifiers).toEqual(['cache-from']);
    expect(rare[0].features.identifiers).toBe(1);
    const common = computeFeatures(query({ df: (t) => (t === 'cache-from' ? 0.5 : 0.01) }), [cand(0.8)]);
    expect(common[0].features.identifiers).toBe(0);
  });

  test('lexDoc is the IDF-weighted share of the document vocabulary the brief uses', () => {
    const [f] = computeFeatures(query({ idf: (t) => (t === 'registry' ? 4 : 1) }), [cand(0.8)]);
    // docker 1 + cache-from 1 shared of 1 + 1 + 4.
    expect(f.features.lexDoc).toBeCloseTo(2 / 6);
  });

  test('distinctive terms: a sibling lacks what sets the brief apart (529, not 429), the same work has it', () => {
    const idf = (t: string) => ({ '529': 5, 'back-off': 3, client: 1, retry: 1 })[t] ?? 0.5;
    const q = query({
      briefTokens: ['529', 'back-off', 'client', 'retry', 'retry'],
      idf,
      df: (t) => (idf(t) > 0.5 ? 0.02 : 0.3),
    });
    const same = cand(0.8, {
      terms: new Map([
        ['529', 1],
        ['back-off', 2],
        ['client', 1],
        ['retry', 1],
      ]),
    });
    const sibling = cand(0.8, {
      terms: new Map([
        ['429', 3],
        ['client', 1],
        ['retry', 2],
      ]),
    });
    const [a, b] = computeFeatures(q, [same, sibling]);
    expect(a.features.rareCover).toBeCloseTo(1);
    // client 1 + retry 1 of 5 + 3 + 1 + 1.
    expect(b.features.rareCover).toBeCloseTo(2 / 10);
    // The sibling's own most distinctive term (429, unknown to the brief) is missing the other way.
    expect(b.features.docRareCover).toBeLessThan(a.features.docRareCover);
  });

  test('title overlap ignores plurals and numbers', () => {
    expect([...titleWords('Keep dashboard sessions alive, issue 12')].sort()).toEqual([
      'alive',
      'dashboard',
      'keep',
      'session',
    ]);
    expect([...titleWords('ADR-0002: Structured logging')].sort()).toEqual(['logging', 'structured']);
    expect(dice(titleWords('Session tokens expire'), titleWords('Keep sessions alive with token refresh'))).toBeCloseTo(
      (2 * 2) / (3 + 5),
    );
    expect(dice(new Set(), new Set(['a']))).toBe(0);
  });
});

describe('calibrated score', () => {
  const model: LogisticModel = {
    intercept: 0,
    features: { cosineMean: { weight: 4, mean: 0.5, scale: 0.1 }, lexBrief: { weight: 2, mean: 0.2, scale: 0.1 } },
    floors: { related: 0.4, duplicate: 0.6 },
  };
  const lines = { duplicate: 0.85, related: 0.5 };

  test('contributions add up to the log-odds and the score is its sigmoid', () => {
    const f = features({ cosineMean: 0.6, lexBrief: 0.1 });
    const { z, contributions } = logit(model, f);
    expect(contributions).toEqual({ cosineMean: expect.closeTo(4, 9), lexBrief: expect.closeTo(-2, 9) });
    expect(z).toBeCloseTo(2);
    const e = calibratedScore(model, f, lines);
    expect(e.score).toBeCloseTo(sigmoid(2));
    expect(e.cappedBy).toBeNull();
  });

  test('no alert without absolute semantic evidence: below the duplicate floor the score stays under 0.85', () => {
    const e = calibratedScore(model, features({ cosine: 0.55, cosineMean: 0.9, lexBrief: 0.9 }), lines);
    expect(e.probability).toBeGreaterThan(0.99);
    expect(e.score).toBeLessThan(0.85);
    expect(e.score).toBeGreaterThanOrEqual(0.5);
    expect(e.cappedBy).toBe('duplicate-floor');
  });

  test('a topic in common is not the same work: below the lexical floor no alert, related still possible', () => {
    const withLex = { ...model, floors: { ...model.floors, lexicalDuplicate: 0.2 } };
    const e = calibratedScore(withLex, features({ cosine: 0.8, cosineMean: 0.95, lexBrief: 0.15 }), lines);
    expect(e.probability).toBeGreaterThan(0.85);
    expect(e.score).toBeLessThan(0.85);
    expect(e.score).toBeGreaterThanOrEqual(0.5);
    expect(e.cappedBy).toBe('duplicate-floor');
    expect(
      calibratedScore(withLex, features({ cosine: 0.8, cosineMean: 0.95, lexBrief: 0.25 }), lines).cappedBy,
    ).toBeNull();
  });

  test("a sibling lacks the brief's own words: below the rare-terms floor no alert, related still possible (issue 46)", () => {
    const withRare = { ...model, floors: { ...model.floors, rareDuplicate: 0.2 } };
    const e = calibratedScore(
      withRare,
      features({ cosine: 0.8, cosineMean: 0.95, lexBrief: 0.9, rareCover: 0.12 }),
      lines,
    );
    expect(e.probability).toBeGreaterThan(0.85);
    expect(e.score).toBeLessThan(0.85);
    expect(e.score).toBeGreaterThanOrEqual(0.5);
    expect(e.cappedBy).toBe('duplicate-floor');
    expect(
      calibratedScore(withRare, features({ cosine: 0.8, cosineMean: 0.95, lexBrief: 0.9, rareCover: 0.25 }), lines)
        .cappedBy,
    ).toBeNull();
    // The commit model (issue 46) holds this floor; the markdown and trackers' models do not.
    expect(commitSameWorkModel().floors.rareDuplicate).toBe(0.2);
  });

  test('work one text names as related is a sibling: held under the alert line, related kept', () => {
    const e = calibratedScore(
      model,
      features({ cosine: 0.9, cosineMean: 0.95, lexBrief: 0.9, namedRelated: 1 }),
      lines,
    );
    expect(e.probability).toBeGreaterThan(0.99);
    expect(e.score).toBeLessThan(0.85);
    expect(e.score).toBeGreaterThanOrEqual(0.5);
    expect(e.cappedBy).toBe('named-related');
  });

  test("the brief's own issue is at least the alert line above the alert floor, related between the floors, nothing below the related floor", () => {
    // A re-run of an issue whose text was retitled and rescoped: moderate evidence, far under the line on its own.
    const weak = features({ cosine: 0.66, cosineMean: 0.45, lexBrief: 0.1 });
    expect(calibratedScore(model, weak, lines).score).toBeLessThan(0.5);
    const own = calibratedScore(model, { ...weak, sameIssue: 1 }, lines);
    expect(own.score).toBe(0.85);
    expect(own.raisedBy).toBe('same-issue');
    expect(own.cappedBy).toBeNull();
    expect(whyInWords(own, { ...weak, sameIssue: 1 }, [])[0]).toBe("the brief's own issue");
    // Between the related and the duplicate floors: related work, not an alert, whatever the id says.
    const between = calibratedScore(model, { ...weak, cosine: 0.5, sameIssue: 1 }, lines);
    expect(between.score).toBe(0.5);
    expect(between.raisedBy).toBe('same-issue');
    const confident = calibratedScore(
      model,
      features({ cosine: 0.5, cosineMean: 0.95, lexBrief: 0.9, sameIssue: 1 }),
      lines,
    );
    expect(confident.score).toBe(0.85 - 1e-4);
    expect(confident.cappedBy).toBe('duplicate-floor');
    expect(confident.raisedBy).toBe('same-issue');
    expect([
      between.raisedTo,
      confident.raisedTo,
      calibratedScore(model, { ...weak, sameIssue: 1 }, lines).raisedTo,
    ]).toEqual([0.5, 0.5, 0.85]);
    // Already above the line: left as it is, not lowered to it.
    const strong = calibratedScore(
      model,
      features({ cosine: 0.95, cosineMean: 0.95, lexBrief: 0.9, sameIssue: 1 }),
      lines,
    );
    expect(strong.score).toBeGreaterThan(0.85);
    expect(strong.score).toBe(strong.probability);
    // Unrelated texts under one number (another tracker's #12, a renumbered series) are not the same work.
    const far = calibratedScore(model, features({ cosine: 0.3, cosineMean: 0.3, lexBrief: 0.1, sameIssue: 1 }), lines);
    expect(far.score).toBeLessThan(0.5);
    expect(far.raisedBy).toBeNull();
    expect(whyInWords(far, features({ cosine: 0.3, cosineMean: 0.3, lexBrief: 0.1, sameIssue: 1 }), [])).not.toContain(
      "the brief's own issue",
    );
  });

  test('no related either below the related floor, whatever the other evidence', () => {
    const e = calibratedScore(model, features({ cosine: 0.3, cosineMean: 0.9, lexBrief: 0.9 }), lines);
    expect(e.score).toBeLessThan(0.5);
    expect(e.cappedBy).toBe('related-floor');
    // A low probability is left as it is.
    const low = calibratedScore(model, features({ cosine: 0.3, cosineMean: 0.1, lexBrief: 0 }), lines);
    expect(low.cappedBy).toBeNull();
    expect(low.score).toBe(low.probability);
  });

  test('the reasons in words are the features that pushed the score up most', () => {
    const f = features({ cosineMean: 0.8, lexBrief: 0.7 });
    const e = calibratedScore(model, f, lines);
    const why = whyInWords(e, f, []);
    expect(why[0]).toBe('similar as a whole (cosine 0.80)');
    expect(why[1]).toBe("shares 70% of the brief's weighted terms");
    // A feature that pulled down is never given as a reason.
    const against = calibratedScore(model, features({ cosineMean: 0.8, lexBrief: 0 }), lines);
    expect(whyInWords(against, f, []).join(' ')).not.toMatch(/shares/);
  });

  test('the shipped calibration uses known features and has floors inside the lines', () => {
    for (const m of [CALIBRATION.sameWork, CALIBRATION.governs]) {
      for (const name of Object.keys(m.features)) expect(FEATURE_NAMES).toContain(name);
      for (const p of Object.values(m.features)) expect(p!.scale).toBeGreaterThan(0);
      expect(m.floors.related).toBeGreaterThan(0.2);
      expect(m.floors.related).toBeLessThanOrEqual(m.floors.duplicate);
    }
    expect(CALIBRATION.fittedOn).toMatch(/sha256:/);
  });
});

describe('boilerplate chunks of the brief do not pair', () => {
  const quoted =
    'reference check_links.py import http client import re import ssl import time import urllib error import urllib request def find_urls filepath';
  const corpus = [1, 2, 3, 4, 5].map((i) => `issue ${i} about topic ${i * 7} ${quoted}`);
  const lexical = { templates: detectTemplates(corpus) } as never;

  test('a chunk made mostly of text the corpus shares is left out; the rest is kept', () => {
    const vs = [new Float32Array(2), new Float32Array(2)];
    const s = {
      method: 'calibrated' as const,
      lexical,
      briefText: '',
      briefChunks: ['Implement a request wrapper module with retries and backoff for the scanner', quoted],
    };
    expect(informativeChunks(vs, s)).toEqual([0]);
  });

  test('when every chunk is boilerplate all are kept (something must be compared)', () => {
    const vs = [new Float32Array(2)];
    expect(informativeChunks(vs, { method: 'calibrated', lexical, briefText: '', briefChunks: [quoted] })).toEqual([0]);
    expect(
      informativeChunks(vs, { method: 'calibrated', lexical: null, briefText: '', briefChunks: [quoted] }),
    ).toEqual([0]);
  });
});

describe('the alert says what the calibrated score means, and why', () => {
  test('"Score", the reasons, and a second path without an empty label', async () => {
    const { renderDuplicateAlert } = await import('../../src/work-memory/output/render.js');
    const { makeStyle } = await import('../../src/shared/style.js');
    const m = {
      issueId: '27',
      title: 'Docker build caching',
      filePath: 'docs/audit/done/27-x/001-issue.md',
      paths: ['docs/audit/done/27-x/001-issue.md', 'docs/LLDs/done/LLD-027.md'],
      score: 0.97,
      status: null,
      statusReason: null,
      summary: '',
      documentType: 'issue' as const,
      section: 'Problem',
      excerpt: 'Builds are slow.',
      components: {
        cosine: 0.9,
        lexical: 0.6,
        shared: [],
        features: features(),
        why: ["shares 60% of the brief's weighted terms", 'similar as a whole (cosine 0.85)'],
      },
    };
    const text = renderDuplicateAlert([m], 0.85, await makeStyle(false), 120);
    expect(text).toContain('likely the same work: score ≥ 0.85');
    expect(text).toMatch(/^ {3}Score: {7}0\.9700$/m);
    expect(text).toMatch(
      /^ {3}Why: {9}shares 60% of the brief's weighted terms; similar as a whole \(cosine 0\.85\)$/m,
    );
    expect(text).toMatch(/^ {3}Paths: {7}docs\/audit\/done\/27-x\/001-issue\.md\n {16}docs\/LLDs\/done\/LLD-027\.md$/m);
    expect(text).not.toMatch(/^ {3}: /m);
  });
});

describe("wholeText 'all' (eval): every candidate's whole text is read, so saved features do not depend on the shipped floor", () => {
  test('the product reads it only near the related floor; evaluation reads it for every candidate, and no decision moves', async () => {
    // Two candidates far under every floor (cosine 0.05, 0.1), two near the top.
    const base = indexWithScores([0.92, 0.8, 0.1, 0.05]);
    const read: string[] = [];
    const index = Object.assign(base, {
      docMean: (p: string) => (read.push(p), null),
    });
    const scoring = {
      method: 'calibrated' as const,
      lexical: null,
      briefText: '# Past work\n\nbody',
      briefTitle: 'Past work',
    };
    const product = rescore(index, [basis(0)], 10, 'history', scoring);
    const productRead = new Set(read);
    read.length = 0;
    const evaluation = rescore(index, [basis(0)], 10, 'history', { ...scoring, wholeText: 'all' });
    expect(new Set(read).size).toBe(4);
    expect(productRead.size).toBeLessThan(4);
    expect(evaluation.map((m) => [m.filePath, m.score])).toEqual(product.map((m) => [m.filePath, m.score]));
  });
});

test('keepAll (eval --save): every candidate the retrievers proposed, best first, the k best unchanged at its head', () => {
  const index = indexWithScores([0.92, 0.8, 0.6, 0.4, 0.2, 0.1]);
  const scoring = {
    method: 'calibrated' as const,
    lexical: null,
    briefText: '# Past work\n\nbody',
    briefTitle: 'Past work',
  };
  const k2 = rescore(index, [basis(0)], 2, 'history', scoring);
  const all = rescore(index, [basis(0)], 2, 'history', { ...scoring, keepAll: true });
  expect(k2).toHaveLength(2);
  expect(all).toHaveLength(6);
  expect(all.slice(0, 2).map((m) => m.filePath)).toEqual(k2.map((m) => m.filePath));
});

test("the brief's own issue: a document or a commit that states it is raised to the alert line; another issue's is not", () => {
  const commit = {
    source: 'git' as const,
    kind: 'commit' as const,
    ref: 'a1b2c3d',
    pullRequest: null,
    closes: ['19'],
    url: null,
    files: [],
    fileCount: 0,
    date: null,
    author: null,
  };
  const index = indexWithScores([
    { score: 0.62, meta: { ownIssue: '19' } },
    { score: 0.64, meta: { filePath: 'git:a1b2c3d', origin: commit } },
    { score: 0.66, meta: { ownIssue: '20' } },
    // A file numbered 19 states nothing: its number may be a series of its own.
    { score: 0.63, meta: { filePath: 'docs/lld/done/LLD-019.md', issueId: '19' } },
  ]);
  const scoring = (brief: string) => ({
    method: 'calibrated' as const,
    lexical: null,
    briefText: brief,
    briefTitle: 'Link checking pipeline',
    briefRelations: parseBrief(brief).relations,
  });
  const own = rescore(index, [basis(0)], 10, 'history', scoring('# Issue #19: Link checking pipeline\n\nbody'));
  const byPath = new Map(own.map((m) => [m.filePath, m]));
  for (const p of ['docs/audit/done/101-past-work-0/001-issue.md', 'git:a1b2c3d']) {
    expect(byPath.get(p)!.score).toBeGreaterThanOrEqual(0.85);
    expect(byPath.get(p)!.components?.raisedBy).toBe('same-issue');
    expect(byPath.get(p)!.components?.why?.[0]).toBe("the brief's own issue");
  }
  for (const p of ['docs/audit/done/103-past-work-2/001-issue.md', 'docs/lld/done/LLD-019.md']) {
    expect(byPath.get(p)!.score).toBeLessThan(0.85);
    expect(byPath.get(p)!.components?.raisedBy).toBeNull();
  }
  // A brief that states no issue, or another one, raises nothing.
  for (const brief of ['# Link checking pipeline\n\nbody', '# Issue #7: Link checking pipeline\n\nbody']) {
    expect(
      rescore(index, [basis(0)], 10, 'history', scoring(brief)).every(
        (m) => m.score < 0.85 && m.components?.raisedBy === null,
      ),
    ).toBe(true);
  }
  // A design of #19 indexed as a standard too: as a standard it governs by its rule, not by its issue.
  const design = {
    score: 0.62,
    meta: {
      filePath: 'docs/lld/done/19-pipeline.md',
      types: ['history', 'standard'] as CorpusType[],
      documentType: 'lld' as const,
      ownIssue: '19',
    },
  };
  const both = indexWithScores([design], [design]);
  const brief19 = scoring('# Issue #19: Link checking pipeline\n\nbody');
  const asStandard = rescore(both, [basis(0)], 10, 'standard', brief19);
  expect(asStandard.map((m) => [m.filePath, m.components?.raisedBy])).toEqual([['docs/lld/done/19-pipeline.md', null]]);
  // Its score as a standard is the one a brief stating no issue gets.
  const noIssue = rescore(both, [basis(0)], 10, 'standard', scoring('# Link checking pipeline\n\nbody'));
  expect(asStandard[0].score).toBeCloseTo(noIssue[0].score, 12);
  expect(rescore(both, [basis(0)], 10, 'history', brief19)[0].components?.raisedBy).toBe('same-issue');
});

test("the brief's own issue keeps its raise when its whole text was not read (far down the cosine order)", () => {
  // Twenty better passages before it: it is outside the whole-text set, where a stand-in is held under every fully scored candidate.
  const index = indexWithScores([
    ...Array.from({ length: 20 }, (_, i) => 0.8 - i * 0.005),
    { score: 0.55, meta: { ownIssue: '19' } },
  ]);
  const brief = '# Issue #19: Link checking pipeline\n\nbody';
  const s = {
    method: 'calibrated' as const,
    lexical: null,
    briefText: brief,
    briefTitle: 'Link checking pipeline',
    briefRelations: parseBrief(brief).relations,
  };
  const own = rescore(index, [basis(0)], 30, 'history', s).find(
    (m) => m.filePath === 'docs/audit/done/121-past-work-20/001-issue.md',
  )!;
  expect(own.components?.raisedBy).toBe('same-issue');
  expect(own.score).toBeGreaterThanOrEqual(0.85);
  // Between the floors it keeps the related line it was raised to, and no more: what is above it came from the stand-in.
  const weak = indexWithScores([
    ...Array.from({ length: 20 }, (_, i) => 0.8 - i * 0.005),
    { score: 0.45, meta: { ownIssue: '19' } },
  ]);
  const scored = rescore(weak, [basis(0)], 30, 'history', s);
  const held = scored.find((m) => m.filePath === 'docs/audit/done/121-past-work-20/001-issue.md')!;
  expect(held.components?.raisedBy).toBe('same-issue');
  expect(held.score).toBe(0.5);
});

test('a text that states the issue and names it as other work says nothing sure: the sibling cap holds, nothing is raised', () => {
  const model: LogisticModel = {
    intercept: 0,
    features: { cosineMean: { weight: 4, mean: 0.5, scale: 0.1 } },
    floors: { related: 0.4, duplicate: 0.6 },
  };
  const e = calibratedScore(model, features({ cosine: 0.7, cosineMean: 0.9, sameIssue: 1, namedRelated: 1 }), {
    duplicate: 0.85,
    related: 0.5,
  });
  expect(e.cappedBy).toBe('named-related');
  expect(e.raisedBy).toBeNull();
  expect(e.score).toBeLessThan(0.85);
});
