// The org view (src/work-memory/org/org-view.ts) without a server: this repository's
// index plus documents fetched from other repositories, each document weighed as its own
// repository's index would weigh it, and documents counted as one index holding every
// document of the organisation would count them.
import { Bm25Index, type LexicalDoc } from '../../src/work-memory/lexical/bm25.js';
import { termCounts } from '../../src/work-memory/lexical/tokenize.js';
import {
  ForeignDocs,
  OrgVectorIndex,
  foreignKey,
  orgLexical,
  repositoryTerms,
} from '../../src/work-memory/org/org-view.js';
import type { FetchedDoc, OrgRepository } from '../../src/work-memory/org/fetch.js';
import { vectorCandidates } from '../../src/work-memory/org/fetch.js';
import { LEXICAL_POSTINGS_BUDGET, lexicalCandidates } from '../../src/work-memory/org/fetch-lexical.js';
import { vectorFromBinary, vectorText } from '../../src/shared/team-store/vector.js';
import type { TeamStoreClient } from '../../src/shared/team-store/connect.js';
import { workKey } from '../../src/work-memory/scoring/match.js';
import { basis, historyDoc, InMemoryIndex, standardDoc } from '../helpers/fakes.js';

const doc = (p: string, text: string): LexicalDoc => {
  const tokens = text.split(' ');
  return { path: p, len: tokens.length, tf: termCounts(tokens) };
};

const fetched = (
  repository: string,
  p: string,
  text: string,
  vectors: Float32Array[],
  types: Array<'history' | 'standard'> = ['history'],
): FetchedDoc => {
  const d = doc(p, text);
  return {
    repository,
    path: p,
    lexicalLen: d.len,
    tf: d.tf,
    metadata: {
      filePath: p,
      types,
      documentType: 'issue',
      issueId: '12',
      title: p,
      summary: '',
      status: 'done',
      statusReason: null,
      contentHash: 'h',
    },
    chunks: vectors.map((vector, i) => ({ section: `s${i}`, excerpt: `e${i}`, vector })),
  };
};

