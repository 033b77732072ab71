import { splitFrontmatter } from '../../src/work-memory/corpus/frontmatter.js';
import {
  documentTypeOf,
  extractIssueId,
  extractMetadata,
  extractStatus,
  extractSummary,
  truncate,
} from '../../src/work-memory/corpus/metadata.js';
import { firstH1 } from '../../src/work-memory/corpus/heading.js';
import { decodeText } from '../../src/work-memory/corpus/read.js';
import type { CorpusType } from '../../src/work-memory/corpus/types.js';

const HASH = 'abc123';
const meta = (relPath: string, text: string, types: CorpusType[] = ['history']) =>
  extractMetadata(relPath, text, types, HASH);

describe('splitFrontmatter', () => {
  test('parses a YAML mapping and returns the body after the closing fence', () => {
    const fm = splitFrontmatter('---\ntitle: Hello\nissue_id: 7\n---\n# Body\n');
    expect(fm).toEqual({ data: { title: 'Hello', issue_id: 7 }, body: '# Body\n', error: null });
  });

  test('accepts `...` as the closing fence and an empty block', () => {
    expect(splitFrontmatter('---\na: 1\n...\nrest').data).toEqual({ a: 1 });
    expect(splitFrontmatter('---\n\n---\nrest')).toEqual({ data: {}, body: 'rest', error: null });
  });

  test('no frontmatter: the whole text is the body', () => {
    const text = '# Title\n\n---\n\nafter a rule';
    expect(splitFrontmatter(text)).toEqual({ data: {}, body: text, error: null });
  });

  test('malformed YAML is reported, never thrown', () => {
    const fm = splitFrontmatter('---\ntitle: [unclosed\n---\nbody');
    expect(fm.error).toMatch(/^malformed YAML frontmatter \(.*\); using the file name and headings instead$/);
    expect(fm.data).toEqual({});
    expect(fm.body).toBe('body');
  });

  test('a non-mapping frontmatter is reported', () => {
    expect(splitFrontmatter('---\n- a\n- b\n---\nbody')).toEqual({
      data: {},
      body: 'body',
      error: 'frontmatter is not a mapping',
    });
    expect(splitFrontmatter('---\njust text\n---\nbody').error).toBe('frontmatter is not a mapping');
  });
});

