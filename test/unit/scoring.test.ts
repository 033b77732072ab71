/** Issue 11: the hybrid fusion, the lexical-only rule, one match per work, wrapper headers, draft layouts, eval inputs. */
import { fuse, PRIOR_REFERENCE, referenceOf, REF_RANK } from '../../src/work-memory/scoring/fused.js';
import { groupByWork } from '../../src/work-memory/scoring/group.js';
import { LEXICAL_ONLY_CAP, lexicalOnlyScore, nearVerbatim } from '../../src/work-memory/scoring/lexical-only.js';
import { extractMetadata, stripWrapperHeader } from '../../src/work-memory/corpus/metadata.js';
import { oneDocumentPerIssueFolder } from '../../src/work-memory/corpus/layouts.js';
import { parsePairs, splitPairs } from '../../src/work-memory/eval/pairs.js';
import { linkedIssueIds, linkedPairs } from '../../src/work-memory/eval/links.js';
import { auc, bandRow, proposeThresholds, tradeOff, type QueryResult } from '../../src/work-memory/eval/metrics.js';
import type { HistoryMatch } from '../../src/work-memory/check/history.js';
import type { CorpusFile } from '../../src/work-memory/corpus/types.js';

describe('hybrid fusion', () => {
  const crowd = [0.42, 0.41, 0.4, 0.39, 0.38].map((cosine) => ({ cosine, lexical: 0.1 }));
  const reference = referenceOf(crowd);

  it('stays in (0, 1) and rises with each part', () => {
    const base = fuse({ cosine: 0.5, lexical: 0.2 }, 'calibrated', reference);
    expect(base).toBeGreaterThan(0);
    expect(base).toBeLessThan(1);
    expect(fuse({ cosine: 0.6, lexical: 0.2 }, 'calibrated', reference)).toBeGreaterThan(base);
    expect(fuse({ cosine: 0.5, lexical: 0.4 }, 'calibrated', reference)).toBeGreaterThan(base);
    expect(fuse({ cosine: 1, lexical: 1 }, 'calibrated', { cosine: -1, lexical: 0 })).toBeLessThanOrEqual(1);
  });

  it("a match that stands out from the brief's other neighbours is a duplicate; one level with them is not related", () => {
    expect(fuse({ cosine: 0.95, lexical: 0.8 }, 'calibrated', reference)).toBeGreaterThanOrEqual(0.85);
    expect(fuse({ cosine: 0.42, lexical: 0.1 }, 'calibrated', reference)).toBeLessThan(0.5);
  });

  it('the same cosine means less for a generic brief close to everything', () => {
    const generic = referenceOf([0.8, 0.79, 0.78, 0.78, 0.77].map((cosine) => ({ cosine, lexical: 0.3 })));
    expect(fuse({ cosine: 0.82, lexical: 0.3 }, 'calibrated', generic)).toBeLessThan(
      fuse({ cosine: 0.82, lexical: 0.3 }, 'calibrated', reference),
    );
  });

  it('the reference is the 4th best; with fewer candidates the prior is used', () => {
    expect(reference.cosine).toBe(0.39);
    expect(referenceOf(crowd.slice(0, REF_RANK))).toEqual(PRIOR_REFERENCE);
  });

  it('cosine method returns the cosine unchanged', () => {
    expect(fuse({ cosine: 0.7312, lexical: 0.9 }, 'cosine', reference)).toBe(0.7312);
  });
});

describe('lexical-only rule (no model)', () => {
  it('never reaches the duplicate threshold unless near-verbatim', () => {
    expect(lexicalOnlyScore(1, false)).toBe(LEXICAL_ONLY_CAP);
    expect(lexicalOnlyScore(1, false)).toBeLessThan(0.85);
    expect(lexicalOnlyScore(0.97, true)).toBe(0.97);
  });

  it('near-verbatim means most distinct terms shared both ways', () => {
    const doc = new Set(['cache', 'redis', 'build', 'queue', 'retry', 'worker', 'timeout', 'metric', 'alert', 'limit']);
    expect(nearVerbatim([...doc], doc)).toBe(true);
    expect(nearVerbatim(['cache', 'redis'], doc)).toBe(false); // a short brief inside a long doc
    expect(nearVerbatim([...doc, 'a1', 'b2', 'c3'], doc)).toBe(false);
    expect(nearVerbatim(['x'], undefined)).toBe(false);
  });
});