describe("orgLexical: each document weighed by its own repository's statistics (issue 47)", () => {
  const localDocs = [doc('a.md', 'redis queue retry budget'), doc('b.md', 'logging json correlation')];
  // The other repository holds more than was fetched: its statistics count all of it.
  const theirs = [
    doc('c.md', 'redis streams consumer'),
    doc('d.md', 'redis queue backoff retry'),
    doc('e.md', 'css layout grid'),
  ];
  const web = (docs: LexicalDoc[]): OrgRepository => ({
    id: '1',
    name: 'acme/web',
    docs: docs.length,
    historyDocs: docs.length,
    standardDocs: 0,
    lexicalLen: docs.reduce((n, d) => n + d.len, 0),
  });
  const dfOf = (docs: LexicalDoc[]) => {
    const df = new Map<string, number>();
    for (const d of docs) for (const t of d.tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    return new Map([['1', df]]);
  };
  const local = new Bm25Index(localDocs);
  const lexicalData = {
    bm25: local,
    templates: { shingle: 8, minDocs: 3, docs: 2, hashes: new Set<number>(), examples: [] },
  };
  const view = (docs: LexicalDoc[]) =>
    orgLexical(lexicalData, [fetched('acme/web', 'd.md', 'redis queue backoff retry', [])], [web(docs)], dfOf(docs));
  const query = ['redis', 'queue', 'retry'];
  const d = foreignKey('acme/web', 'd.md');

  test("a fetched document scores as in one index of its own repository's documents; a local one as in the local index", () => {
    const theirIndex = new Bm25Index(theirs.map((x) => ({ ...x, path: foreignKey('acme/web', x.path) })));
    const v = view(theirs);
    for (const [p, own] of [
      ['a.md', local],
      [d, theirIndex],
    ] as const) {
      expect(v.bm25.scoreDoc(query, p)!.bm25).toBeCloseTo(own.scoreDoc(query, p)!.bm25, 12);
      expect(v.bm25.scoreDoc(query, p)!.norm).toBeCloseTo(own.scoreDoc(query, p)!.norm, 12);
      expect(v.bm25.weigherOf(p).idf('redis')).toBeCloseTo(own.idf('redis'), 12);
      expect(v.bm25.idfSum(p)).toBeCloseTo(own.idfSum(p), 12);
    }
    // Documents not fetched are counted, never returned; the best share of the brief first.
    const hits = v.bm25.search(query);
    expect(hits.map((h) => h.path).sort()).toEqual([d, 'a.md'].sort());
    expect(hits[0].norm).toBeGreaterThanOrEqual(hits[1].norm);
  });

  test("a flood in the other repository holding the local document's words changes no local score", () => {
    const flood = [...theirs, ...Array.from({ length: 500 }, (_, i) => doc(`f${i}.md`, 'redis queue retry budget'))];
    const before = view(theirs).bm25.scoreDoc(query, 'a.md')!;
    const after = view(flood).bm25.scoreDoc(query, 'a.md')!;
    expect(after).toEqual(before);
    // Her own documents now weigh those words as the common words they are in her repository.
    expect(view(flood).bm25.scoreDoc(query, d)!.bm25).toBeLessThan(view(theirs).bm25.scoreDoc(query, d)!.bm25 / 2);
  });
});

describe('OrgVectorIndex: the local index and fetched documents as one index', () => {
  const local = new InMemoryIndex([historyDoc(0, { score: 0.6 }), standardDoc(0, { score: 0.5 })]);
  const foreign = new ForeignDocs([
    fetched('acme/web', 'docs/issues/12.md', 'x', [basis(0), basis(1)]),
    fetched('acme/api', 'adr.md', 'y', [basis(2)], ['standard']),
  ]);
  const index = new OrgVectorIndex(local, foreign, { all: 40, history: 30, standard: 10 });

  test('search merges both, best first; counts add the whole of the other repositories', () => {
    const hits = index.search(basis(0), 3, 'history');
    expect(hits[0].doc.filePath).toBe('acme/web:docs/issues/12.md');
    expect(hits[0].score).toBeCloseTo(1, 6);
    expect(hits.map((h) => h.doc.filePath)).toContain(local.search(basis(0), 1, 'history')[0].doc.filePath);
    expect(index.search(basis(2), 5, 'history').every((h) => h.doc.types.includes('history'))).toBe(true);
    expect(index.count('history')).toBe(local.count('history') + 2);
    expect(index.docCount('history')).toBe(30); // the fake local store has no docCount: only the org's
  });

  test("another repository's document keeps its repository, its own key, and is other work than this one's issue 12", () => {
    const d = index.doc('acme/web:docs/issues/12.md')!;
    expect(d.repository).toBe('acme/web');
    expect(index.scoreDoc('acme/web:docs/issues/12.md', [basis(1)])).toMatchObject({
      score: expect.closeTo(1, 6),
      section: 's1',
      vectorIndex: 0,
    });
    expect(index.docMean('acme/web:docs/issues/12.md')![0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(workKey({ issueId: '12', documentType: 'issue', repository: 'acme/web' })).not.toBe(
      workKey({ issueId: '12', documentType: 'issue' }),
    );
  });
});

test('vectors cross the wire exactly: the text agentos writes parses back to the same float32 values', () => {
  const v = Float32Array.from([0.1, -0.2345678, 1e-7, 0.999999]);
  // As the server parses the literal (strtof of each decimal), then stores float4.
  expect(Array.from(Float32Array.from(vectorText(v).slice(1, -1).split(',').map(Number)))).toEqual(Array.from(v));
});

test("vectors come back in pgvector's binary form (vector_send): big-endian float4 after the dimensions; a short or long buffer is no vector", () => {
  const v = Float32Array.from([0.1, -0.2345678, 1e-7, 0.999999]);
  const bytes = Buffer.alloc(4 + 4 * v.length);
  bytes.writeUInt16BE(v.length, 0);
  v.forEach((x, i) => bytes.writeFloatBE(x, 4 + 4 * i));
  expect(Array.from(vectorFromBinary(bytes))).toEqual(Array.from(v));
  // A buffer node-postgres sliced out of a larger one: its offset is honoured.
  const inside = Buffer.concat([Buffer.from([9, 9, 9]), bytes]).subarray(3);
  expect(Array.from(vectorFromBinary(inside))).toEqual(Array.from(v));
  expect(vectorFromBinary(bytes.subarray(0, bytes.length - 1))).toHaveLength(0);
  expect(vectorFromBinary(Buffer.concat([bytes, Buffer.alloc(4)]))).toHaveLength(0);
  expect(vectorFromBinary(Buffer.alloc(2))).toHaveLength(0);
});

describe('vectorCandidates: widening, then an exact scan when pgvector runs out of rows', () => {
  /** A client answering the nearest-chunk query with `rows(limit)` and recording every statement. */
  function fakeClient(rows: (limit: number) => Array<{ document_id: string; repository_id: string; types: string[] }>) {
    const statements: string[] = [];
    const client = {
      query: async (text: string, params: unknown[] = []) => {
        statements.push(text.replace(/\s+/g, ' ').trim());
        if (text.includes('WITH nn AS')) return { rows: rows(params[1] as number) };
        if (text.includes('GROUP BY c.document_id'))
          return { rows: [{ document_id: 'exact-1' }, { document_id: 'exact-2' }] };
        return { rows: [] };
      },
    };
    return { client: client as unknown as TeamStoreClient, statements };
  }

  test('enough documents of the type at the first breadth: one query, no exact scan', async () => {
    const { client, statements } = fakeClient((limit) =>
      Array.from({ length: limit }, (_, i) => ({ document_id: `d${i % 40}`, repository_id: '1', types: ['history'] })),
    );
    const found = await vectorCandidates(client, [basis(0)], 20, 'history', new Set(['1']));
    expect(found.size).toBe(40);
    expect(statements.filter((s) => s.includes('WITH nn AS'))).toHaveLength(1);
    expect(statements.some((s) => s.includes('enable_indexscan'))).toBe(false);
  });

  test("another type's chunks fill pgvector's 1,000 rows: the search widens to the limit, then scans exactly", async () => {
    const { client, statements } = fakeClient((limit) =>
      Array.from({ length: limit }, (_, i) => ({ document_id: `h${i}`, repository_id: '1', types: ['history'] })),
    );
    const found = await vectorCandidates(client, [basis(0)], 5, 'standard', new Set(['1']));
    expect([...found]).toEqual(['exact-1', 'exact-2']);
    const limits = statements.filter((s) => s.startsWith('SET hnsw.ef_search')).map((s) => Number(s.split('= ')[1]));
    expect(limits).toEqual([40, 160, 640, 1000]);
    // The exact scan runs inside a savepoint, so the setting that forces it is undone for the rest of the read.
    const exact = statements.findIndex((s) => s.includes('GROUP BY c.document_id'));
    expect(statements.slice(exact - 2, exact + 2)).toEqual([
      'SAVEPOINT exact',
      'SET LOCAL enable_indexscan = off',
      expect.stringContaining('ANY(d.types)'),
      'ROLLBACK TO SAVEPOINT exact',
    ]);
  });

  test('the store holds fewer chunks than asked for: what there is, no exact scan', async () => {
    const { client, statements } = fakeClient(() => [{ document_id: 's1', repository_id: '1', types: ['standard'] }]);
    expect([...(await vectorCandidates(client, [basis(0)], 5, 'standard', new Set(['1'])))]).toEqual(['s1']);
    expect(statements.some((s) => s.includes('GROUP BY c.document_id'))).toBe(false);
  });
});

test("a repository whose name and path spell another's document key cannot take its match (issue 47): the first colon ends the name", async () => {
  const { distinctKeys } = await import('../../src/work-memory/org/open.js');
  // A self-hosted remote keeps its port in the name (`git.example.com:8443/team/web`), so a name may hold a colon.
  const alice = fetched('git.example.com:8443/team/web', 'docs/adr/0001.md', 'use postgres', [basis(1)]);
  const mallory = fetched('git.example.com', '8443/team/web:docs/adr/0001.md', 'use mongo', [basis(2)]);
  const other = fetched('git.example.com:8443/team/api', 'docs/adr/0001.md', 'use redis', [basis(3)]);
  expect(foreignKey(alice.repository, alice.path)).toBe('git.example.com%3A8443/team/web:docs/adr/0001.md');
  expect(foreignKey(alice.repository, alice.path)).not.toBe(foreignKey(mallory.repository, mallory.path));
  // Before, both were left out ("one name for documents of …"): Alice's match was gone. Now each stands as itself.
  const r = distinctKeys([mallory, alice, other]);
  expect(r.docs).toEqual([mallory, alice, other]);
  expect(r.ambiguous).toEqual([]);
});

test("a teammate's repository named `github` cannot replace this repository's own `github:issue/7`", async () => {
  const { distinctKeys } = await import('../../src/work-memory/org/open.js');
  const forged = fetched('github', 'issue/7', 'anything', [basis(1)]);
  const r = distinctKeys([forged], (key) => key === 'github:issue/7');
  expect(r.docs).toEqual([]);
  expect(r.ambiguous).toEqual([
    'team store: skipped github:issue/7: one name for documents of this repository and github',
  ]);
});

describe("lexicalCandidates: each repository's weightiest terms within the postings budget, planned through the terms index", () => {
  function fakeClient(fail = false) {
    const statements: Array<{ text: string; params: unknown[] }> = [];
    const client = {
      query: async (text: string, params: unknown[] = []) => {
        statements.push({ text: text.replace(/\s+/g, ' ').trim(), params });
        if (text.includes('FROM document_terms t')) {
          if (fail) throw new Error('canceling statement due to statement timeout');
          return { rows: [{ document_id: '7' }, { document_id: '3' }] };
        }
        return { rows: [] };
      },
    };
    return { client: client as unknown as TeamStoreClient, statements };
  }
  const term = (repository: string, t: string, idf: number, df: number, weight = idf / 10) => ({
    repository,
    term: t,
    idf,
    df,
    weight,
    avgLen: 40,
  });
  const weighted = [
    term('1', 'common', 0.1, LEXICAL_POSTINGS_BUDGET - 10),
    term('1', 'rare', 5, 12),
    term('2', 'middling', 2, 20_000),
    term('1', 'nowhere', 0, 0),
  ];

  test('weightiest first until the budget: the commonest term is left to the client, and the index is told the terms (= ANY)', async () => {
    const { client, statements } = fakeClient();
    expect([...(await lexicalCandidates(client, weighted, 20))]).toEqual(['7', '3']);
    const q = statements.find((s) => s.text.includes('FROM document_terms t'))!;
    expect(q.params.slice(0, 4)).toEqual([
      ['rare', 'middling'],
      ['1', '2'],
      [0.5, 0.2],
      [40, 40],
    ]);
    expect(q.params[7]).toEqual(['rare', 'middling']);
    expect(q.text).toContain('WHERE t.term = ANY($8::text[])');
    // Nested loops off for this statement alone: one document lookup per posting cost more than the scan it replaced.
    expect(statements.map((s) => s.text.split(' ').slice(0, 3).join(' '))).toEqual([
      'SAVEPOINT lexical',
      'SET LOCAL enable_nestloop',
      'SET LOCAL enable_mergejoin',
      'WITH p AS',
      'ROLLBACK TO SAVEPOINT',
    ]);
  });

  test("a term made common in one repository keeps its weight in the others: each posting counts by its own repository's", async () => {
    const { client, statements } = fakeClient();
    const flood = term('9', 'redis', 0.05, 20_000, 0.001);
    await lexicalCandidates(client, [flood, term('1', 'redis', 6, 3, 0.6), term('1', 'queue', 3, 40, 0.3)], 20);
    const q = statements.find((s) => s.text.includes('FROM document_terms t'))!;
    expect(q.params.slice(0, 3)).toEqual([
      ['redis', 'redis', 'queue'],
      ['9', '1', '1'],
      [0.001, 0.6, 0.3],
    ]);
    expect(q.params[7]).toEqual(['redis', 'queue']);
    expect(q.text).toContain('ON q.term = p.term AND q.repository_id = p.repository_id');
    expect(q.params[8]).toEqual(['9', '1']);
  });

  test('a few postings: the planner keeps its nested loop (one lookup each is the cheaper plan there)', async () => {
    const { client, statements } = fakeClient();
    await lexicalCandidates(client, [weighted[1], term('1', 'scarce', 4, 30)], 20);
    expect(statements.some((s) => s.text.includes('enable_nestloop'))).toBe(false);
    // Postings are still matched to their weights by hashing, never by sorting them on their text.
    expect(statements.map((s) => s.text.split(' ').slice(0, 3).join(' '))).toEqual([
      'SAVEPOINT lexical',
      'SET LOCAL enable_mergejoin',
      'WITH p AS',
      'ROLLBACK TO SAVEPOINT',
    ]);
  });

  test('a statement that fails still gives the setting back before the error reaches the caller', async () => {
    const { client, statements } = fakeClient(true);
    await expect(lexicalCandidates(client, weighted, 20)).rejects.toThrow('statement timeout');
    expect(statements[statements.length - 1].text).toBe('ROLLBACK TO SAVEPOINT lexical');
  });

  test('no usable term: no statement at all', async () => {
    const { client, statements } = fakeClient();
    expect((await lexicalCandidates(client, [weighted[3]], 20)).size).toBe(0);
    expect((await lexicalCandidates(client, [], 20)).size).toBe(0);
    expect(statements).toHaveLength(0);
  });
});

describe('repositoryTerms: the brief as each repository weighs it', () => {
  const repo = (id: string, docs: number): OrgRepository => ({
    id,
    name: `acme/${id}`,
    docs,
    historyDocs: docs,
    standardDocs: 0,
    lexicalLen: docs * 20,
  });
  test("IDF by the repository's own counts; the weights of the brief's terms there sum to at most 1", () => {
    const dfs = new Map([
      [
        '1',
        new Map([
          ['redis', 2],
          ['queue', 10],
        ]),
      ],
      ['2', new Map([['redis', 5000]])],
    ]);
    const out = repositoryTerms([repo('1', 100), repo('2', 5000)], dfs, ['redis', 'queue', 'retry']);
    expect(out.map((t) => `${t.repository}:${t.term}`)).toEqual(['1:redis', '1:queue', '2:redis']);
    // A term in every document of a repository weighs next to nothing there.
    expect(out[2].weight).toBeLessThan(0.001);
    const one = out.filter((t) => t.repository === '1');
    expect(one[0].idf).toBeCloseTo(Math.log(1 + (100 - 2 + 0.5) / 2.5), 12);
    expect(one.reduce((n, t) => n + t.weight, 0)).toBeLessThan(1);
  });
});