describe('issue_id', () => {
  test('T170 extract_issue_id_yaml: frontmatter issue_id wins over folder, file and H1', () => {
    const { metadata, warnings } = meta(
      'docs/audit/done/12-other/001-issue.md',
      '---\nissue_id: 91\n---\n# Issue #5: X\n',
    );
    expect(metadata.issueId).toBe('91');
    expect(warnings).toEqual([]);
  });

  test.each([
    [{ issue_id: 91 }, '91'],
    [{ issue_id: '0042' }, '42'],
    [{ issue_id: '#17' }, '17'],
    [{ issue: 33 }, '33'],
    [{ issue: '#8' }, '8'],
    [{ issue_id: 'PROJ-7' }, 'PROJ-7'],
    [{ issue_id: 5, issue: 6 }, '5'],
    [{ issue_id: '', issue: 6 }, '6'],
  ])('T170 frontmatter %j -> %p', (data, id) => {
    expect(extractIssueId('docs/x/notes.md', data, null)).toBe(id);
  });

  test.each([
    ['docs/issues/012-issue.md', '12'],
    ['docs/lineage/done/91-rag-knowledge/001-issue.md', '91'],
    ['docs/lineage/done/091_rag/001-brief.md', '91'],
    ['docs/LLDs/done/LLD-088.md', '88'],
    ['docs/LLDs/done/LLD-088-runner-token-refresh.md', '88'],
    ['docs/issues/issue-7.md', '7'],
    ['docs/issues/42.md', '42'],
  ])('T180 filename fallback: %s -> %s', (relPath, id) => {
    const { metadata, warnings } = meta(relPath, 'Some text without a heading.\n');
    expect(metadata.issueId).toBe(id);
    expect(warnings).toEqual([]);
  });

  test('T180 the H1 is the last resort: `# Issue #91: ...`', () => {
    expect(meta('docs/audit/done/rag/001-issue.md', '# Issue #91: RAG knowledge\n').metadata.issueId).toBe('91');
    expect(extractIssueId('docs/notes/rag.md', {}, '#12 - Thing')).toBe('12');
    expect(extractIssueId('docs/notes/rag.md', {}, '12: Thing')).toBe('12');
  });

  test('the issue a header field declares goes before a file number of another series (Aletheia: 10116 is issue #116)', () => {
    const text =
      '# 10116 - Feature: LinkedIn OAuth\n\n## 1. Context & Goal\n* **Issue:** #116\n* **Related Issues:** #117\n';
    const { metadata } = meta('docs/lld/done/10116-linkedin-oauth.md', text);
    expect(metadata.issueId).toBe('116');
    expect(metadata.related).toEqual(['117']);
    // A numbered issue folder and the frontmatter still come first; without the field the file number stands.
    expect(meta('docs/lineage/done/91-rag/001-issue.md', '# RAG\n\nIssue: #5\n').metadata.issueId).toBe('91');
    expect(meta('docs/lld/done/x.md', '---\nissue: 7\n---\n# X\n\nIssue: #5\n').metadata.issueId).toBe('7');
    expect(meta('docs/lld/done/10116-linkedin-oauth.md', '# 10116 - Feature: LinkedIn OAuth\n').metadata.issueId).toBe(
      '10116',
    );
    // A tool's wrapper header is not the document, but the issue it declares is the document's.
    expect(
      meta(
        'docs/lld/done/10116-x.md',
        '# LLD Finalized\n\nPath: docs/x.md\nIssue: #116\nStatus: APPROVED\n\n---\n\n# LinkedIn OAuth\n\nBody.\n',
      ).metadata.issueId,
    ).toBe('116');
    // ADRs and standards keep their own series: only frontmatter links them to an issue.
    expect(meta('docs/adrs/0004-cache.md', '# ADR 4\n\nIssue: #5\n', ['standard']).metadata.issueId).toBeNull();
  });

  test('ownIssue: the issue a text states (frontmatter, a header field, an `#N` H1), never a file or folder number alone', () => {
    expect(
      meta('docs/lld/archived/LLD-019.md', '# #19 - Feature: Batch engine\n\n* **Issue:** #19\n').metadata.ownIssue,
    ).toBe('19');
    expect(
      meta('docs/lineage/done/19-lld/001-issue.md', '---\nissue: 19\n---\n# Issue #19: Pipeline\n').metadata.ownIssue,
    ).toBe('19');
    expect(meta('docs/lld/done/x.md', '# Issue #0042: Retry\n').metadata.ownIssue).toBe('42');
    // The frontmatter's id speaks for the file; a non-numeric one states no issue number.
    expect(meta('docs/lld/done/x.md', '---\nissue: 7\n---\n# #8 - Other\n').metadata.ownIssue).toBe('7');
    expect(meta('docs/lld/done/x.md', '---\nissue: PROJ-7\n---\n# #8 - Other\n').metadata.ownIssue).toBeUndefined();
    // Numbers in a path or a bare `12: Title` heading: an id for display, not a statement.
    for (const [p, t] of [
      ['docs/lld/done/LLD-019.md', '# Batch engine\n'],
      ['docs/lineage/done/19-lld/001-issue.md', '# Pipeline\n'],
      ['docs/lld/done/x.md', '# 12: Retry\n'],
      ['docs/lld/done/x.md', '# #0 - Nothing\n'],
      ['docs/lld/done/x.md', '---\nissue: 0\n---\n# Nothing\n'],
      // A heading that cites another issue does not state its own.
      ['docs/lld/done/x.md', '# Follow-up to #12: retry jitter\n'],
      ['docs/lld/done/x.md', '# Sprint #4 retrospective\n'],
    ]) {
      expect(meta(p, t).metadata.ownIssue).toBeUndefined();
    }
    // ADRs and standards keep their own series.
    expect(
      meta('docs/adrs/0004-cache.md', '---\nissue: 5\n---\n# ADR 4\n', ['standard']).metadata.ownIssue,
    ).toBeUndefined();
  });

  test('a sequence file inside an unnumbered folder is not issue 1', () => {
    expect(extractIssueId('docs/audit/done/rag/001-issue.md', {}, 'RAG knowledge')).toBeNull();
  });

  test('T190 missing issue id -> a warning, and the document still gets metadata', () => {
    const { metadata, warnings, body } = meta(
      'docs/audit/done/misc/notes.md',
      '# Notes on caching\n\nWe looked at caching.\n',
    );
    expect(metadata.issueId).toBeNull();
    expect(metadata.title).toBe('Notes on caching');
    expect(metadata.summary).toBe('We looked at caching.');
    expect(body).toContain('We looked at caching.');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^docs\/audit\/done\/misc\/notes\.md: no issue id found/);
  });

  test('standards and ADRs without an issue id do not warn', () => {
    expect(meta('docs/standards/logging.md', '# Logging\n', ['standard']).warnings).toEqual([]);
    expect(meta('docs/adrs/use-postgres.md', '# Use Postgres\n', ['standard']).warnings).toEqual([]);
  });
});

