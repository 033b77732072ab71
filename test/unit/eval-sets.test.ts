/** Labelled sets for `agentos eval` (issue 20): markdown histories, trackers, standards labels, the sweep's samples. */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { citedStandards, loadEvalSet, restrictTo, sampleById } from '../../src/work-memory/eval/sets.js';
import { pooled } from '../../src/work-memory/eval/sweep.js';
import { attached, standardsMetrics } from '../../src/work-memory/eval/standards-metrics.js';
import { emptyResult, type CaseResult } from '../../src/work-memory/eval/run-set.js';

// Every scratch folder made here, removed after the file's tests.
const made: string[] = [];
const scratch = async (prefix: string) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
};
afterAll(async () => {
  await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
});

const STANDARDS = [
  { doc_id: 'a:adr:0216', source_path: 'docs/adrs/10216-ADR-cloudflare-migration.md', kind: 'adr' },
  { doc_id: 'a:std:7', source_path: 'docs/standards/00007-anti-bot-backoff.md', kind: 'standard' },
];

test('citations: ADR numbers with or without the renumbering prefix, "standard 00007", file stems', () => {
  expect(citedStandards('Per ADR-0216 we moved.', STANDARDS)).toEqual(['a:adr:0216']);
  expect(citedStandards('Per ADR 10216 we moved.', STANDARDS)).toEqual(['a:adr:0216']);
  expect(citedStandards('Backoff as in standard 00007.', STANDARDS)).toEqual(['a:std:7']);
  expect(citedStandards('see 00007-anti-bot-backoff', STANDARDS)).toEqual(['a:std:7']);
  expect(citedStandards('ADR-02160 and standard 000070 are other numbers', STANDARDS)).toEqual([]);
});

async function markdownSet(): Promise<string> {
  const dir = await scratch('agentos-mdset-');
  const files: Record<string, string> = {
    'docs/r/docs/lld/done/LLD-001.md': '# LLD-001: Retry\n\nFollows standard 00007.\n',
    'docs/r/docs/lineage/done/1-lld/001-issue.md': '# Issue #1: Retry\n\nRetry failed requests.\n',
    'docs/r/docs/standards/00007-anti-bot-backoff.md': '# 00007 Backoff\n\nExponential backoff.\n',
    'docs/r/q/brief.md': '# Retry requests\n\nRetry with backoff.\n',
    'docs/r/q/novel.md': '# Dark mode\n\nA dark theme.\n',
  };
  for (const [p, t] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, p)), { recursive: true });
    await writeFile(path.join(dir, p), t);
  }
  const corpus = [
    {
      doc_id: 'r:lld:1',
      path: 'docs/r/docs/lld/done/LLD-001.md',
      kind: 'lld',
      repo: 'o/r',
      source_path: 'docs/lld/done/LLD-001.md',
    },
    {
      doc_id: 'r:issue:1',
      path: 'docs/r/docs/lineage/done/1-lld/001-issue.md',
      kind: 'issue_text',
      repo: 'o/r',
      source_path: 'docs/lineage/done/1-lld/001-issue.md',
    },
    {
      doc_id: 'r:std:7',
      path: 'docs/r/docs/standards/00007-anti-bot-backoff.md',
      kind: 'standard',
      repo: 'o/r',
      source_path: 'docs/standards/00007-anti-bot-backoff.md',
    },
  ];
  const queries = [
    {
      query_id: 'q1',
      query_path: 'docs/r/q/brief.md',
      query_kind: 'brief',
      expected: ['r:lld:1'],
      also_relevant: ['r:std:7'],
      exclude_from_corpus: ['r:issue:1'],
      repo: 'o/r',
      work_group: 'g1',
    },
    {
      query_id: 'q2',
      query_path: 'docs/r/q/novel.md',
      query_kind: 'novel',
      expected: [],
      also_relevant: [],
      exclude_from_corpus: [],
      repo: 'o/r',
      work_group: 'g2',
    },
    {
      query_id: 'q3',
      query_path: 'docs/r/q/brief.md',
      query_kind: 'brief_adr',
      expected: ['r:std:7'],
      also_relevant: [],
      exclude_from_corpus: [],
      repo: 'o/r',
      work_group: 'g3',
    },
  ];
  await writeFile(path.join(dir, 'corpus.jsonl'), corpus.map((c) => JSON.stringify(c)).join('\n') + '\n');
  await writeFile(path.join(dir, 'queries.jsonl'), queries.map((c) => JSON.stringify(c)).join('\n') + '\n');
  return dir;
}

