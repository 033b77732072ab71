/**
 * The ADRs and standards a brief names itself (issue 29): "per ADR-0007",
 * "follows ADR 10216", "ADRs 10217-10219", "see
 * docs/standards/00008-json-report-schema.md", "standard 00007". The author
 * has said they govern the work, so the standards check attaches them whatever
 * their score (check/standards.ts).
 *
 * One linear pass over the text collects what it names (ADR and standard
 * numbers, paths and numbered file names); each document is then looked up
 * in those sets, so a 1 MB brief against thousands of standards stays cheap.
 */
import { trimEndSet } from '../../shared/text/linear.js';
import type { DocumentType } from './types.js';

export interface CitableDoc {
  filePath: string;
  documentType: DocumentType;
}

/**
 * "ADR-0007", "ADR 7", "ADR #7", "ADR_0007", "ADR–0007" (en dash, no-break space): the word fixes the
 * kind, so any number counts. "standard 00007": a zero-padded number, as numbered standards are
 * written, so that "a standard 500 error" or "a standard 100 ms budget" names nothing. No
 * lookahead here: a failing one made the engine retry a long run of "ADR 1-ADR 1-…" from each start.
 */
const ADR_WORD = /\badrs?[ \t#:_\u00a0\u2013-]{0,3}(\d{1,6})/gi;
const STANDARD_WORD = /\bstandards?[ \t#:_\u00a0\u2013-]{0,3}(0\d{2,5})/gi;
/**
 * After a number, a list or range goes on: ", 10218", " and 10219", "-10219", " to ADR-0009".
 * Sticky, one step at a time, a bounded number of steps.
 */
const NEXT =
  /(?:[ \t]{0,3}(,|&|\/|and|or)[ \t]{0,3}|[ \t]{0,3}([-\u2013])[ \t]{0,3}|[ \t]{1,3}(to)[ \t]{1,3})((?:adrs?|standards?)[ \t#:_\u00a0\u2013-]{0,3})?(\d{1,6})/iy;
const MAX_LIST = 20;
/** Longest range expanded ("ADRs 1-9999" is not a citation of 9,999 decisions). */
const MAX_RANGE = 20;
/** A file stem alone counts when it holds a number and a word: `00008-json-report-schema`, not `v2` or `2024`. */
const STEM_ALONE = /^(?=.*\d)(?=.*[a-z]{2})[\w.-]{8,}$/;
/** Words a file name shares with any other: `0002-use-vue` and `0002-use-react` share only these. */
const SLUG_NOISE = new Set(['adr', 'use', 'for', 'and', 'the', 'with', 'from', 'into', 'our', 'not', 'new']);
/** Path segments compared from the end: a URL's host and repository are not part of the document's path. */
const MAX_SEGMENTS = 12;

/** What a text names, read in one pass: ADR and standard numbers, and the paths and numbered file names it writes. */
export interface Citations {
  adrs: ReadonlySet<number>;
  standards: ReadonlySet<number>;
  mentioned: Mentions;
}

export function citationsIn(text: string): Citations {
  return { adrs: numbers(text, ADR_WORD), standards: numbers(text, STANDARD_WORD), mentioned: fileMentions(text) };
}

/** Paths (repository-relative) of the ADRs and standards a text names (or its citations, read once), in the index's order. */
export function namedStandards(cited: string | Citations, docs: readonly CitableDoc[]): string[] {
  const { adrs, standards, mentioned } = typeof cited === 'string' ? citationsIn(cited) : cited;
  // A number two ADRs (or two standards) share names neither: which one was meant is not known.
  const byNumber = new Map<string, number>();
  for (const d of docs) {
    const n = stemNumber(stemOf(d.filePath));
    if (n !== null) byNumber.set(`${d.documentType}:${n}`, (byNumber.get(`${d.documentType}:${n}`) ?? 0) + 1);
  }
  return docs
    .filter((d) => {
      if (d.documentType !== 'adr' && d.documentType !== 'standard') return false;
      const path = d.filePath.toLowerCase();
      const stem = stemOf(path);
      if (mentioned.names(path) || (STEM_ALONE.test(stem) && mentioned.stems.has(stem))) return true;
      const n = stemNumber(stem);
      if (n === null || byNumber.get(`${d.documentType}:${n}`) !== 1) return false;
      // "ADR-0001 (docs/adr/0001-typography-system.md)" names another project's 0001, not 0001-repo-trust-tier-vocabulary;
      // "ADR 10217 (10217-jwt-authentication.md)" still names 10217-ADR-jwt-authentication.
      const given = mentioned.fileStemsByNumber.get(n);
      if (given && ![...given].some((g) => sameSlug(g, stem))) return false;
      return (d.documentType === 'adr' ? adrs : standards).has(n);
    })
    .map((d) => d.filePath);
}

/**
 * Every number a match names: lists ("10217, 10218 and 10219") and short ranges ("10217-10219").
 * Without the word again, a list goes on only with a number written as an identifier is, as wide
 * as the first and of three digits or more: "ADR-0007 and 3 retries", "ADR 7 or 8 replicas" and
 * "ADR-0012 to 15 ms" name one ADR. A number that runs on into a word or a version names nothing.
 */
function numbers(text: string, re: RegExp): Set<number> {
  const out = new Set<number>();
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const at = m.index + m[0].length;
    if (runsOn(text, at, true)) continue;
    // Each list is read once: the next search starts where it ended.
    re.lastIndex = readList(text, at, m[1], out);
  }
  return out;
}

/** The first number and what follows it as a list or range, into `out`; returns where the list ends. */
function readList(text: string, at: number, first: string, out: Set<number>): number {
  let end = at;
  let prev = Number(first);
  out.add(prev);
  for (let i = 0; i < MAX_LIST; i++) {
    NEXT.lastIndex = end;
    const n = NEXT.exec(text);
    if (!n || runsOn(text, NEXT.lastIndex, false)) break;
    const [, , dash, to, word, digits] = n;
    if (!word && (digits.length !== first.length || digits.length < 3)) break;
    const value = Number(digits);
    if (dash || to) {
      if (value <= prev || value - prev > MAX_RANGE) break;
      for (let k = prev + 1; k < value; k++) out.add(k);
    }
    out.add(value);
    prev = value;
    end = NEXT.lastIndex;
  }
  return end;
}

/**
 * The number goes on into a word, a file name or a version (`0007-draft`, `0007.md`, `7.0.1`, `7th`),
 * so it is not a citation by number. Only the first number may go on into a range ("10217-10219");
 * a later one must end there ("ADR-0007, 2024-01-05" is a date, not ADR 2024).
 */
function runsOn(text: string, at: number, first: boolean): boolean {
  const c = text[at] ?? '';
  if (first && (c === '-' || c === '\u2013'))
    return !/^[-\u2013][ \t]{0,3}(?:\d|adr|standard)/i.test(text.slice(at, at + 16));
  if (c === '.') return /\w/.test(text[at + 1] ?? '');
  return /[\w\u2013-]/.test(c);
}

export interface Mentions {
  /** Whether the text names this path: itself, a longer path ending in it (a URL), or a tail of it with a folder. */
  names(path: string): boolean;
  /** Numbered file stems written anywhere (`00008-json-report-schema`). */
  stems: Set<string>;
  /** Numbered names written as files (`….md`, or with a folder), by number: they say which document a number means. */
  fileStemsByNumber: Map<number, Set<string>>;
}

/** Paths and file names as written: `docs\standards\00008-json-report-schema.md`, `0007-use-postgres`. One split, linear in the text. */
function fileMentions(text: string): Mentions {
  const tails = new Set<string>(); // every tail of a written path, from its file name up
  const bare = new Set<string>(); // file names written without a folder
  const stems = new Set<string>();
  const fileStemsByNumber = new Map<number, Set<string>>();
  for (const token of text.split(/[^\w./\\-]+/)) {
    if (!token || !(/\d/.test(token) || /\.md\b/i.test(token))) continue;
    // Sentence dots off the end ("see 0007-x.md."), in one pass: `/[.]+$/` rescanned a run of dots from each of its starts.
    const name = trimEndSet(token.replace(/\\/g, '/'), '.').toLowerCase();
    const segments = name.split('/').filter((s) => s && s !== '.');
    if (!segments.length) continue;
    const file = segments[segments.length - 1];
    const isFile = file.endsWith('.md');
    if (isFile && segments.length === 1) bare.add(file);
    else if (isFile)
      for (let i = Math.max(0, segments.length - MAX_SEGMENTS); i < segments.length - 1; i++)
        tails.add(segments.slice(i).join('/'));
    const stem = file.replace(/\.md$/, '');
    if (!STEM_ALONE.test(stem)) continue;
    stems.add(stem);
    const n = stemNumber(stem);
    // Only a name written as a file says which document its number means: "10-minutes" or "2.0.1-beta" is not one.
    if (n !== null && (isFile || segments.length > 1) && slugWords(stem).length > 0)
      fileStemsByNumber.set(n, (fileStemsByNumber.get(n) ?? new Set()).add(stem));
  }
  return {
    names(path: string): boolean {
      const segments = path.split('/');
      const file = segments[segments.length - 1];
      // A bare file name names a document only when it is numbered: "README.md" or "index.md" is anybody's.
      if (bare.has(file) && /\d/.test(file)) return true;
      // Itself, a tail of it with a folder, or (the whole path among the tails) a longer path ending in it: a URL.
      for (let i = 0; i < segments.length - 1; i++) if (tails.has(segments.slice(i).join('/'))) return true;
      return false;
    },
    stems,
    fileStemsByNumber,
  };
}

function stemOf(path: string): string {
  return path
    .slice(path.lastIndexOf('/') + 1)
    .toLowerCase()
    .replace(/\.md$/, '');
}

/** The number a file name gives an ADR or standard: `0007-use-postgres`, `adr-0007-…`, `adr-12`. */
function stemNumber(stem: string): number | null {
  const m = /^(?:adr[-_ ]?)?(\d{1,6})(?!\d)/.exec(stem);
  return m ? Number(m[1]) : null;
}

const slugWords = (stem: string) => stem.split(/[^a-z]+/).filter((w) => w.length > 2 && !SLUG_NOISE.has(w));

/** Most of the words of the name given are the document's own. */
function sameSlug(given: string, stem: string): boolean {
  const own = new Set(slugWords(stem));
  const words = slugWords(given);
  return words.length > 0 && words.filter((w) => own.has(w)).length * 2 >= words.length;
}