describe('title', () => {
  test('T320 YAML metadata: frontmatter title, issue and status are used', () => {
    const text =
      '---\ntitle: "RAG knowledge base"\nissue_id: 91\nstatus: done\n---\n# Issue #91: Something else\n\nBody text.\n';
    const { metadata, body, warnings } = meta('docs/audit/done/91-rag/001-issue.md', text);
    expect(metadata).toEqual({
      filePath: 'docs/audit/done/91-rag/001-issue.md',
      types: ['history'],
      documentType: 'issue',
      issueId: '91',
      title: 'RAG knowledge base',
      summary: 'Body text.',
      status: 'done',
      statusReason: null,
      contentHash: HASH,
      ownIssue: '91',
    });
    expect(body.startsWith('# Issue #91')).toBe(true);
    expect(warnings).toEqual([]);
  });

  test.each([
    ['# Issue #91: RAG knowledge base', 'RAG knowledge base'],
    ['# issue #91 - RAG', 'RAG'],
    ['# #91 RAG', 'RAG'],
    ['# 91 - RAG', 'RAG'],
    ['# 012: Caching', 'Caching'],
    ['# Feature: Add a cache', 'Add a cache'],
    ['# 2024 roadmap', '2024 roadmap'],
    ['# Issue #91:', 'Issue #91:'],
    ['# Plain title ##', 'Plain title'],
  ])('H1 %p -> title %p', (h1, title) => {
    expect(meta('docs/audit/done/91-x/001-issue.md', `${h1}\n\nText.\n`).metadata.title).toBe(title);
  });

  test('T330 filename fallback: no frontmatter title and no H1 -> file name', () => {
    const { metadata } = meta('docs/audit/done/42-x/rate-limiter.md', '## Only an H2\n\nText.\n');
    expect(metadata.title).toBe('rate-limiter');
    expect(metadata.issueId).toBe('42');
  });

  test('a number title in frontmatter is kept as text', () => {
    expect(meta('docs/x/a.md', '---\ntitle: 1984\nissue: 1\n---\n').metadata.title).toBe('1984');
  });

  test('a heading inside a fenced code block is not the H1', () => {
    const body = '```md\n# Issue #5: Example heading\n```\n\n~~~\n# also not\n~~~\n\n# Real title\n';
    expect(firstH1(body)).toBe('Real title');
    const { metadata } = meta('docs/audit/done/misc/notes.md', body);
    expect(metadata.title).toBe('Real title');
    expect(metadata.issueId).toBeNull();
  });

  test('firstH1 ignores H2 and `#tag` lines', () => {
    expect(firstH1('#hashtag\n## Section\n#  Spaced  Title  \n')).toBe('Spaced  Title');
    expect(firstH1('no headings')).toBeNull();
  });
});

