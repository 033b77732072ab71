/** What a text names as other work (issue 29): relation phrases, related sections, `Issue #N`; never a duplicate, never a list number. */
import { parseBrief } from '../../src/work-memory/check/parsed-brief.js';
import {
  briefRelations,
  declaredIssueId,
  isOwnIssue,
  namedRelatedIds,
  namesAsRelated,
} from '../../src/work-memory/corpus/relations.js';

test('relation phrases name other work, lists included', () => {
  expect(namedRelatedIds('This depends on #4 and #5, and is blocked by #12.')).toEqual(['4', '5', '12']);
  expect(namedRelatedIds('A follow-up to #0031: the same client, the 529 back-off.')).toEqual(['31']);
  expect(namedRelatedIds('Part of #19. See also #22.')).toEqual(['19', '22']);
  // Phrasings of the development histories (complementary to) and of ports and sub-tasks.
  expect(namedRelatedIds('Complementary to #31. The Edge port of #116, ported from #206.')).toEqual([
    '31',
    '116',
    '206',
  ]);
  expect(
    namedRelatedIds('A sub-task of #40, the continuation of #41, the counterpart to #42; a sub task of #43.'),
  ).toEqual(['40', '41', '42', '43']);
  // Not every such word names other work: a port number, a problem that goes on, where a duplicate is tracked.
  expect(namedRelatedIds('Listen on the port of 8080 (#7 asked for it).')).toEqual([]);
  expect(
    namedRelatedIds('The timeout continues (#12). This continues to fail, see #12. Closing, tracked in #12.'),
  ).toEqual([]);
  // A re-filed issue is the same work, whatever tense says so.
  expect(namedRelatedIds('Re-filed #12, ported from #12.')).toEqual([]);
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
  const b = parseBrief('# Issue #19: Batch engine\n\nRelated: #22, #3\n').relations;
  expect(b.own).toBe('19');
  expect([...b.related]).toEqual(['3', '22']);
  expect(namesAsRelated(b, { issueId: '022' })).toBe(true);
  expect(namesAsRelated(b, { issueId: '5', related: ['19'] })).toBe(true);
  expect(namesAsRelated(b, { issueId: '5', related: ['20'] })).toBe(false);
  expect(namesAsRelated(parseBrief('# Retry\n\nNothing cited.').relations, { issueId: '5', related: ['19'] })).toBe(
    false,
  );
});

test('a design asked as a brief knows its own issue from its header field, so the work that names it is its sibling', () => {
  // The head of Aletheia's docs/lld/done/10116-linkedin-oauth.md (public, MIT): the file number is a series of its own.
  const design =
    '# 10116 - Feature: LinkedIn OAuth Authentication\n\n## 1. Context & Goal\n* **Issue:** #116\n* **Related Issues:** #117 (spike), #25 (superseded)\n';
  const b = parseBrief(design).relations;
  expect(b.own).toBe('116');
  expect([...b.related]).toEqual(['25', '117']);
  // Its Firefox port names #116 as related: a sibling, not a copy.
  expect(namesAsRelated(b, { issueId: '206', related: ['116', '214'] })).toBe(true);
  expect(namesAsRelated(b, { issueId: '206', related: ['214'] })).toBe(false);
  // The same order as an indexed document: the header field before the H1.
  expect(parseBrief('# Issue #10116: OAuth\n\nIssue: #116\n').relations.own).toBe('116');
});

test.each([
  ['* **Issue:** #145', '145'],
  ['**Issue**: #0145', '145'],
  ['Issue: [#12](https://github.com/o/r/issues/12)', '12'],
  ['GitHub issue: https://github.com/o/r/issues/77', '77'],
])('declaredIssueId reads the header field %s', (line, id) => {
  expect(declaredIssueId(`# A design\n\n${line}\n\nBody text.`)).toBe(id);
});

test('declaredIssueId: other work, two ids, code, or a field far down say nothing', () => {
  expect(declaredIssueId('# A\n\n* **Related Issues:** #22\n* **Parent issue:** #3\n')).toBeNull();
  expect(declaredIssueId('# A\n\nIssue: #4\n\nIssue: #5\n')).toBeNull();
  expect(declaredIssueId('# A\n\n```\nIssue: #4\n```\n')).toBeNull();
  expect(declaredIssueId('# A\n\nThis issue: #4 is mentioned in passing.\n')).toBeNull();
  // On GitHub a sub-issue names its epic `Tracking issue:`; #0 is no issue.
  expect(declaredIssueId('# A\n\n- Tracking issue: #9\n')).toBeNull();
  expect(declaredIssueId('# A\n\nIssue: #0\n')).toBeNull();
  const far = ['# A', ...Array.from({ length: 45 }, (_, i) => `line ${i}`), 'Issue: #4'].join('\n');
  expect(declaredIssueId(far)).toBeNull();
  expect(declaredIssueId(far.replace('line 3\n', 'Issue: #4\nline 3\n'))).toBe('4');
});

