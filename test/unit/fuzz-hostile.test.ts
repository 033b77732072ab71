// Fuzz: generated hostile markdown and frontmatter through every function that
// reads past or new text (decode, frontmatter, metadata, chunking, excerpts,
// brief sections, terminal output). A fixed seed and AGENTOS_FUZZ_CASES cases
// (300 by default, a few seconds); set AGENTOS_FUZZ_CASES=5000 (and
// AGENTOS_FUZZ_SEED) for a longer run. A failure prints the seed and case number.
import { jest } from '@jest/globals';
import { briefForCheck, MAX_CHECK_CHARS } from '../../src/work-memory/check/brief-limit.js';
import type { HistoryMatch } from '../../src/work-memory/check/history.js';
import { approxTokens, chunkMarkdown } from '../../src/work-memory/chunks/chunk.js';
import { splitFrontmatter } from '../../src/work-memory/corpus/frontmatter.js';
import { extractMetadata } from '../../src/work-memory/corpus/metadata.js';
import { MAX_TITLE_CHARS } from '../../src/work-memory/corpus/heading.js';
import { decodeText } from '../../src/work-memory/corpus/read.js';
import { excerptOf } from '../../src/work-memory/index/graph-update.js';
import { composeBrief } from '../../src/work-memory/output/compose.js';
import { safeForTerminal, terminalSafe } from '../../src/shared/sanitize.js';
import { linkedPastWorkSection, quotePast, relatedPastWorkSection } from '../../src/work-memory/output/sections.js';

const CASES = Number(process.env.AGENTOS_FUZZ_CASES ?? 300);
const SEED = Number(process.env.AGENTOS_FUZZ_SEED ?? 12);
jest.setTimeout(Math.max(60_000, CASES * 200));

/** mulberry32: small, fast, and the same sequence on every machine. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  return { next, int, pick };
}
type R = ReturnType<typeof rng>;

const WORDS = [
  'deploy',
  'cache',
  'the',
  'auth_sessions',
  'Status:',
  'rejected',
  'superseded by #12',
  'Issue #7',
  '[link](x)',
  '**bold**',
  '_em_',
  '`code`',
  '|',
  '#',
  '<!--',
  '-->',
];
const MARKERS = [
  '<!-- agentos:related-past-work -->',
  '<!-- /agentos:related-past-work -->',
  '<!-- agentos:linked-past-work -->',
  '<!-- /agentos:relevant-standards -->',
];
const ESCAPES = [
  '\x1b[2J',
  '\x1b]0;pwned\x07',
  '\x1b]8;;http://evil\x1b\\',
  '\x9b31m',
  '\x00',
  '\x07',
  '\x7f',
  '\u202e',
  '\r',
  '\r\n',
  '\t',
  '\u2028',
];

/** A run of one hostile character, sometimes long: what made the old patterns super-linear. */
function run(r: R): string {
  const ch = r.pick([' ', '[', ']', '(', '_', '#', '0', '*', '`', '\n', '\r', '-', '|', '>', '\t', 'a', '~']);
  const len = r.next() < 0.1 ? 2000 + r.int(20_000) : r.int(200);
  return ch.repeat(len);
}

function line(r: R): string {
  switch (r.int(12)) {
    case 0:
      return `${'#'.repeat(1 + r.int(7))}${r.pick([' ', '', '  ', '\t'])}${words(r)}${run(r)}${r.pick(['', ' ##', '#'])}`;
    case 1:
      return `Status: ${r.pick(['rejected', 'superseded', 'done', 'wontfix', ''])}${run(r)}${r.pick(['|', ' by #3', ''])}`;
    case 2:
      return r.pick(MARKERS);
    case 3:
      return r.pick(['```', '~~~', '    ```js']);
    case 4:
      return `${'> '.repeat(r.int(300))}${'- '.repeat(r.int(50))}${words(r)}`;
    case 5:
      return `| ${words(r)} | ${run(r)} |`;
    case 6:
      return run(r);
    case 7:
      return r.pick(ESCAPES) + words(r) + r.pick(ESCAPES);
    default:
      return words(r);
  }
}

function words(r: R): string {
  return Array.from({ length: r.int(20) }, () => r.pick(WORDS)).join(r.pick([' ', '  ', '']));
}