describe('T340 malformed YAML fallback', () => {
  test('warns, keeps the plain key: value lines it can read, falls back to the H1 for the rest, never throws', () => {
    const text = '---\ntitle: [unclosed\nissue_id: 5\n---\n# Issue #7: Real title\n\nBody.\n';
    const { metadata, warnings, body } = meta('docs/audit/done/misc/notes.md', text);
    // `[unclosed` is YAML that failed: not a title. `issue_id: 5` is what the author wrote.
    expect(metadata.title).toBe('Real title');
    expect(metadata.issueId).toBe('5');
    expect(body).not.toContain('[unclosed');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^docs\/audit\/done\/misc\/notes\.md: malformed YAML frontmatter .*; read its plain key: value lines \(issue_id\)$/,
    );
  });

  test("a title with a second ': ' (not YAML, and common: Backstage's ADRs) is read from its plain line", () => {
    const text =
      "---\nid: adrs-adr009\ntitle: ADR009: Entity References\ndescription: 'ADR log on Entity References'\n---\n\n## Context\n\nText.\n";
    const { metadata, warnings } = meta('docs/architecture-decisions/adr009-entity-references.md', text);
    expect(metadata.title).toBe('ADR009: Entity References');
    expect(warnings[0]).toMatch(/read its plain key: value lines \(id, title, description\)$/);
  });

  test("a template's list of statuses, or a link to no record, is not a supersession", () => {
    const madr =
      '# ADR-0002: Use X\n\n* Status: [proposed | rejected | accepted | deprecated | … | superseded by [ADR-0005](0005-example.md)]\n';
    expect(meta('docs/adr/0002-use-x.md', madr, ['standard']).metadata.status).not.toBe('superseded');
    const prose =
      '# ADR-0007: HTTP\n\nOur wrapper (ADR-0002) was superseded by [the platform fetch](https://nodejs.org/api/globals.html).\n';
    expect(meta('docs/adr/0007-http.md', prose, ['standard']).metadata.status).toBeNull();
  });

  test('plain key: value lines: a quote opened and never closed is no value (the H1 is the title)', () => {
    const { metadata } = meta(
      'docs/audit/done/41-x/001-issue.md',
      '---\nissue_id: 41\ntitle: "Quarantine flaky tests\n  labels: [ci\n---\n# Quarantine flaky tests automatically\n',
      ['history'],
    );
    expect(metadata.title).toBe('Quarantine flaky tests automatically');
    expect(metadata.issueId).toBe('41');
  });

  test('plain key: value lines: a comment is not the value, and null is no value', () => {
    const { metadata } = meta(
      'docs/adr/0008-x.md',
      '---\ntitle: ADR008: Use X # TODO rename\nstatus: ~\n---\n\nText.\n',
      ['standard'],
    );
    expect(metadata.title).toBe('ADR008: Use X');
    expect(metadata.status).toBeNull();
  });

  test("Backstage's supersession note names its successor by a link: superseded, the link kept for the successor", () => {
    const text =
      "---\ntitle: 'ADR013: [superseded] Proper use of HTTP fetching libraries'\n---\n\n:::note Superseded\n\nThis ADR has been superseded by [ADR014](./adr014-use-fetch.md) and no longer applies.\n\n:::\n\n## Context\n";
    const { metadata } = meta('docs/architecture-decisions/adr013-use-node-fetch.md', text);
    expect(metadata.status).toBe('superseded');
    expect(metadata.statusReason).toBe('Superseded by [ADR014](./adr014-use-fetch.md)');
  });

  test('malformed frontmatter and no H1 -> file-name title and folder issue id', () => {
    const { metadata, warnings } = meta('docs/audit/done/33-x/cache-plan.md', '---\n: : :\n  - [\n---\nBody.\n');
    expect(metadata.title).toBe('cache-plan');
    expect(metadata.issueId).toBe('33');
    expect(warnings.some((w) => w.includes('malformed YAML frontmatter'))).toBe(true);
  });
});

describe('summary', () => {
  test('the objective section wins over the first paragraph', () => {
    const body =
      '# T\n\nIntro paragraph.\n\n## 1. Objective\n\nMake builds **fast** with a\n[cache](http://x).\n\nSecond para.\n';
    expect(extractSummary(body)).toBe('Make builds fast with a cache.');
  });

  test('otherwise the first prose paragraph, skipping headings, tables, fences and metadata lines', () => {
    const body =
      '# T\n\n**Status:** Done\nDate: 2024-01-01\n\n| a | b |\n\n```\ncode\n```\n\n- First real line\ncontinues here.\n';
    expect(extractSummary(body)).toBe('First real line continues here.');
  });

  test('is about 300 characters, cut at a word with an ellipsis', () => {
    const s = extractSummary(`${'word '.repeat(200)}\n`);
    expect(s.length).toBeLessThanOrEqual(300);
    expect(s.length).toBeGreaterThan(250);
    expect(s.endsWith('word…')).toBe(true);
  });

  test('empty body -> empty summary; truncate leaves short text alone', () => {
    expect(extractSummary('')).toBe('');
    expect(truncate('short', 10)).toBe('short');
    expect(truncate('abcdefghijklmnop', 10)).toBe('abcdefghi…');
  });
});

