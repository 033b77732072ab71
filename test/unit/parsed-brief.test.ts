/** A brief is read once into one value that every step of a check reads (issue 49, item 7). */
import { parseBrief } from '../../src/work-memory/check/parsed-brief.js';
import { MAX_CHECK_CHARS } from '../../src/work-memory/check/brief-limit.js';
import { namedStandards } from '../../src/work-memory/corpus/citations.js';

const BRIEF = [
  '---',
  'title: Retry the crawler on 429',
  'issue: 19',
  '---',
  '# Issue #19: Retry the crawler',
  '',
  'The crawler gives up on HTTP 429. Follows ADR-0007. Related: #22.',
].join('\n');

test('title, body, the issue it states, the work it names and the standards it cites, from one parse', () => {
  const b = parseBrief(BRIEF);
  expect(b.title).toBe('Retry the crawler on 429');
  expect(b.body.startsWith('# Issue #19: Retry the crawler')).toBe(true);
  expect(b.body).not.toContain('issue: 19');
  expect(b.relations.own).toBe('19');
  expect([...b.relations.related]).toEqual(['22']);
  const docs = [
    { filePath: 'docs/adrs/0007-use-postgres.md', documentType: 'adr' as const },
    { filePath: 'docs/adrs/0008-use-redis.md', documentType: 'adr' as const },
  ];
  expect(namedStandards(b.citations, docs)).toEqual(['docs/adrs/0007-use-postgres.md']);
  expect(b.limitNote).toBeNull();
  expect(b.ownIssue).toBeUndefined();
});

test("the caller's issue wins over the one the text states, normalised; the text's own says nothing then", () => {
  const b = parseBrief('# #12 follow-up: Windows support\n\nThe same on Windows.', { ownIssue: '0050' });
  expect(b.relations.own).toBe('50');
  expect(b.ownIssue).toBe('0050');
  expect(parseBrief('# #12 follow-up: Windows support\n').relations.own).toBe('12');
});

test('a long brief is cut once, said once; what it cites at its end is still read', () => {
  const text = `# Long\n\n${'words and more words\n'.repeat(MAX_CHECK_CHARS / 10)}Follows ADR-0008.\n`;
  const b = parseBrief(text);
  expect(b.text.length).toBeLessThanOrEqual(MAX_CHECK_CHARS);
  expect(b.limitNote).toMatch(/the rest was not compared/);
  expect(namedStandards(b.citations, [{ filePath: 'docs/adrs/0008-x.md', documentType: 'adr' }])).toEqual([
    'docs/adrs/0008-x.md',
  ]);
  // Whole (eval, search): nothing cut.
  expect(parseBrief(text, { whole: true }).text).toBe(text);
});

test("the issue a brief states is read as an indexed document's is: after a tool's wrapper header", () => {
  // Before the brief was read once, its own issue came from the wrapper's heading ("LLD Finalized"): none. Now it is
  // the rule corpus/metadata.ts applies to the documents it is compared with (statedIssueId after the wrapper).
  const wrapped =
    '# LLD Finalized\n\nPath: docs/lld/active/19-x.md\nStatus: APPROVED\n\n---\n\n# Issue #19: Retry the crawler\n\nBody.\n';
  expect(parseBrief(wrapped).relations.own).toBe('19');
  expect(parseBrief(wrapped).title).toBe('Retry the crawler');
});
