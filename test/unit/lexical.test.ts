/** The lexical side of scoring (issue 11): tokenizer, BM25, boilerplate detection, the stored file. */
import { Bm25Index } from '../../src/work-memory/lexical/bm25.js';
import { buildLexical, lexicalTokens, readLexical } from '../../src/work-memory/lexical/file.js';
import { detectTemplates, minDocsFor, stripTemplates } from '../../src/work-memory/lexical/templates.js';
import { isIdentifier, termCounts, tokenize } from '../../src/work-memory/lexical/tokenize.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const doc = (p: string, text: string) => {
  const tokens = tokenize(text);
  return { path: p, len: tokens.length, tf: termCounts(tokens) };
};

describe('tokenize: identifiers whole and split', () => {
  it.each([
    ['Use spotbugs-maven-plugin instead', ['spotbugs-maven-plugin', 'spotbugs', 'maven', 'plugin']],
    [
      'ITestAbfsRestOperationException fails',
      ['itestabfsrestoperationexception', 'test', 'abfs', 'rest', 'operation', 'exception'],
    ],
    ['netty 4.1.46.', ['4.1.46', '4', '1', '46']],
    ['fix CVE-2019-20444 now', ['cve-2019-20444', 'cve', '2019', '20444']],
    ['see src/work-memory/index/build.ts', ['src/work-memory/index/build.ts', 'src', 'index', 'build', 'ts']],
  ])('%s', (text, expected) => {
    const tokens = tokenize(text);
    for (const t of expected) expect(tokens).toContain(t);
  });

  it('drops function words and lowercases plain words', () => {
    expect(tokenize('The Cache of the API')).toEqual(['cache', 'api']);
  });

  it('knows an identifier from a plain word', () => {
    expect(isIdentifier('HttpClient')).toBe(true);
    expect(isIdentifier('v2')).toBe(true);
    expect(isIdentifier('a.b')).toBe(true);
    expect(isIdentifier('cache')).toBe(false);
    expect(isIdentifier('API')).toBe(false);
  });

  it('does not keep a huge blob whole', () => {
    const blob = 'a1'.repeat(50);
    expect(tokenize(blob)).not.toContain(blob);
  });
});

describe('BM25', () => {
  const docs = [
    doc('a.md', 'Use spotbugs-maven-plugin instead of findbugs-maven-plugin in the build'),
    doc('b.md', 'Dark mode for the dashboard with a theme toggle'),
    doc('c.md', 'Upgrade netty to 4.1.46 to fix CVE-2019-20444 in the http codec'),
    doc('d.md', 'Rate limiting for the public API per client'),
  ];
  const index = new Bm25Index(docs);

  it('ranks the document sharing the rare identifiers first', () => {
    const hits = index.search(tokenize('Use spotbugs instead of findbugs'));
    expect(hits[0].path).toBe('a.md');
    expect(index.search(tokenize('netty CVE-2019-20444'))[0].path).toBe('c.md');
  });

  it('normalises per query into [0, 1]: the query against a copy of itself scores 1', () => {
    const copy = new Bm25Index([...docs, doc('e.md', 'Rate limiting for the public API per client')]);
    const hit = copy.scoreDoc(tokenize('Rate limiting for the public API per client'), 'e.md')!;
    expect(hit.norm).toBeCloseTo(1, 5);
    const other = copy.scoreDoc(tokenize('Rate limiting for the public API per client'), 'b.md')!;
    expect(other.norm).toBe(0);
    for (const h of copy.search(tokenize('dashboard theme for the API'))) {
      expect(h.norm).toBeGreaterThanOrEqual(0);
      expect(h.norm).toBeLessThanOrEqual(1);
    }
  });

  it('rarer terms weigh more, and shared terms are listed rarest first', () => {
    expect(index.idf('spotbugs')).toBeGreaterThan(0);
    expect(index.idf('nowhere')).toBe(0);
    const hit = index.scoreDoc(tokenize('spotbugs build'), 'a.md')!;
    expect(hit.shared).toEqual(expect.arrayContaining(['spotbugs', 'build']));
  });

  it('returns nothing for a document it does not hold', () => {
    expect(index.scoreDoc(['x'], 'zzz.md')).toBeNull();
    expect(index.search(['unknownterm'])).toEqual([]);
  });
});

describe('template detection', () => {
  const boiler = 'Steps to reproduce the problem are listed below for the triage team';
  const texts = Array.from(
    { length: 10 },
    (_, i) => `${boiler}. Report ${i}: the widget${i} crashes when opening file${i}`,
  );

  it('finds text shared by many documents, not text shared by two', () => {
    const set = detectTemplates([...texts, 'unique words about caching layers', 'unique words about caching layers']);
    expect(set.minDocs).toBe(minDocsFor(12));
    expect(set.examples[0].docs).toBe(10);
    expect(set.examples.map((e) => e.text).join(' ')).toMatch(/steps to reproduce/);
    expect(stripTemplates('unique words about caching layers', set).share).toBe(0);
  });

  it('strips the boilerplate from a text and says how much it was', () => {
    const set = detectTemplates(texts);
    const s = stripTemplates(texts[3], set);
    expect(s.text).not.toMatch(/triage/);
    expect(s.text).toMatch(/widget3/);
    expect(s.share).toBeGreaterThan(0.5);
  });

  it('two reports sharing only the template do not match lexically', () => {
    const { data } = buildLexical(texts.map((t, i) => ({ path: `${i}.md`, text: t })));
    const q = lexicalTokens(`${boiler}. The printer dialog hangs`, data.templates);
    expect(q).not.toContain('triage');
    expect(data.bm25.search(q)).toEqual([]);
  });

  it('a small corpus never calls a pair of documents a template', () => {
    expect(minDocsFor(3)).toBe(4);
    expect(detectTemplates(['same text here for all of them', 'same text here for all of them']).hashes.size).toBe(0);
  });
});

describe('lexical.json', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(path.join(os.tmpdir(), 'agentos-lex-'))));
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('round-trips and scores the same after reading', async () => {
    const built = buildLexical([
      { path: 'a.md', text: 'Use spotbugs-maven-plugin instead of findbugs' },
      { path: 'b.md', text: 'Dark mode for the dashboard' },
    ]);
    const file = path.join(dir, 'lexical.json');
    await writeFile(file, built.buffer);
    const read = readLexical(file);
    const q = tokenize('spotbugs plugin');
    expect(read.bm25.search(q)).toEqual(built.data.bm25.search(q));
  });

  it('rejects a file whose checksum does not match', async () => {
    const file = path.join(dir, 'lexical.json');
    await writeFile(file, buildLexical([{ path: 'a.md', text: 'x y z' }]).buffer);
    expect(() => readLexical(file, '0'.repeat(64))).toThrow(/truncated or corrupt/);
  });
});