test('a markdown history folder is one project per repository, documents at their repository paths', async () => {
  const [p] = loadEvalSet(await markdownSet(), { subset: 1 });
  expect(p.name).toBe('o/r');
  expect(p.docs.map((d) => [d.relPath, d.types])).toEqual([
    ['docs/lld/done/LLD-001.md', ['history', 'standard']],
    ['docs/lineage/done/1-lld/001-issue.md', ['history']],
    ['docs/standards/00007-anti-bot-backoff.md', ['standard']],
  ]);
  const byId = Object.fromEntries(p.cases.map((c) => [c.id, c]));
  expect(byId.q1).toMatchObject({
    expected: ['r:lld:1'],
    exclude: ['r:issue:1'],
    governing: ['r:std:7'],
    kind: 'brief',
  });
  expect(byId.q2).toMatchObject({ expected: [], governing: [] });
  // Work recorded only as an ADR/standard is the standards check's to find, not the history check's.
  expect(byId.q3).toMatchObject({ expected: [], governing: ['r:std:7'] });
  // A finished design citing a standard is a labelled brief for the standards check, itself left out.
  expect(byId['r:lld:1#cites']).toMatchObject({
    kind: 'design_cites_standard',
    exclude: ['r:lld:1'],
    governing: ['r:std:7'],
  });
});

test('a missing folder or file is a usage error naming it', async () => {
  expect(() => loadEvalSet('/nonexistent/set', { subset: 1 })).toThrow(/\/nonexistent\/set: no such file or folder/);
  const dir = await scratch('agentos-mdset-');
  expect(() => loadEvalSet(dir, { subset: 1 })).toThrow(/corpus\.jsonl: missing/);
});

test('trackers: one project per `project`, so the sweep pool prefixes ids that could collide', async () => {
  const dir = await scratch('agentos-pairs-');
  const file = path.join(dir, 'p.jsonl');
  const rows = [
    { id: 1, title: 'crash on start', body: 'x', duplicate_of: null, project: 'a' },
    { id: 2, title: 'crashes at start', body: 'y', duplicate_of: 1, project: 'a' },
    { id: 1, title: 'slow scroll', body: 'z', duplicate_of: null, project: 'b' },
  ];
  await writeFile(file, rows.map((r) => JSON.stringify(r)).join('\n'));
  const projects = loadEvalSet(file, { subset: 1, heldOut: 0 });
  expect(projects.map((p) => p.name)).toEqual(['a', 'b']);
  const pool = pooled(projects);
  expect(pool.docs.map((d) => d.id).sort()).toEqual(['p1/1', 'p2/1']);
  expect(new Set(pool.docs.map((d) => d.relPath)).size).toBe(2);
  expect(pool.cases).toEqual([expect.objectContaining({ id: 'p1/2', expected: ['p1/1'], reportId: 'p1/2' })]);
  // The pool's reports are written as a tracker export (run-set.ts): every id must be one the reader keeps.
  // With `a:1` (the project's name and a colon) every report was skipped, and the trackers' sweep read 0 at every size.
  const { readTrackerExport } = await import('../../src/work-memory/sources/tracker.js');
  const lines = pool.docs
    .map((d) => JSON.stringify({ id: d.id, title: d.record!.title, body: d.record!.body, closed: true }))
    .join('\n');
  const read = readTrackerExport('tracker-export.jsonl', lines);
  expect(read.warnings).toEqual([]);
  expect(read.docs.map((d) => d.metadata.filePath).sort()).toEqual(['tracker:p1/1', 'tracker:p2/1']);
  // The brief's place in the filing order is in the series of its project's reports as the export reader reads them (scoring/filing.ts).
  const { briefPlace, placeOf } = await import('../../src/work-memory/scoring/filing.js');
  const places = read.docs.map((d) => placeOf(d.metadata.origin));
  expect(places.map((p) => p?.series)).toEqual(
    expect.arrayContaining([briefPlace('tracker', pool.cases[0].reportId!)!.series]),
  );
  expect(new Set(places.map((p) => p?.series)).size).toBe(2);
});