describe('one match per past piece of work', () => {
  const m = (
    filePath: string,
    issueId: string | null,
    documentType: HistoryMatch['documentType'],
    score: number,
  ): HistoryMatch => ({
    issueId,
    title: filePath,
    filePath,
    score,
    status: null,
    statusReason: null,
    summary: '',
    documentType,
    section: '',
    excerpt: '',
  });

  it('an issue and its design are one match listing both paths; the best leads', () => {
    const out = groupByWork([
      m('docs/LLDs/done/LLD-091.md', '91', 'lld', 0.9),
      m('docs/audit/done/91-x/001-issue.md', '91', 'issue', 0.8),
      m('docs/audit/done/92-y/001-issue.md', '92', 'issue', 0.7),
    ]);
    expect(out.map((x) => x.filePath)).toEqual(['docs/LLDs/done/LLD-091.md', 'docs/audit/done/92-y/001-issue.md']);
    expect(out[0].paths).toEqual(['docs/LLDs/done/LLD-091.md', 'docs/audit/done/91-x/001-issue.md']);
  });

  it('documents without an issue id, and standards, are never merged', () => {
    const out = groupByWork([
      m('a.md', null, 'issue', 0.9),
      m('b.md', null, 'issue', 0.8),
      m('docs/adrs/0091.md', '91', 'adr', 0.7),
      m('docs/audit/done/91/001-issue.md', '91', 'issue', 0.6),
    ]);
    expect(out).toHaveLength(4);
  });
});

describe('wrapper headers', () => {
  const wrapped = [
    '# LLD Finalized',
    '',
    'Path: docs/lld/active/LLD-042.md',
    'Status: APPROVED',
    '**Reviewed:** 2024-05-01',
    '',
    '# Token refresh for long builds',
    '',
    'Body text here.',
  ].join('\n');

  it('strips a first H1 followed by key/value lines and then the real H1', () => {
    const { body, header } = stripWrapperHeader(wrapped);
    expect(body.startsWith('# Token refresh for long builds')).toBe(true);
    expect(header).toMatch(/LLD Finalized/);
  });

  it('the real title is used and the wrapper status still counts', () => {
    const { metadata } = extractMetadata('docs/lld/done/LLD-042.md', wrapped, ['history'], 'h');
    expect(metadata.title).toBe('Token refresh for long builds');
    expect(metadata.status).toBe('accepted');
  });

  it('leaves ordinary documents alone', () => {
    for (const text of [
      '# Title\n\nSome prose.\n\n# Another H1',
      '# Title\n\n# Second',
      '# Only\nStatus: done\n\nprose',
    ]) {
      expect(stripWrapperHeader(text)).toEqual({ body: text, header: null });
    }
  });
});

describe('issue folders of revisions', () => {
  const f = (relPath: string, types: CorpusFile['types'] = ['history']): CorpusFile => ({
    relPath,
    absPath: `/r/${relPath}`,
    types,
    size: 1,
    mtimeMs: 1,
  });

  it('keeps 001-issue.md, else the highest draft, else the brief — one per folder', () => {
    const kept = oneDocumentPerIssueFolder([
      f('docs/audit/done/1-a/001-brief.md'),
      f('docs/audit/done/1-a/002-draft.md'),
      f('docs/audit/done/1-a/010-draft.md'),
      f('docs/audit/done/1-a/003-draft.md'),
      f('docs/audit/done/2-b/001-brief.md'),
      f('docs/audit/done/3-c/001-issue.md'),
      f('docs/audit/done/3-c/004-draft.md'),
      f('docs/audit/done/3-c/001-brief.md'),
    ]).map((x) => x.relPath);
    expect(kept).toEqual([
      'docs/audit/done/1-a/010-draft.md',
      'docs/audit/done/2-b/001-brief.md',
      'docs/audit/done/3-c/001-issue.md',
    ]);
  });

  it('never drops standards or other files', () => {
    const files = [
      f('docs/LLDs/done/LLD-1.md', ['history', 'standard']),
      f('docs/audit/done/1-a/notes.md'),
      f('docs/audit/done/1-a/001-brief.md', ['standard']),
    ];
    expect(oneDocumentPerIssueFolder(files)).toEqual(files);
  });
});

