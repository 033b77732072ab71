import {
  approxTokens,
  chunkMarkdown,
  splitToBudget,
  type Chunk,
  type ChunkOptions,
} from '../../src/work-memory/chunks/chunk.js';

const opts = (maxTokens = 256, minTokens = 8): ChunkOptions => ({ maxTokens, minTokens, countTokens: approxTokens });
const words = (n: number, w = 'word') =>
  Array.from({ length: n }, (_, i) => `${w}${String.fromCharCode(97 + (i % 26))}`).join(' ');
const para = (label: string, n = 30) => `${label} ${words(n)}.`;

/** The prefix chunkMarkdown puts before the text: the title, then the section when it differs. */
const prefixOf = (c: Chunk, title: string) => (c.section === title ? title : `${title} — ${c.section}`);

function expectWithinBudget(chunks: Chunk[], title: string, maxTokens: number) {
  for (const c of chunks) {
    const budget = Math.max(16, maxTokens - approxTokens(prefixOf(c, title)));
    expect(approxTokens(c.text)).toBeLessThanOrEqual(budget);
    expect(approxTokens(c.embedText)).toBeLessThanOrEqual(
      Math.max(maxTokens, budget + approxTokens(prefixOf(c, title))),
    );
  }
}

describe('approxTokens', () => {
  test('counts words, numbers and punctuation, with a 15% margin', () => {
    expect(approxTokens('')).toBe(0);
    expect(approxTokens('   \n ')).toBe(0);
    expect(approxTokens('hello')).toBe(2); // ceil(1.15)
    expect(approxTokens('hello world, 42!')).toBe(Math.ceil(5 * 1.15));
    expect(approxTokens(words(100))).toBe(115);
  });
});

describe('sections', () => {
  const body = [
    '# Doc',
    '',
    para('Intro'),
    '',
    '## Background',
    '',
    para('Background'),
    '',
    '### Detail',
    '',
    para('Detail'),
    '',
    '## Plan',
    '',
    para('Plan'),
  ].join('\n');

  test('H1 and H2 start chunks; H3 stays inside its parent', () => {
    const chunks = chunkMarkdown(body, 'Doc', opts());
    expect(chunks.map((c) => c.section)).toEqual(['Doc', 'Background', 'Plan']);
    expect(chunks[0].text.startsWith('# Doc')).toBe(true);
    expect(chunks[1].text).toContain('### Detail');
    expect(chunks[1].text).toContain('Detail worda');
    expect(chunks[1].text).not.toContain('## Plan');
    expect(chunks[2].text.startsWith('## Plan')).toBe(true);
  });

  test('no text is lost or duplicated across chunks', () => {
    const chunks = chunkMarkdown(body, 'Doc', opts());
    expect(chunks.map((c) => c.text).join('\n\n')).toBe(body);
  });

  test('headings inside code fences do not split', () => {
    const fenced = [
      '## Setup',
      '',
      para('Setup'),
      '',
      '```sh',
      '# install it',
      'npm ci',
      '## not a heading',
      '```',
      '',
      '~~~',
      '# nor this',
      '~~~',
      '',
      para('After'),
    ].join('\n');
    const chunks = chunkMarkdown(fenced, 'Doc', opts());
    expect(chunks).toHaveLength(1);
    expect(chunks[0].section).toBe('Setup');
    expect(chunks[0].text).toContain('# install it');
    expect(chunks[0].text).toContain('## not a heading');
    expect(chunks[0].text).toContain('After worda');
  });

  test('trailing hashes and extra spaces are trimmed from the section title', () => {
    const chunks = chunkMarkdown(`##   Closing heading  ##\n\n${para('Text')}`, 'Doc', opts());
    expect(chunks[0].section).toBe('Closing heading');
  });

  test('a preamble before the first heading is titled with the document title', () => {
    const chunks = chunkMarkdown(`${para('Preamble')}\n\n## Next\n\n${para('Next')}`, 'My Doc', opts());
    expect(chunks.map((c) => c.section)).toEqual(['My Doc', 'Next']);
    expect(chunks[0].embedText.startsWith('My Doc\n\nPreamble')).toBe(true);
  });
});