test('the sweep pool is a monorepo: each project in its own folder, in its own layout, so an issue and its design stay one piece of work', async () => {
  const projects = loadEvalSet(await markdownSet(), { subset: 1 });
  const pool = pooled(projects);
  expect(pool.docs.map((d) => d.relPath).sort()).toEqual([
    'projects/1/docs/lineage/done/1-lld/001-issue.md',
    'projects/1/docs/lld/done/LLD-001.md',
    'projects/1/docs/standards/00007-anti-bot-backoff.md',
  ]);
  // The work number the product reads from each path is the one it read in the project itself.
  const { extractIssueId } = await import('../../src/work-memory/corpus/metadata.js');
  expect(pool.docs.map((d) => extractIssueId(d.relPath, {}, null)).sort()).toEqual(
    projects[0].docs.map((d) => extractIssueId(d.relPath, {}, null)).sort(),
  );
  expect(pool.docs.map((d) => d.types)).toEqual(projects[0].docs.map((d) => d.types));
});

test('sweep samples are deterministic, nested by size, and a brief whose work is not sampled has nothing to find', async () => {
  const [p] = loadEvalSet(await markdownSet(), { subset: 1 });
  const one = sampleById(p.docs, 1, 's');
  expect(sampleById(p.docs, 1, 's')).toEqual(one);
  expect(sampleById(p.docs, 2, 's').map((d) => d.id)).toEqual(expect.arrayContaining(one.map((d) => d.id)));
  const without = restrictTo(
    p,
    p.docs.filter((d) => d.id !== 'r:lld:1'),
    'cut',
  );
  expect(without.cases.find((c) => c.id === 'q1')).toMatchObject({ expected: [], kind: 'novel' });
});

test('standards metrics: a brief counts when one governing document is attached; unrelated briefs should get none', () => {
  const base = emptyResult('', 'p', 'brief', 'g');
  const c = (path: string, score: number, label: 0 | 1) => ({ path, score, label, features: null });
  const results: CaseResult[] = [
    {
      ...base,
      id: 'a',
      kind: 'brief',
      standards: { governing: ['adr/1.md'], candidates: [c('adr/1.md', 0.9, 1), c('std/2.md', 0.6, 0)] },
    },
    {
      ...base,
      id: 'b',
      kind: 'brief',
      standards: { governing: ['adr/3.md'], candidates: [c('adr/1.md', 0.2, 0), c('adr/3.md', 0.4, 1)] },
    },
    {
      ...base,
      id: 'x',
      kind: 'cross_project',
      standards: { governing: [], candidates: [c('adr/9.md', 0.7, 0)], crossProject: true },
    },
    {
      ...base,
      id: 'y',
      kind: 'cross_project',
      standards: { governing: [], candidates: [c('adr/9.md', 0.1, 0)], crossProject: true },
    },
  ];
  const m = standardsMetrics(results, { threshold: 0.5, k: 3, candidates: 5 });
  expect(m).toEqual({
    labelled: 2,
    briefRecall: 0.5,
    pairRecall: 0.5,
    precision: 0.5,
    unrelated: 2,
    unrelatedNone: 0.5,
  });
});