describe('eval inputs', () => {
  const jsonl = [
    { id: 'p/1', title: 'Crash on start', body: 'a', duplicate_of: null },
    { id: 'p/2', title: 'Crash at startup', body: 'b', duplicate_of: 'p/1' },
    { id: 'p/3', title: 'Start crash again', body: 'c', duplicate_of: 'p/2' },
    { id: 'p/4', title: 'Unrelated', body: 'd', duplicate_of: null },
    { id: 'p/5', title: 'Points outside', body: 'e', duplicate_of: 'other/9' },
  ]
    .map((o) => JSON.stringify(o))
    .join('\n');

  it('indexes each cluster original and asks its duplicates with the original as target', () => {
    const split = splitPairs(parsePairs(jsonl, 'f.jsonl'), 0);
    expect(split.history.map((r) => r.id).sort()).toEqual(['p/1', 'p/4', 'p/5']);
    expect(split.queries).toEqual([
      expect.objectContaining({ id: 'p/2', target: 'p/1' }),
      expect.objectContaining({ id: 'p/3', target: 'p/1' }),
    ]);
  });

  it('held-out clusters are asked whole with nothing to find', () => {
    const split = splitPairs(parsePairs(jsonl, 'f.jsonl'), 1);
    expect(split.history).toEqual([]);
    expect(split.queries.every((q) => q.target === null)).toBe(true);
    expect(split.queries).toHaveLength(5);
  });

  it('a bad line is an error naming file and line', () => {
    expect(() => parsePairs('{"id":"a"}\n{oops', 'x.jsonl')).toThrow(/^x\.jsonl:2: not JSON/);
    expect(() => parsePairs('{"title":"a"}', 'x.jsonl')).toThrow(/x\.jsonl:1: "id" is missing/);
  });

  it('finds links between past documents', () => {
    // A follow-up and a related issue are siblings, not the same work (issue 29).
    expect(
      linkedIssueIds(
        'This is a duplicate of #12. Replaces #7; supersedes #003. Follow-up to #40.\nRelated Issues: #5, #6',
      ).sort(),
    ).toEqual(['12', '3', '7']);
    expect(linkedIssueIds('Fixes #12 and mentions #13')).toEqual([]);
    const pairs = linkedPairs([
      { filePath: 'a', issueId: '1', title: 'Cache', text: 'duplicate of #2' },
      { filePath: 'b', issueId: '2', title: 'Other', text: '' },
      { filePath: 'c', issueId: '3', title: 'Dark Mode!', text: '' },
      { filePath: 'd', issueId: '4', title: 'dark mode', text: '' },
      { filePath: 'e', issueId: '4', title: 'dark mode', text: 'duplicate of #4' },
    ]);
    expect([...pairs.get('a')!]).toEqual(['b']);
    expect([...pairs.get('c')!].sort()).toEqual(['d', 'e']);
    expect(pairs.get('d')!.has('e')).toBe(false); // same issue: one work, not a pair
  });
});

describe('eval metrics', () => {
  const r = (target: string | null, top: number, topPath: string | null): QueryResult => ({
    id: String(Math.random()),
    target,
    top,
    topPath,
    targetRank: target && topPath === target ? 1 : null,
    targetScore: null,
    ms: 1,
  });

  it('AUC: perfect, inverted, ties', () => {
    expect(auc([0.9, 0.8], [0.1, 0.2])).toBe(1);
    expect(auc([0.1], [0.9])).toBe(0);
    expect(auc([0.5], [0.5])).toBe(0.5);
  });

  it('precision at a base rate weighs false alerts by the share of non-duplicates', () => {
    const results = [r('a', 0.9, 'a'), r('b', 0.9, 'x'), r(null, 0.9, 'y'), r(null, 0.1, 'z')];
    const row = bandRow(results, 0.85, 0.1);
    expect(row.recall).toBe(0.5);
    expect(row.noise).toBe(0.5);
    // TP weight 0.1/2; alerts: 2 positives * 0.05 + 1 negative * 0.45
    expect(row.precisionAtBase).toBeCloseTo(0.05 / (0.1 + 0.45), 10);
  });

  it('proposes the lowest thresholds meeting the targets', () => {
    const results = [r('a', 0.95, 'a'), r('b', 0.7, 'b'), r(null, 0.6, 'y'), r(null, 0.3, 'z')];
    const p = proposeThresholds(tradeOff(results), 0.8, 0.5);
    expect(p.duplicate).toBe(0.61);
    expect(p.related).toBe(0.31);
  });
});
