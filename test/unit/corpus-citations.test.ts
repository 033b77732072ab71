/**
 * The ADRs and standards a brief names itself (corpus/citations.ts): the author
 * said they govern the work, so the standards check attaches them whatever their score.
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
    [
      'https://github.com/o/r/blob/main/docs/standards/00008-json-report-schema.md',
      'docs/standards/00008-json-report-schema.md',
    ],
    ['follow 00008-json-report-schema for the output', 'docs/standards/00008-json-report-schema.md'],
    ['under standard 00123, every line is JSON', 'docs/standards/00123-logging.md'],
    ['ADR_0007 and ADR\u20130007 and ADR\u00a00007', 'docs/adrs/0007-use-postgres.md'],
    ['Per ADR-0007, upgrade to 7.0.1-beta first', 'docs/adrs/0007-use-postgres.md'],
    ['ADR 7 forbids 7th-party-libs here', 'docs/adrs/0007-use-postgres.md'],
    ['ADR-0007, 3 workers are enough', 'docs/adrs/0007-use-postgres.md'],
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
    ['Standard 123 applies'],
    ['return a standard 500 error'],
    ['a standard 100 ms budget'],
    ['standard 00123.4 of the spec'],
    ['ADR-0007.2 is a draft'],
  ])('%j names nothing', (text) => {
    expect(named(text)).toEqual([]);
  });

  test('a finished design is past work, never cited as a standard', () => {
    expect(named('see docs/lld/done/LLD-007-cache.md')).toEqual([]);
  });

  test('a number two ADRs share names neither, unless the brief gives the file', () => {
    const docs = [adr('services/a/docs/adr/0001-record-decisions.md'), adr('services/b/docs/adr/0001-use-kafka.md')];
    expect(named('as ADR-0001 says', docs)).toEqual([]);
    expect(named('as ADR-0001 (services/b/docs/adr/0001-use-kafka.md) says', docs)).toEqual([
      'services/b/docs/adr/0001-use-kafka.md',
    ]);
  });

  test('a file name the brief gives for the number says which ADR it means', () => {
    // Another project's ADR-0001, quoted with its own file name: not this one.
    expect(
      named('Typography (see ADR-0001, docs/adr/0001-typography-system.md)', [
        adr('docs/adrs/0001-repo-trust-tier-vocabulary.md'),
      ]),
    ).toEqual([]);
    // The same ADR under a slightly different name: still this one.
    expect(
      named('ADR 10217 exists at `docs/adr/10217-jwt-authentication.md`', [
        adr('docs/adrs/10217-ADR-jwt-authentication.md'),
      ]),
    ).toEqual(['docs/adrs/10217-ADR-jwt-authentication.md']);
  });

  test('lists and short ranges of ADRs', () => {
    const docs = [10216, 10217, 10218, 10219, 10220].map((n) => adr(`docs/adrs/${n}-ADR-d${n}.md`));
    const nums = (text: string) => named(text, docs).map((p) => Number(/(\d{5})/.exec(p)![1]));
    expect(nums('Write ADRs 10217-10219 from the template')).toEqual([10217, 10218, 10219]);
    expect(nums('ADRs 10217, 10218 and 10219')).toEqual([10217, 10218, 10219]);
    expect(nums('ADR 10216 to ADR 10218')).toEqual([10216, 10217, 10218]);
    expect(nums('ADR 10216 - 2024 review')).toEqual([10216]);
  });

  test('a number after the ADR that is a count, a duration or a date is not another ADR', () => {
    const docs = [3, 7, 8, 12, 15, 2024].map((n) => adr(`docs/adrs/${String(n).padStart(4, '0')}-d${n}.md`));
    const nums = (text: string) => named(text, docs).map((p) => Number(/\/(\d{4})-/.exec(p)![1]));
    expect(nums('ADR-0007 and 3 retries')).toEqual([7]);
    expect(nums('ADR 7 or 8 replicas')).toEqual([7]);
    expect(nums('per ADR-0007 to 12 regions')).toEqual([7]);
    expect(nums('ADR-0012 to 15 ms')).toEqual([12]);
    expect(nums('ADR-0007, 2024-01-05')).toEqual([7]);
    expect(nums('ADR-0007 and ADR-0008')).toEqual([7, 8]);
  });

  test('a bare file name names a document only when it is numbered; with a folder it names that path', () => {
    const docs = [adr('docs/adr/README.md'), standard('docs/standards/index.md'), ...DOCS];
    expect(named('Update the README.md with install steps, fix links in index.md', docs)).toEqual([]);
    expect(named('see docs/adr/README.md for the list', docs)).toEqual(['docs/adr/README.md']);
    expect(named('the 0007-use-postgres.md decision', docs)).toEqual(['docs/adrs/0007-use-postgres.md']);
    // A numbered file name is one document's, whatever folder the brief puts it in.
    expect(named('old/0007-use-postgres.md', docs)).toEqual(['docs/adrs/0007-use-postgres.md']);
  });

  test('a number the brief writes in another name (a duration, a version) does not hide the ADR it names', () => {
    const docs = [adr('docs/adrs/0010-cache-ttl.md')];
    expect(named('Per ADR-10, entries expire after 10-minutes', docs)).toEqual(['docs/adrs/0010-cache-ttl.md']);
  });

  test('a file name given for the number must be mostly the ADR\'s own words, not "use"', () => {
    expect(named('ADR-0002 (0002-use-vue.md, from the other repository)', [adr('docs/adr/0002-use-react.md')])).toEqual(
      [],
    );
  });

  test('hostile text: a megabyte without digits, or of file names, is read in one pass', () => {
    const many = Array.from({ length: 1000 }, (_, i) => adr(`docs/adrs/${String(i + 1).padStart(4, '0')}-d.md`));
    expect(named(`${'a'.repeat(1_000_000)} ADR-0007`, DOCS)).toEqual(['docs/adrs/0007-use-postgres.md']);
    expect(named('-'.repeat(1_000_000), DOCS)).toEqual([]);
    expect(named(`${'.'.repeat(1_000_000)}1`, DOCS)).toEqual([]);
    expect(named('ADR 1-'.repeat(150_000), DOCS)).toEqual([]);
    expect(named(Array.from({ length: 100_000 }, (_, i) => `n${i}.md`).join(' '), many)).toEqual([]);
  });

  test('each document once, in the index order', () => {
    expect(
      named('ADR-0007, then docs/adrs/0007-use-postgres.md, then 00008-json-report-schema.md and ADR 7 again'),
    ).toEqual(['docs/adrs/0007-use-postgres.md', 'docs/standards/00008-json-report-schema.md']);
  });

  test('among two thousand ADRs, the one named', () => {
    const many = Array.from({ length: 2000 }, (_, i) =>
      adr(`docs/adrs/${String(i + 1).padStart(4, '0')}-decision-${i + 1}.md`),
    );
    expect(named(`${'plain words about the work '.repeat(2000)}\nper ADR-1999`, many)).toEqual([
      'docs/adrs/1999-decision-1999.md',
    ]);
  });
});
