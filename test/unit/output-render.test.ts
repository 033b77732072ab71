/** The alert and the lists (issue 8 §5): wrapped to the width, hanging indent, aligned fields, both paths, both passages. */
import type { HistoryMatch } from '../../src/work-memory/check/history.js';
import {
  renderDuplicateAlert,
  renderLinked,
  renderRelated,
  renderStandards,
  wrap,
} from '../../src/work-memory/output/render.js';
import { makeStyle } from '../../src/shared/style.js';

const long =
  'The Docker build re-installs every dependency on each commit because the lockfile is copied after the sources, which defeats the layer cache entirely.';
const match: HistoryMatch = {
  issueId: '27',
  title: 'Docker Build Optimization for the monorepo services and the CI runners',
  filePath: 'docs/audit/done/27-docker/001-issue.md',
  paths: ['docs/audit/done/27-docker/001-issue.md', 'docs/LLDs/done/27-docker-design.md'],
  score: 0.9123,
  status: 'rejected',
  statusReason: 'superseded by the Bazel migration in issue 31',
  summary: '',
  documentType: 'issue',
  section: 'Problem',
  excerpt: long,
  briefExcerpt:
    'Our Docker builds take 14 minutes because nothing is cached between CI runs and dependencies are installed again.',
};

describe('wrap', () => {
  test('lines fit the width; continuation lines carry the hanging indent', () => {
    const lines = wrap(long, 40, 10);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(30);
    expect(lines.join(' ')).toBe(long);
  });
  test('a word longer than the line (a path) is cut, not overflowing', () => {
    const lines = wrap('a'.repeat(100), 40, 4);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(36);
    expect(lines.join('')).toBe('a'.repeat(100));
  });
});

describe.each([40, 60, 100])('at %i columns', (width) => {
  test('the duplicate alert fits, fields aligned, both paths and both passages shown', async () => {
    const st = await makeStyle(false);
    const out = renderDuplicateAlert([match], 0.85, st, width);
    const lines = out.split('\n');
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(width);
    // Every field's value starts in the same column.
    const starts = lines.filter((l) => /^ {3}\S[\w ]*: +\S/.test(l)).map((l) => l.search(/(?<=: +)\S/));
    expect(new Set(starts).size).toBe(1);
    const flat = out.replace(/\s+/g, ' ');
    expect(flat).toContain('Paths:');
    for (const p of match.paths!) expect(out.replace(/\n +/g, '')).toContain(p);
    expect(flat).toContain('Your brief: Our Docker builds take 14 minutes');
    expect(flat).toContain('Past work: [Problem] The Docker build re-installs');
    expect(flat).toContain('REJECTED — superseded by the Bazel migration in issue 31');
  });

  test('related and standards lists fit with a hanging indent', async () => {
    const st = await makeStyle(false);
    for (const out of [
      renderRelated([match], st, width),
      renderStandards(
        [
          {
            filePath: 'docs/standards/logging-and-observability.md',
            section: 'Structured JSON log lines with correlation ids',
            score: 0.77,
            snippet: '',
            title: 'Logging',
            status: null,
            source: 'retrieved',
          },
        ],
        st,
        width,
      ),
    ]) {
      const [, ...items] = out.split('\n');
      for (const l of items) expect(l.length).toBeLessThanOrEqual(width);
      for (const l of items.slice(1)) expect(l).toMatch(/^ {10,}\S/);
    }
  });

  test('a standard shows its score, or why it is there: named in the brief, or manual context', async () => {
    const st = await makeStyle(false);
    const item = { filePath: 'docs/adrs/0007.md', section: 'Decision', snippet: '', title: 'ADR 7', status: null };
    const out = renderStandards(
      [
        { ...item, score: 0.77, source: 'retrieved' },
        { ...item, score: 0.2, source: 'cited' },
        { ...item, score: null, source: 'cited' },
        { ...item, score: null, source: 'manual' },
      ],
      st,
      width,
    );
    expect(out.split('\n').slice(1)).toEqual([
      '  - 0.7700  docs/adrs/0007.md › Decision',
      '  - cited   docs/adrs/0007.md › Decision',
      '  - cited   docs/adrs/0007.md › Decision',
      '  - manual  docs/adrs/0007.md › Decision',
    ]);
  });

  test('a superseded, deprecated or rejected standard says so', async () => {
    const st = await makeStyle(false);
    const item = {
      filePath: 'docs/adr/0002-queue-jobs.md',
      section: 'Decision',
      snippet: '',
      title: 'Queue jobs',
      score: null,
      source: 'cited' as const,
    };
    const out = renderStandards(
      [
        { ...item, status: 'superseded' },
        { ...item, status: 'accepted' },
      ],
      st,
      width,
    );
    const items = out.split('\n').slice(1);
    expect(items[0]).toMatch(/^ {2}- cited {2}SUPERSEDED {2}docs\//);
    expect(items.filter((l) => l.startsWith('  - '))[1]).toMatch(/^ {2}- cited {3}docs\//);
    for (const l of items) expect(l.length).toBeLessThanOrEqual(width);
  });
});

test('a single-document match says "Path:", and no brief passage line when there is none', async () => {
  const st = await makeStyle(false);
  const out = renderDuplicateAlert([{ ...match, paths: undefined, briefExcerpt: undefined }], 0.85, st, 100);
  expect(out).toMatch(/^ {3}Path: +docs\/audit\/done\/27-docker\/001-issue\.md$/m);
  expect(out).not.toContain('Your brief');
});

test('after Link: which past work, its paths, and the file it went into', async () => {
  const st = await makeStyle(false);
  const out = renderLinked(match, '.agentos/issues/cache/brief.md', st, 60);
  for (const l of out.split('\n')) expect(l.length).toBeLessThanOrEqual(60);
  expect(out.replace(/\n +/g, ' ')).toBe(
    'Linked Issue #27: Docker Build Optimization for the monorepo services and the CI runners (docs/audit/done/27-docker/001-issue.md, docs/LLDs/done/27-docker-design.md) under "Linked Past Work" in .agentos/issues/cache/brief.md',
  );
});
