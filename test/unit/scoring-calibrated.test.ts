/** The calibrated same-work score (issue 20): features, the model and its floors, explanations. */
import { calibratedScore, logit, sigmoid, whyInWords, type LogisticModel } from '../../src/work-memory/scoring/calibrated.js';
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
    const q = query({ briefTokens: ['529', 'back-off', 'client', 'retry', 'retry'], idf, df: (t) => (idf(t) > 0.5 ? 0.02 : 0.3) });
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
    expect([...titleWords('Keep dashboard sessions alive, issue 12')].sort()).toEqual(['alive', 'dashboard', 'keep', 'session']);
    expect([...titleWords('ADR-0002: Structured logging')].sort()).toEqual(['logging', 'structured']);
    expect(dice(titleWords('Session tokens expire'), titleWords('Keep sessions alive with token refresh'))).toBeCloseTo((2 * 2) / (3 + 5));
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
    expect(calibratedScore(withLex, features({ cosine: 0.8, cosineMean: 0.95, lexBrief: 0.25 }), lines).cappedBy).toBeNull();
  });

  test('work one text names as related is a sibling: held under the alert line, related kept', () => {
    const e = calibratedScore(model, features({ cosine: 0.9, cosineMean: 0.95, lexBrief: 0.9, namedRelated: 1 }), lines);
    expect(e.probability).toBeGreaterThan(0.99);
    expect(e.score).toBeLessThan(0.85);
    expect(e.score).toBeGreaterThanOrEqual(0.5);
    expect(e.cappedBy).toBe('named-related');
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
  const quoted = 'reference check_links.py import http client import re import ssl import time import urllib error import urllib request def find_urls filepath';
  const corpus = [1, 2, 3, 4, 5].map((i) => `issue ${i} about topic ${i * 7} ${quoted}`);
  const lexical = { templates: detectTemplates(corpus) } as never;

  test('a chunk made mostly of text the corpus shares is left out; the rest is kept', () => {
    const vs = [new Float32Array(2), new Float32Array(2)];
    const s = { method: 'calibrated' as const, lexical, briefText: '', briefChunks: ['Implement a request wrapper module with retries and backoff for the scanner', quoted] };
    expect(informativeChunks(vs, s)).toEqual([0]);
  });

  test('when every chunk is boilerplate all are kept (something must be compared)', () => {
    const vs = [new Float32Array(2)];
    expect(informativeChunks(vs, { method: 'calibrated', lexical, briefText: '', briefChunks: [quoted] })).toEqual([0]);
    expect(informativeChunks(vs, { method: 'calibrated', lexical: null, briefText: '', briefChunks: [quoted] })).toEqual([0]);
  });
});

describe('the alert says what the calibrated score means, and why', () => {
  test('"Same work", the reasons, and a second path without an empty label', async () => {
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
      components: { cosine: 0.9, lexical: 0.6, shared: [], features: features(), why: ["shares 60% of the brief's weighted terms", 'similar as a whole (cosine 0.85)'] },
    };
    const text = renderDuplicateAlert([m], 0.85, await makeStyle(false), 120);
    expect(text).toContain('likely the same work: score ≥ 0.85');
    expect(text).toMatch(/^ {3}Same work: {3}0\.9700$/m);
    expect(text).toMatch(/^ {3}Why: {9}shares 60% of the brief's weighted terms; similar as a whole \(cosine 0\.85\)$/m);
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
    const scoring = { method: 'calibrated' as const, lexical: null, briefText: '# Past work\n\nbody', briefTitle: 'Past work' };
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
  const scoring = { method: 'calibrated' as const, lexical: null, briefText: '# Past work\n\nbody', briefTitle: 'Past work' };
  const k2 = rescore(index, [basis(0)], 2, 'history', scoring);
  const all = rescore(index, [basis(0)], 2, 'history', { ...scoring, keepAll: true });
  expect(k2).toHaveLength(2);
  expect(all).toHaveLength(6);
  expect(all.slice(0, 2).map((m) => m.filePath)).toEqual(k2.map((m) => m.filePath));
});