test('standards metrics: what the brief names is attached first, whatever its score, and not counted against k (as retrieveStandards)', () => {
  const base = emptyResult('', 'p', 'brief', 'g');
  const c = (path: string, score: number, label: 0 | 1, cited?: number) => ({
    path,
    score,
    label,
    features: null,
    ...(cited === undefined ? {} : { cited, unreached: true }),
  });
  const r: CaseResult = {
    ...base,
    id: 'a',
    standards: {
      governing: ['adr/7.md'],
      candidates: [
        c('std/1.md', 0.9, 0),
        c('std/2.md', 0.8, 0),
        c('std/3.md', 0.7, 0),
        c('std/4.md', 0.6, 0),
        c('adr/9.md', 0, 0, 1),
        c('adr/7.md', 0, 1, 0),
      ],
    },
  };
  // In the order the brief's names were read, as the product attaches them.
  expect(attached(r, { threshold: 0.5, k: 3, candidates: 5 })).toEqual([
    'adr/7.md',
    'adr/9.md',
    'std/1.md',
    'std/2.md',
    'std/3.md',
  ]);
  expect(standardsMetrics([r], { threshold: 0.5, k: 3, candidates: 5 })).toMatchObject({
    briefRecall: 1,
    pairRecall: 1,
    precision: 0.2,
  });
});

test('sibling work becomes labelled negatives: own work left out, the work it names (or that names it) indexed', async () => {
  const dir = await scratch('agentos-sibset-');
  const files: Record<string, string> = {
    'd/lld/LLD-001.md': '# LLD-001: Retry on 429\n\nBack off on 429.\n',
    'd/lld/LLD-002.md': '# LLD-002: Back-off on 529\n\nA follow-up to #1 for 529.\n',
    'd/lld/LLD-003.md': '# LLD-003: Dark mode\n\nTest #1 and test #2 are list numbers.\n',
    'q/issue-2.md': '# Issue #2: Back-off on 529\n\nRetry 529 too.\n',
  };
  for (const [p, t] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, p)), { recursive: true });
    await writeFile(path.join(dir, p), t);
  }
  const corpus = [1, 2, 3].map((n) => ({
    doc_id: `r:lld:${n}`,
    path: `d/lld/LLD-00${n}.md`,
    kind: 'lld',
    repo: 'o/r',
    source_path: `docs/lld/LLD-00${n}.md`,
    issue_number: n,
  }));
  const queries = [
    {
      query_id: 'q2',
      query_path: 'q/issue-2.md',
      query_kind: 'issue_text',
      expected: ['r:lld:2'],
      also_relevant: ['r:lld:1'],
      exclude_from_corpus: [],
      repo: 'o/r',
      work_group: 'g2',
    },
  ];
  await writeFile(path.join(dir, 'corpus.jsonl'), corpus.map((c) => JSON.stringify(c)).join('\n') + '\n');
  await writeFile(path.join(dir, 'queries.jsonl'), queries.map((c) => JSON.stringify(c)).join('\n') + '\n');
  const [p] = loadEvalSet(dir, { subset: 1 });
  const siblings = p.cases.filter((c) => c.kind === 'sibling');
  // From the label (q2's also_relevant) and from the corpus: LLD-002 names #1, so each is the other's sibling; LLD-003's "test #1" is no link.
  expect(siblings.map((c) => [c.id, c.expected, c.exclude, c.related])).toEqual([
    ['q2#sibling', [], ['r:lld:2'], ['r:lld:1']],
    ['r:lld:1#sibling', [], ['r:lld:1'], ['r:lld:2']],
    ['r:lld:2#sibling', [], ['r:lld:2'], ['r:lld:1']],
  ]);
  expect(siblings.every((c) => c.governing.length === 0)).toBe(true);
});

test('a tracker set is indexed as the tracker export a team would configure, not as files', async () => {
  const dir = await scratch('agentos-pairs-');
  const file = path.join(dir, 'pairs.jsonl');
  const reports = [
    { id: 'ff/1', title: 'Crash on start', body: 'It crashes.', project: 'ff' },
    { id: 'ff/2', title: 'Crashes at startup', body: 'Same crash.', duplicate_of: 'ff/1', project: 'ff' },
    { id: 'ff/3', title: '', body: 'No title here.', project: 'ff' },
  ];
  await writeFile(file, reports.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const [p] = loadEvalSet(file, { subset: 1, heldOut: 0 });
  expect(p.docs.map((d) => [d.id, d.record])).toEqual(
    expect.arrayContaining([
      ['ff/1', { title: 'Crash on start', body: 'It crashes.' }],
      ['ff/3', { title: 'ff/3', body: 'No title here.' }],
    ]),
  );
});