describe('status', () => {
  test.each([
    ['Status: Rejected', 'rejected', null],
    ['**Status:** Rejected — duplicates the caching work in #27', 'rejected', 'Duplicates the caching work in #27'],
    ['- **Status**: Done', 'done', null],
    ['Status: Completed', 'done', null],
    ['> Status: Accepted', 'accepted', null],
    ['Status: Superseded by ADR-0007', 'superseded', 'Superseded by ADR-0007'],
    ['SUPERSEDED by ADR-0223', 'superseded', 'Superseded by ADR-0223'],
    ['This ADR was superseded by #45 last year.', 'superseded', 'Superseded by #45'],
    ["Status: Won't do", 'rejected', null],
    ['| Status | Rejected |', 'rejected', null],
    ['| Status | Rejected — too costly |', 'rejected', 'Too costly'],
    ['Nothing about it here.', null, null],
    ['Status: Unclear, see the notes below', null, null],
  ])('%p -> %p (%p)', (line, status, reason) => {
    expect(extractStatus({}, `# Title\n\n${line}\n\nSome text.\n`)).toEqual({ status, reason });
  });

  test.each([
    ['Rejected because: it duplicates the work in #27.', 'it duplicates the work in #27.'],
    ['Reason: the vendor API was withdrawn.', 'the vendor API was withdrawn.'],
    ['- **Rejection reason:** too expensive to run', 'too expensive to run'],
    ['**Reason:** the team chose Kafka instead', 'the team chose Kafka instead'],
  ])('a rejected status takes its reason from a %p line', (line, reason) => {
    const res = extractStatus({}, `# T\n\nStatus: Rejected\n\nBackground.\n\n${line}\n`);
    expect(res).toEqual({ status: 'rejected', reason });
  });

  test('a rejected status takes its reason from a Decision section', () => {
    const res = extractStatus({}, '# T\n\nStatus: Rejected\n\n## Decision\n\nWe keep the current queue instead.\n');
    expect(res).toEqual({ status: 'rejected', reason: 'We keep the current queue instead.' });
  });

  test('frontmatter status wins, with its reason text', () => {
    expect(extractStatus({ status: 'rejected' }, 'Rejected because: overlap with #12 work.')).toEqual({
      status: 'rejected',
      reason: 'overlap with #12 work.',
    });
    expect(extractStatus({ status: 'superseded by ADR-0009' }, '')).toEqual({
      status: 'superseded',
      reason: 'Superseded by ADR-0009',
    });
    expect(extractStatus({ status: 'Done' }, 'Status: Rejected')).toEqual({ status: 'done', reason: null });
  });

  // Nygard's template as adr-tools writes it (src/template.md, src/_adr_add_link, src/_adr_remove_status):
  // a `## Status` section; superseding removes "Accepted" and adds "Superceded by [title](file)", spelt so.
  test.each([
    ['Accepted', 'accepted', null],
    ['Proposed', 'proposed', null],
    [
      'Superceded by [3. Use Kafka for events](0003-use-kafka-for-events.md)',
      'superseded',
      'Superseded by 3. Use Kafka for events (0003-use-kafka-for-events.md)',
    ],
    [
      'Accepted\n\nSuperseded by [3. Use Kafka](0003-use-kafka.md)',
      'superseded',
      'Superseded by 3. Use Kafka (0003-use-kafka.md)',
    ],
    ['Accepted\n\nSupercedes [1. Record decisions](0001-record-decisions.md)', 'accepted', null],
    ['Deprecated', 'deprecated', null],
    ['* Rejected', 'rejected', null],
    ['We have not decided yet.', null, null],
    ['Accepted\n\nRejected alternatives: see below', 'accepted', null],
    ['Rejected alternatives: see below', null, null],
    ['Declined to support Windows', null, null],
    ['Done: shipped in 2.3', 'done', 'Shipped in 2.3'],
  ])('a ## Status section holding %p -> %p (%p)', (section, status, reason) => {
    const text = `# 2. Queue jobs in PostgreSQL\n\nDate: 2024-04-11\n\n## Status\n\n${section}\n\n## Context\n\nAccepted practice elsewhere is Redis.\n`;
    expect(extractStatus({}, text)).toEqual({ status, reason });
  });

  test('the status on the heading line itself', () => {
    expect(extractStatus({}, '# T\n\n## Status: Accepted\n\n## Context\n\nText.\n')).toEqual({
      status: 'accepted',
      reason: null,
    });
  });

  test('hostile: a status heading followed by a megabyte of blanks is read in one pass', () => {
    expect(extractStatus({}, `# T\n\n## Status${' '.repeat(1_000_000)}x\n`).status).toBeNull();
    expect(extractStatus({}, `# T\n\n## Status${' :'.repeat(500_000)}\n\nAccepted\n`).status).toBe('accepted');
  });

  test('a status heading far down the document, or a section about status history, is not the status', () => {
    const far = `# T\n\n${'Line of text.\n'.repeat(100)}\n## Status\n\nRejected\n`;
    expect(extractStatus({}, far).status).toBeNull();
    expect(extractStatus({}, '# T\n\n## Status of the migration\n\nDone in March.\n').status).toBeNull();
  });

  test('a status line inside the metadata flows into DocMetadata', () => {
    const { metadata } = meta('docs/adrs/0003-redis.md', '# Redis queue\n\n**Status:** Rejected — reason: ops cost\n', [
      'standard',
    ]);
    expect(metadata.status).toBe('rejected');
    expect(metadata.statusReason).toBe('Reason: ops cost');
    expect(metadata.documentType).toBe('adr');
  });
});

