/** What a text names as other work (issue 29): relation phrases, related sections, `Issue #N`; never a duplicate, never a list number. */
import { briefRelations, namedRelatedIds, namesAsRelated } from '../../src/work-memory/corpus/relations.js';

test('relation phrases name other work, lists included', () => {
  expect(namedRelatedIds('This depends on #4 and #5, and is blocked by #12.')).toEqual(['4', '5', '12']);
  expect(namedRelatedIds('A follow-up to #0031: the same client, the 529 back-off.')).toEqual(['31']);
  expect(namedRelatedIds('Part of #19. See also #22.')).toEqual(['19', '22']);
});

test('a Related Issues line and a Dependencies section count; a numbered test "#3" outside them does not', () => {
  const text = [
    '* **Related Issues:** #22 (single-repo pipeline), #3 (Repo Scout)',
    '',
    'Test #7 checks the retry.',
    '',
    '## Dependencies',
    '- #5 state database',
    '- #8 scan schema',
    '',
    '## Tests',
    '- #9 is a test number here',
  ].join('\n');
  expect(namedRelatedIds(text)).toEqual(['3', '5', '8', '22']);
});

test('"Issue #5 must be completed first" is a reference; its own id never is', () => {
  expect(namedRelatedIds('# Issue #20: Link detective\n\nIssue #5 must be completed first.', '20')).toEqual(['5']);
});

test('a duplicate, reopen or fix of #N is the same work, not a sibling', () => {
  expect(namedRelatedIds('Related to #4. Duplicate of #7; this reopens #9 and fixes #11. Related: #7')).toEqual(['4']);
});

test('a brief knows its own id from its H1, and names as related what it cites', () => {
  const b = briefRelations('# Issue #19: Batch engine\n\nRelated: #22, #3\n');
  expect(b.own).toBe('19');
  expect([...b.related]).toEqual(['3', '22']);
  expect(namesAsRelated(b, { issueId: '022' })).toBe(true);
  expect(namesAsRelated(b, { issueId: '5', related: ['19'] })).toBe(true);
  expect(namesAsRelated(b, { issueId: '5', related: ['20'] })).toBe(false);
  expect(namesAsRelated(briefRelations('# Retry\n\nNothing cited.'), { issueId: '5', related: ['19'] })).toBe(false);
});
