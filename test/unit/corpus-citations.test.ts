/**
 * The ADRs and standards a brief names itself (corpus/citations.ts): the author
 * said they govern the work, so the Librarian attaches them whatever their score.
 */
import { namedStandards, type CitableDoc } from '../../src/work-memory/corpus/citations.js';

const adr = (filePath: string): CitableDoc => ({ filePath, documentType: 'adr' });
const standard = (filePath: string): CitableDoc => ({ filePath, documentType: 'standard' });

const DOCS: CitableDoc[] = [
  adr('docs/adrs/0007-use-postgres.md'),
  adr('docs/adrs/10216-ADR-cloudflare-migration.md'),
  standard('docs/standards/00008-json-report-schema.md'),
  standard('docs/standards/00123-logging.md'),
  standard('docs/standards/container-image-standard.md'),
  { filePath: 'docs/lld/done/LLD-007-cache.md', documentType: 'lld' },
];

const named = (text: string, docs = DOCS) => namedStandards(text, docs);

describe('namedStandards: what a brief names', () => {
  test.each([
    ['per ADR-0007 we store sessions in the database', 'docs/adrs/0007-use-postgres.md'],
    ['as ADR 7 decided', 'docs/adrs/0007-use-postgres.md'],
    ['see ADR #7.', 'docs/adrs/0007-use-postgres.md'],
    ['Already has ADR 10216 | Done', 'docs/adrs/10216-ADR-cloudflare-migration.md'],
    ['## Reference: docs\\standards\\00008-json-report-schema.md', 'docs/standards/00008-json-report-schema.md'],
    ['https://github.com/o/r/blob/main/docs/standards/00008-json-report-schema.md', 'docs/standards/00008-json-report-schema.md'],
    ['follow 00008-json-report-schema for the output', 'docs/standards/00008-json-report-schema.md'],
    ['under standard 00123, every line is JSON', 'docs/standards/00123-logging.md'],
    ['Standard 123 applies', 'docs/standards/00123-logging.md'],
    ['build it as ./docs/standards/container-image-standard.md says', 'docs/standards/container-image-standard.md'],
  ])('%j names %s', (text, path) => {
    expect(named(text)).toEqual([path]);
  });

  test.each([
    ['the standard 3 retries are enough'],
    ['a standard 3-step rollout'],
    ['### Scenario 1: Writing ADRs\n1. Maintainer identifies a decision'],
    ['ADR 70 is about something else'],
    ['ADR-0007-draft is not written yet'],
    ['use a container image standard'],
    ['the LLD-007 cache design'],
    ['version 00008'],
  ])('%j names nothing', (text) => {
    expect(named(text)).toEqual([]);
  });

  test('a finished design is past work, never cited as a standard', () => {
    expect(named('see docs/lld/done/LLD-007-cache.md')).toEqual([]);
  });

  test('a number two ADRs share names neither, unless the brief gives the file', () => {
    const docs = [adr('services/a/docs/adr/0001-record-decisions.md'), adr('services/b/docs/adr/0001-use-kafka.md')];
    expect(named('as ADR-0001 says', docs)).toEqual([]);
    expect(named('as ADR-0001 (services/b/docs/adr/0001-use-kafka.md) says', docs)).toEqual(['services/b/docs/adr/0001-use-kafka.md']);
  });

  test('a file name the brief gives for the number says which ADR it means', () => {
    // Another project's ADR-0001, quoted with its own file name: not this one.
    expect(named('Typography (see ADR-0001, docs/adr/0001-typography-system.md)', [adr('docs/adrs/0001-repo-trust-tier-vocabulary.md')])).toEqual([]);
    // The same ADR under a slightly different name: still this one.
    expect(named('ADR 10217 exists at `docs/adr/10217-jwt-authentication.md`', [adr('docs/adrs/10217-ADR-jwt-authentication.md')])).toEqual(['docs/adrs/10217-ADR-jwt-authentication.md']);
  });

  test('each document once, in the index order', () => {
    expect(named('ADR-0007, then docs/adrs/0007-use-postgres.md, then 00008-json-report-schema.md and ADR 7 again')).toEqual([
      'docs/adrs/0007-use-postgres.md',
      'docs/standards/00008-json-report-schema.md',
    ]);
  });

  test('among two thousand ADRs, the one named', () => {
    const many = Array.from({ length: 2000 }, (_, i) => adr(`docs/adrs/${String(i + 1).padStart(4, '0')}-decision-${i + 1}.md`));
    expect(named(`${'plain words about the work '.repeat(2000)}\nper ADR-1999`, many)).toEqual(['docs/adrs/1999-decision-1999.md']);
  });
});