describe('documentType', () => {
  test.each([
    ['docs/adrs/0001-use-postgres.md', ['standard'], 'adr'],
    ['docs/adr/0001.md', ['standard'], 'adr'],
    ['docs/decisions/x.md', ['standard'], 'adr'],
    ['docs/LLDs/done/LLD-088.md', ['standard', 'history'], 'lld'],
    ['docs/lld/done/x.md', ['history'], 'lld'],
    ['docs/design/lld-012-cache.md', ['history'], 'lld'],
    ['docs/standards/logging.md', ['standard'], 'standard'],
    ['docs/audit/done/12-x/001-issue.md', ['history'], 'issue'],
    ['docs/other/thing.md', ['standard'], 'standard'],
    ['docs/other/thing.md', ['history'], 'issue'],
  ] as Array<[string, CorpusType[], string]>)('%s %j -> %s', (relPath, types, type) => {
    expect(documentTypeOf(relPath, types)).toBe(type);
  });

  test('types are sorted in the metadata', () => {
    expect(meta('docs/LLDs/done/LLD-1.md', '# X\n', ['standard', 'history']).metadata.types).toEqual([
      'history',
      'standard',
    ]);
  });
});

describe('CRLF input', () => {
  const crlf =
    '---\r\ntitle: From frontmatter\r\nissue_id: 91\r\n---\r\n# Issue #91: RAG\r\n\r\n**Status:** Rejected — too slow\r\n\r\n## Objective\r\n\r\nFind past work.\r\n';

  test('through decodeText (the real pipeline) frontmatter, status and summary all work', () => {
    const read = decodeText(Buffer.from(`\uFEFF${crlf}`), 1 << 20);
    if (!read.ok) throw new Error(read.reason);
    const { metadata, body, warnings } = meta('docs/audit/done/x/001-issue.md', read.text);
    expect(warnings).toEqual([]);
    expect(metadata).toMatchObject({
      issueId: '91',
      title: 'From frontmatter',
      status: 'rejected',
      statusReason: 'Too slow',
    });
    expect(metadata.summary).toBe('Find past work.');
    expect(body).not.toContain('\r');
  });

  test('extractMetadata given raw CRLF text gives the same metadata', () => {
    const { metadata, body } = meta('docs/audit/done/x/001-issue.md', crlf);
    expect(metadata).toMatchObject({
      issueId: '91',
      title: 'From frontmatter',
      status: 'rejected',
      statusReason: 'Too slow',
    });
    expect(metadata.summary).toBe('Find past work.');
    expect(body).not.toContain('\r');
  });
});