describe('merging tiny sections', () => {
  test('a section under minTokens is merged forward into the next one', () => {
    const body = `## Tiny\n\nok\n\n## Real\n\n${para('Real')}`;
    const chunks = chunkMarkdown(body, 'Doc', opts(256, 10));
    expect(chunks).toHaveLength(1);
    expect(chunks[0].section).toBe('Tiny');
    expect(chunks[0].text).toContain('## Tiny');
    expect(chunks[0].text).toContain('## Real');
  });

  test('a bare H1 title is merged into the section that follows', () => {
    const chunks = chunkMarkdown(`# Doc\n\n## Goal\n\n${para('Goal')}\n\n## Plan\n\n${para('Plan')}`, 'Doc', opts());
    expect(chunks.map((c) => c.section)).toEqual(['Doc', 'Plan']);
    expect(chunks[0].text).toMatch(/^# Doc\n\n## Goal\n\nGoal/);
  });

  test('several tiny sections in a row accumulate until they reach minTokens', () => {
    const body = `## A\n\none\n\n## B\n\ntwo\n\n## C\n\n${para('Cee')}`;
    const chunks = chunkMarkdown(body, 'Doc', opts(256, 12));
    expect(chunks).toHaveLength(1);
    expect(chunks[0].section).toBe('A');
    expect(chunks[0].text).toMatch(/## A[\s\S]*## B[\s\S]*## C/);
  });

  test('a tiny last section is appended to the previous chunk', () => {
    const chunks = chunkMarkdown(`## Main\n\n${para('Main')}\n\n## End\n\nbye`, 'Doc', opts(256, 8));
    expect(chunks).toHaveLength(1);
    expect(chunks[0].section).toBe('Main');
    expect(chunks[0].text.endsWith('## End\n\nbye')).toBe(true);
  });

  test('a document that is only tiny sections still gives one chunk', () => {
    const chunks = chunkMarkdown('# T\n\nhi', 'T', opts(256, 50));
    expect(chunks).toHaveLength(1);
    expect(chunks[0].text).toBe('# T\n\nhi');
  });
});

describe('splitting long sections', () => {
  const paragraphs = Array.from({ length: 12 }, (_, i) => para(`P${i}`, 30));
  const body = `## Background\n\n${paragraphs.join('\n\n')}`;

  test('splits on paragraph boundaries, no chunk over the budget', () => {
    const chunks = chunkMarkdown(body, 'Doc', opts(100));
    expect(chunks.length).toBeGreaterThan(3);
    expectWithinBudget(chunks, 'Doc', 100);
    const allowed = new Set(['## Background', ...paragraphs]);
    for (const c of chunks) for (const p of c.text.split('\n\n')) expect(allowed.has(p)).toBe(true);
    // Every paragraph appears exactly once, in order.
    const seen = chunks.flatMap((c) => c.text.split('\n\n')).filter((p) => p !== '## Background');
    expect(seen).toEqual(paragraphs);
  });

  test('each piece keeps its section title, and embedText its prefix', () => {
    const chunks = chunkMarkdown(body, 'Doc', opts(100));
    for (const c of chunks) {
      expect(c.section).toBe('Background');
      expect(c.embedText.startsWith('Doc — Background\n\n')).toBe(true);
    }
  });

  test('a single huge paragraph with no blank lines or newlines is still split under budget', () => {
    const huge = words(2000);
    const chunks = chunkMarkdown(`## Wall\n\n${huge}`, 'Doc', opts(128));
    expect(chunks.length).toBeGreaterThan(10);
    expectWithinBudget(chunks, 'Doc', 128);
    expect(chunks.every((c) => c.section === 'Wall')).toBe(true);
    expect(chunks.map((c) => c.text).join(' ')).toBe(huge);
  });

  test('a heading left alone by an oversized first paragraph is not a chunk of its own', () => {
    const list = Array.from({ length: 40 }, (_, i) => `${i + 1}. criterion ${words(5)}`).join('\n');
    const chunks = chunkMarkdown(`## Acceptance criteria\n\n${list}`, 'Doc', opts(100));
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.section).toBe('Acceptance criteria');
      expect(c.text).toMatch(/^\d+\. criterion/);
      expect(c.embedText).toMatch(/^Doc — Acceptance criteria\n\n\d+\. criterion/);
    }
  });

  test('a long block of lines with no blank lines is split by lines', () => {
    const lines = Array.from({ length: 60 }, (_, i) => `- item ${i} ${words(8)}`);
    const chunks = chunkMarkdown(`## List\n${lines.join('\n')}`, 'Doc', opts(100));
    expect(chunks.length).toBeGreaterThan(1);
    expectWithinBudget(chunks, 'Doc', 100);
    const got = chunks.flatMap((c) => c.text.split('\n')).filter((l) => l.startsWith('- item'));
    expect(got).toEqual(lines);
  });

  test('a long single line of sentences is split between sentences', () => {
    const sentences = Array.from({ length: 40 }, (_, i) => `Sentence ${i} says ${words(6)}.`);
    const pieces = splitToBudget(sentences.join(' '), 60, approxTokens);
    expect(pieces.length).toBeGreaterThan(1);
    for (const p of pieces) {
      expect(approxTokens(p)).toBeLessThanOrEqual(60);
      expect(p).toMatch(/^Sentence \d+ says/);
      expect(p.endsWith('.')).toBe(true);
    }
  });

  test('splitToBudget returns text within budget unchanged', () => {
    expect(splitToBudget('short text', 10, approxTokens)).toEqual(['short text']);
  });

  test('a very long title still leaves a minimum budget of 16 tokens', () => {
    const title = words(300);
    const chunks = chunkMarkdown(`## S\n\n${words(100)}`, title, opts(64));
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(approxTokens(c.text)).toBeLessThanOrEqual(16);
  });
});

describe('embedText', () => {
  test('starts with the document title, then the section, and does not repeat the heading', () => {
    const chunks = chunkMarkdown(
      `# Cache plan\n\n${para('Intro')}\n\n## Risks\n\n${para('Risks')}`,
      'Cache plan',
      opts(),
    );
    expect(chunks[0].embedText).toBe(`Cache plan\n\n${para('Intro')}`);
    expect(chunks[1].embedText).toBe(`Cache plan — Risks\n\n${para('Risks')}`);
    expect(chunks[1].text).toBe(`## Risks\n\n${para('Risks')}`);
  });

  test('a heading-only chunk keeps its heading in embedText', () => {
    const chunks = chunkMarkdown('## Lonely', 'Doc', opts(256, 0));
    expect(chunks).toEqual([{ section: 'Lonely', text: '## Lonely', embedText: 'Doc — Lonely\n\n## Lonely' }]);
  });
});

describe('empty input', () => {
  test.each(['', '\n\n', '   \n\t\n'])('%p -> no chunks', (body) => {
    expect(chunkMarkdown(body, 'Doc', opts())).toEqual([]);
  });
});
