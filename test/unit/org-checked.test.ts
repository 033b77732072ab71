/** Rows read from the team store are input (issue 30, src/work-memory/org/checked.ts). */
import { checkedMetadata, count, vectorProblem } from '../../src/work-memory/org/checked.js';

const row = (metadata: unknown, over: Record<string, unknown> = {}) => ({
  repository: 'acme/web',
  path: 'docs/a.md',
  types: ['history'],
  metadata,
  lexical_len: 12,
  ...over,
});
const good = {
  title: 'Cache Docker layers',
  documentType: 'issue',
  issueId: '27',
  summary: 'Builds take 14 minutes.',
  status: 'done',
  statusReason: null,
  contentHash: 'abc',
};

test('metadata as the index writes it comes back whole; what the index may omit defaults as it would', () => {
  expect(checkedMetadata(row(good))).toEqual({
    metadata: {
      filePath: 'docs/a.md',
      types: ['history'],
      documentType: 'issue',
      issueId: '27',
      title: 'Cache Docker layers',
      summary: 'Builds take 14 minutes.',
      status: 'done',
      statusReason: null,
      contentHash: 'abc',
    },
  });
  expect(checkedMetadata(row({ ...good, ownIssue: '27' }))).toMatchObject({ metadata: { ownIssue: '27' } });
  const lean = checkedMetadata(row({ title: 'T', documentType: 'adr' }, { types: ['standard'] }));
  expect(lean).toMatchObject({ metadata: { issueId: null, summary: '', status: null, statusReason: null } });
  // A megabyte title is cut as the local index cuts it, not a reason to fail.
  expect(
    (checkedMetadata(row({ ...good, title: 'x'.repeat(1_000_000) })) as { metadata: { title: string } }).metadata.title,
  ).toHaveLength(200);
});

test('each way a row can be wrong is one named problem', () => {
  const problem = (m: unknown, over?: Record<string, unknown>) =>
    (checkedMetadata(row(m, over)) as { problem?: string }).problem;
  expect(problem({ ...good, title: undefined })).toBe('metadata has no title');
  expect(problem({ ...good, title: { $gt: '' } })).toBe('metadata has no title');
  expect(problem({ ...good, documentType: 'virus' })).toBe('metadata has no known documentType');
  expect(problem({ ...good, issueId: 12 })).toBe('metadata issueId is not text');
  expect(problem({ ...good, summary: ['a'] })).toBe('metadata summary is not text');
  expect(problem({ ...good, status: 'pwned' })).toBe('metadata status is not a known status');
  expect(problem({ ...good, related: 'everything' })).toBe('metadata related is not a list of ids');
  expect(problem({ ...good, ownIssue: 19 })).toBe('metadata ownIssue is not an issue number');
  expect(problem({ ...good, ownIssue: '19; DROP' })).toBe('metadata ownIssue is not an issue number');
  expect(problem('a string')).toBe('metadata is not an object');
  expect(problem(good, { types: ['history', 'secrets'] })).toBe('types is not a list of history/standard');
  // An origin of the wrong shape is dropped, the document kept.
  expect(checkedMetadata(row({ ...good, origin: { source: 'git', url: 'javascript:alert(1)' } }))).not.toHaveProperty(
    'metadata.origin',
  );
});

test('counts are non-negative safe integers (bigint text included); anything else is not a count', () => {
  expect([count(0), count(12), count('9007199254740991'), count('12')]).toEqual([0, 12, null, 12]);
  expect([count(-1), count(1.5), count(Number.NaN), count(Infinity), count('1e3'), count(null)]).toEqual([
    null,
    null,
    null,
    null,
    null,
    null,
  ]);
});

test("a vector must have the model's dimension, finite values and unit length", () => {
  const unit = new Float32Array(4).fill(0.5);
  expect(vectorProblem(unit, 4)).toBeNull();
  expect(
    vectorProblem(
      unit.map((x) => x * 50),
      4,
    ),
  ).toBe('a vector of length 50.00, not 1');
  expect(vectorProblem(new Float32Array(3).fill(1 / Math.sqrt(3)), 4)).toBe('a vector of 3 values, not 4');
  expect(vectorProblem(Float32Array.from([Number.NaN, 0, 0, 1]), 4)).toBe('a vector with a value that is not a number');
});
