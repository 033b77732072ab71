// The org view (src/work-memory/org/org-view.ts) without a server: this repository's
// index plus documents fetched from other repositories must weigh terms and count
// documents as one index holding every document of the organisation would.
import { Bm25Index, type LexicalDoc } from '../../src/work-memory/lexical/bm25.js';
import { termCounts } from '../../src/work-memory/lexical/tokenize.js';
import { ForeignDocs, OrgIndex, foreignKey, orgCorpusStats, orgLexical } from '../../src/work-memory/org/org-view.js';
import type { FetchedDoc, OrgRepository } from '../../src/work-memory/org/fetch.js';
import { LEXICAL_POSTINGS_BUDGET, lexicalCandidates, vectorCandidates } from '../../src/work-memory/org/fetch.js';
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

describe('orgLexical: BM25 weighed over the whole organisation', () => {
  const localDocs = [doc('a.md', 'redis queue retry budget'), doc('b.md', 'logging json correlation')];
  // The other repositories hold more than was fetched: their statistics count all of it.
  const theirs = [
    doc('c.md', 'redis streams consumer'),
    doc('d.md', 'redis queue backoff retry'),
    doc('e.md', 'css layout grid'),
  ];
  const repos: OrgRepository[] = [
    {
      id: '1',
      name: 'acme/web',
      docs: 3,
      historyDocs: 3,
      standardDocs: 0,
      lexicalLen: theirs.reduce((n, d) => n + d.len, 0),
    },
  ];
  const orgDf = new Map<string, number>();
  for (const d of theirs) for (const t of d.tf.keys()) orgDf.set(t, (orgDf.get(t) ?? 0) + 1);
  const everything = new Bm25Index([
    ...localDocs,
    ...theirs.map((d) => ({ ...d, path: foreignKey('acme/web', d.path) })),
  ]);
  const local = new Bm25Index(localDocs);
  const view = orgLexical(
    { bm25: local, templates: { shingle: 8, minDocs: 3, docs: 2, hashes: new Set(), examples: [] } },
    [fetched('acme/web', 'd.md', 'redis queue backoff retry', [])],
    orgCorpusStats(local, repos, orgDf),
  );

  test('idf, document share and collection size equal those of one index over every document', () => {
    expect(view.bm25.docCount).toBe(5);
    for (const term of ['redis', 'queue', 'retry', 'css', 'logging', 'unseen']) {
      expect(view.bm25.idf(term)).toBeCloseTo(everything.idf(term), 12);
      expect(view.bm25.docShare(term)).toBeCloseTo(everything.docShare(term), 12);
    }
  });

  test('a fetched document and a local one score as they would in the one index', () => {
    const query = ['redis', 'queue', 'retry'];
    for (const p of ['a.md', foreignKey('acme/web', 'd.md')]) {
      expect(view.bm25.scoreDoc(query, p)!.bm25).toBeCloseTo(everything.scoreDoc(query, p)!.bm25, 12);
      expect(view.bm25.scoreDoc(query, p)!.norm).toBeCloseTo(everything.scoreDoc(query, p)!.norm, 12);
    }
    // Documents not fetched are counted, never returned.
    const held = new Set(['a.md', foreignKey('acme/web', 'd.md')]);
    expect(view.bm25.search(query).map((h) => h.path)).toEqual(
      everything
        .search(query)
        .map((h) => h.path)
        .filter((p) => held.has(p)),
    );
  });
});

describe('OrgIndex: the local index and fetched documents as one store', () => {
  const local = new InMemoryIndex([historyDoc(0, { score: 0.6 }), standardDoc(0, { score: 0.5 })]);
  const foreign = new ForeignDocs([
    fetched('acme/web', 'docs/issues/12.md', 'x', [basis(0), basis(1)]),
    fetched('acme/api', 'adr.md', 'y', [basis(2)], ['standard']),
  ]);
  const index = new OrgIndex(local, foreign, { all: 40, history: 30, standard: 10 });

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

describe('lexicalCandidates: the rarest terms within the postings budget, planned through the terms index', () => {
  function fakeClient(fail = false) {
    const statements: Array<{ text: string; params: unknown[] }> = [];
    const client = {
      query: async (text: string, params: unknown[] = []) => {
        statements.push({ text: text.replace(/\s+/g, ' ').trim(), params });
        if (text.includes('JOIN document_terms t')) {
          if (fail) throw new Error('canceling statement due to statement timeout');
          return { rows: [{ document_id: '7' }, { document_id: '3' }] };
        }
        return { rows: [] };
      },
    };
    return { client: client as unknown as TeamStoreClient, statements };
  }
  const weighted = [
    { term: 'common', idf: 0.1, df: LEXICAL_POSTINGS_BUDGET - 10 },
    { term: 'rare', idf: 5, df: 12 },
    { term: 'middling', idf: 2, df: 20_000 },
    { term: 'nowhere', idf: 0, df: 0 },
  ];

  test('rarest first until the budget: the commonest term is left to the client, and the index is told the terms (= ANY)', async () => {
    const { client, statements } = fakeClient();
    expect([...(await lexicalCandidates(client, weighted, 50, 20, ['1', '2']))]).toEqual(['7', '3']);
    const q = statements.find((s) => s.text.includes('JOIN document_terms t'))!;
    expect(q.params[0]).toEqual(['rare', 'middling']);
    expect(q.params[1]).toEqual([5, 2]);
    expect(q.text).toContain('WHERE t.term = ANY($1::text[])');
    // Nested loops off for this statement alone: one document lookup per posting cost more than the scan it replaced.
    expect(statements.map((s) => s.text.split(' ').slice(0, 3).join(' '))).toEqual([
      'SAVEPOINT lexical',
      'SET LOCAL enable_nestloop',
      'SELECT t.document_id, sum(q.idf',
      'ROLLBACK TO SAVEPOINT',
    ]);
  });

  test('a few postings: the planner keeps its nested loop (one lookup each is the cheaper plan there)', async () => {
    const { client, statements } = fakeClient();
    await lexicalCandidates(client, [weighted[1], { term: 'scarce', idf: 4, df: 30 }], 50, 20, ['1']);
    expect(statements.some((s) => s.text.includes('enable_nestloop'))).toBe(false);
    expect(statements.map((s) => s.text.split(' ')[0])).toEqual(['SAVEPOINT', 'SELECT', 'ROLLBACK']);
  });

  test('a statement that fails still gives the setting back before the error reaches the caller', async () => {
    const { client, statements } = fakeClient(true);
    await expect(lexicalCandidates(client, weighted, 50, 20, ['1'])).rejects.toThrow('statement timeout');
    expect(statements[statements.length - 1].text).toBe('ROLLBACK TO SAVEPOINT lexical');
  });

  test('no usable term or no repository: no statement at all', async () => {
    const { client, statements } = fakeClient();
    expect((await lexicalCandidates(client, [weighted[3]], 50, 20, ['1'])).size).toBe(0);
    expect((await lexicalCandidates(client, weighted, 50, 20, [])).size).toBe(0);
    expect(statements).toHaveLength(0);
  });
});