test('declaredIssueId on hostile input: a megabyte line, a URL that never ends, thousands of fields, endless fences: an answer, not a hang', () => {
  expect(declaredIssueId(`Issue: https://${'a/'.repeat(500_000)}`)).toBeNull();
  expect(declaredIssueId(`Issue: #${'9'.repeat(1_000_000)}`)).toBeNull();
  expect(declaredIssueId(Array.from({ length: 10_000 }, (_, i) => `Issue: #${i + 1}`).join('\n'))).toBeNull();
  expect(declaredIssueId(`${'`'.repeat(3)}\n`.repeat(50_000) + 'Issue: #5')).toBeNull();
});

test("isOwnIssue: the brief's stated issue is a file's stated one, one a commit or pull request closes, or GitHub's report of it", () => {
  const brief = parseBrief('# Issue #19: Link checking pipeline\n\nBody.').relations;
  const origin = (o: { kind: string; ref: string; closes?: string[]; source?: string }) => ({
    closes: [],
    source: 'github',
    ...o,
  });
  expect(isOwnIssue(brief, { ownIssue: '19' })).toBe(true);
  expect(isOwnIssue(brief, { ownIssue: '019' })).toBe(true);
  expect(isOwnIssue(brief, { ownIssue: '20' })).toBe(false);
  expect(isOwnIssue(brief, { origin: origin({ kind: 'commit', ref: 'a1b2c3d', closes: ['4', '19'] }) })).toBe(true);
  expect(isOwnIssue(brief, { origin: origin({ kind: 'issue', ref: '19' }) })).toBe(true);
  // Pull request #19 is not issue #19 (one number space on GitHub: it cannot be), nor is BUG-19.
  expect(isOwnIssue(brief, { origin: origin({ kind: 'pull-request', ref: '19' }) })).toBe(false);
  expect(isOwnIssue(brief, { origin: origin({ kind: 'issue', ref: 'BUG-19' }) })).toBe(false);
  // Another tracker's bug 19 is its own series, not the #19 the brief states.
  expect(isOwnIssue(brief, { origin: origin({ kind: 'issue', ref: '19', source: 'tracker' }) })).toBe(false);
  expect(isOwnIssue(brief, { origin: origin({ kind: 'commit', ref: 'a1b2c3d', closes: ['19'], source: 'git' }) })).toBe(
    true,
  );
  expect(isOwnIssue(brief, {})).toBe(false);
  // A brief that states no issue is nobody's.
  expect(isOwnIssue(parseBrief('# Link checking pipeline\n\nFixes the crawler.').relations, { ownIssue: '19' })).toBe(
    false,
  );
});

test('a brief states its issue the way a document does: frontmatter, a header field, an H1 that opens with it', () => {
  expect(parseBrief('---\nrepo: acme/tool\nissue: 19\n---\n# Link checking pipeline\n').relations.own).toBe('19');
  expect(parseBrief('---\nissue: "#0019"\n---\n# Link checking pipeline\n').relations.own).toBe('19');
  // A frontmatter id that is not a number states no number, whatever the H1 says.
  expect(parseBrief('---\nissue: PROJ-7\n---\n# Issue #7: Retry\n').relations.own).toBeNull();
  expect(parseBrief('# #19 - Feature: Batch engine\n').relations.own).toBe('19');
  // A heading that cites another issue is not the brief's own.
  expect(parseBrief('# Follow-up to #19: retry the 529s\n').relations.own).toBeNull();
  expect(parseBrief('# Issue #0: nothing\n').relations.own).toBeNull();
  expect(parseBrief('---\nissue: https://github.com/acme/tool/issues/19\n---\n# Pipeline\n').relations.own).toBe('19');
  // A heading inside a code block is not the brief's.
  expect(parseBrief('```\n# #12 retries\n```\n\n# Pipeline\n').relations.own).toBeNull();
  // The caller that knows the brief's issue says so: a title that opens with another number is not it.
  const ci = parseBrief('# #12 follow-up: Windows support\n\nThe same on Windows.', { ownIssue: '50' }).relations;
  expect(ci.own).toBe('50');
  expect(briefRelations('# #12 follow-up: Windows support\n', null).own).toBeNull();
});

test("Bugzilla's references name other work: a clone, a regression's cause, See also bug N", () => {
  // The head Bugzilla writes into every clone (seamonkey bug 1655326, dupes-dev: GitBugs, CC BY 4.0).
  const clone =
    '+++ This bug was initially created as a clone of Bug #1645662 +++\n\nI compared 2.53.2 Language Pack help with reality';
  expect(namedRelatedIds(clone)).toEqual(['1645662']);
  expect(namedRelatedIds('Regressed by bug 1400595. See also bug 12 and bug 13; cloned from bug 0099.')).toEqual([
    '12',
    '13',
    '99',
    '1400595',
  ]);
  expect(namedRelatedIds('This is a regression caused by Bug 77.')).toEqual(['77']);
  expect(namedRelatedIds('See also bugs 12 and bug 13.')).toEqual(['12', '13']);
  // A duplicate of bug N is the same work; "bug 3" outside a relation says nothing.
  expect(namedRelatedIds('Related to bug 4. Duplicate of bug 7. See also bug 7.')).toEqual(['4']);
  expect(namedRelatedIds('Fixing bug 3 in the parser; the bug 5 repro.')).toEqual([]);
  // A tracker export's id carries its product (`seamonkey/1645662`): its number is what a text cites.
  expect(namesAsRelated(parseBrief(clone).relations, { issueId: 'seamonkey/1645662' })).toBe(true);
  expect(namesAsRelated(parseBrief(clone).relations, { issueId: 'seamonkey/1645663' })).toBe(false);
  expect(namesAsRelated(parseBrief('See also #12.').relations, { issueId: 'owner/repo#12' })).toBe(true);
  expect(namesAsRelated(parseBrief('See also #12.').relations, { issueId: 'PROJ-12' })).toBe(false);
});