function frontmatter(r: R): string {
  switch (r.int(6)) {
    case 0: {
      const lines = ['a: &a [x, x, x, x, x, x, x, x, x]'];
      for (let i = 1; i < 2 + r.int(8); i++)
        lines.push(
          `k${i}: &k${i} [${Array(9)
            .fill(i === 1 ? '*a' : `*k${i - 1}`)
            .join(', ')}]`,
        );
      return `---\n${lines.join('\n')}\n---\n`;
    }
    case 1: {
      const depth = r.int(5000);
      return `---\nx: ${'['.repeat(depth)}${']'.repeat(depth)}\n---\n`;
    }
    case 2:
      return `---\ntitle: ${words(r)}\nissue_id: "${'0'.repeat(r.int(5000))}${r.int(99)}"\nstatus: ${words(r)}\n---\n`;
    case 3:
      return `---\n${run(r)}: : : [\n---\n`; // malformed
    case 4:
      return `---\ntitle: ${words(r)}\n`; // never closed
    default:
      return '';
  }
}

function document(r: R): string {
  const lines: string[] = [];
  const n = r.int(r.next() < 0.05 ? 2000 : 60);
  for (let i = 0; i < n; i++) lines.push(line(r));
  return frontmatter(r) + lines.join(r.pick(['\n', '\n', '\r\n', '\r']));
}

const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

function match(meta: ReturnType<typeof extractMetadata>['metadata'], excerpt: string, i: number): HistoryMatch {
  return {
    issueId: meta.issueId,
    title: meta.title,
    filePath: meta.filePath,
    score: 0.6 + i / 100,
    status: meta.status,
    statusReason: meta.statusReason,
    summary: meta.summary,
    documentType: meta.documentType,
    section: 'S',
    excerpt,
  };
}

describe(`fuzz: ${CASES} hostile documents (seed ${SEED})`, () => {
  test('every reader terminates with bounded output and the brief sections are a fixed point', () => {
    const r = rng(SEED);
    for (let c = 0; c < CASES; c++) {
      const where = `seed ${SEED}, case ${c}`;
      const doc = document(r);
      try {
        const decoded = decodeText(Buffer.from(doc, 'utf8'), 1024 * 1024);
        if (!decoded.ok) continue; // NUL bytes: classified as binary, the reason says so
        const fm = splitFrontmatter(decoded.text);
        expect(typeof fm.body).toBe('string');
        const { metadata, body } = extractMetadata(`docs/audit/done/${c}/001-issue.md`, decoded.text, ['history'], 'h');
        expect(metadata.title.length).toBeLessThanOrEqual(MAX_TITLE_CHARS);
        expect(metadata.summary.length).toBeLessThanOrEqual(300);
        expect((metadata.statusReason ?? '').length).toBeLessThanOrEqual(240);

        const chunks = chunkMarkdown(body, metadata.title, {
          maxTokens: 254,
          minTokens: 24,
          countTokens: approxTokens,
        });
        for (const ch of chunks) {
          expect(ch.section.length).toBeLessThanOrEqual(200);
          // Over budget only when one unbreakable word is (a 20,000-character run of `_`).
          if (approxTokens(ch.text) > 254) expect(ch.text.trim()).not.toMatch(/\s/);
        }
        const excerpts = chunks.slice(0, 5).map((ch) => excerptOf(ch.text));
        for (const e of excerpts) expect(e.length).toBeLessThanOrEqual(280);

        const limited = briefForCheck(decoded.text);
        expect(limited.text.length).toBeLessThanOrEqual(MAX_CHECK_CHARS);

        // This document as past work, appended to this document as a brief.
        const m = match(metadata, excerpts[0] ?? '', 0);
        const parts = {
          linked: r.next() < 0.3 ? m : null,
          related: [m, match(metadata, excerpts[1] ?? '', 1)],
          standards: [],
        };
        const once = composeBrief(decoded.text, parts);
        expect(composeBrief(once, parts)).toBe(once);
        // What agentos adds: no escapes, no heading or marker of the past document's making.
        const added = `${relatedPastWorkSection(parts.related)}\n${linkedPastWorkSection(m)}`;
        expect(added).not.toMatch(CONTROL);
        expect(added).not.toMatch(/<!--/);
        expect(added).not.toMatch(/^#{1,6}\s(?!Related Past Work$|Linked Past Work$)/m);

        for (const s of [metadata.title, metadata.summary, metadata.statusReason ?? '', ...excerpts]) {
          expect(terminalSafe(s)).not.toMatch(CONTROL);
          expect(quotePast(s)).not.toMatch(/<!--|\n/);
        }
        const shown = safeForTerminal(m);
        expect(`${shown.title}${shown.summary}${shown.excerpt}${shown.filePath}`).not.toMatch(CONTROL);
      } catch (e) {
        (e as Error).message = `${where}: ${(e as Error).message}`;
        throw e;
      }
    }
  });
});
