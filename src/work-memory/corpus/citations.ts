/**
 * The ADRs and standards a brief names itself (issue 29): "per ADR-0007",
 * "follows ADR 10216", "see docs/standards/00008-json-report-schema.md",
 * "standard 00007". The author has said they govern the work, so the
 * Librarian attaches them whatever their score (check/standards.ts).
 *
 * One pass over the text collects what it names (ADR and standard numbers,
 * file names); documents are then looked up in it, so a long brief against
 * many standards costs one scan.
 */
import type { DocumentType } from './types.js';

export interface CitableDoc {
  filePath: string;
  documentType: DocumentType;
}

/** "ADR-0007", "ADR 7", "ADR #7", "ADRs 10217": the word fixes the kind, so any number counts. */
const ADR_NUMBER = /\badrs?[ \t#:-]*(\d{1,6})(?![\w-])/gi;
/**
 * "standard 00007", "Standard 123": three digits or more, so that "the standard 3 retries"
 * names nothing; the number may not run on into a word ("standard 3-step").
 */
const STANDARD_NUMBER = /\bstandards?[ \t#:-]*(\d{3,6})(?![\w-])/gi;
/** A path or file name as written: `docs\standards\00008-json-report-schema.md`, `0007-use-postgres`. */
const NAME = /[\w./\\-]*\d[\w./\\-]*|[\w./\\-]+\.md\b/g;
/** A file stem alone counts when it holds a number and a word: `00008-json-report-schema`, not `v2` or `2024`. */
const STEM_ALONE = /^(?=.*\d)(?=.*[a-z]{2})[\w.-]{8,}$/;

/** Paths (repository-relative) of the ADRs and standards the text names, in the order given. */
export function namedStandards(text: string, docs: readonly CitableDoc[]): string[] {
  const adrs = numbers(text, ADR_NUMBER);
  const standards = numbers(text, STANDARD_NUMBER);
  const names = new Set<string>();
  const stems = new Set<string>();
  /** Numbered file names the text gives (`0001-typography-system`), by number. */
  const stemsByNumber = new Map<number, Set<string>>();
  for (const m of text.matchAll(NAME)) {
    const name = m[0]
      .replace(/\\/g, '/')
      .replace(/^\.?\/+/, '')
      .replace(/[.]+$/, '')
      .toLowerCase();
    if (name.endsWith('.md')) names.add(name);
    const stem = basename(name).replace(/\.md$/, '');
    if (!STEM_ALONE.test(stem)) continue;
    stems.add(stem);
    const n = stemNumber(stem);
    // Only a name with words says which document: "ADR-0007" itself is the number.
    if (n !== null && slugWords(stem).length > 0) stemsByNumber.set(n, (stemsByNumber.get(n) ?? new Set()).add(stem));
  }
  // A number two ADRs (or two standards) share names neither: which one was meant is not known.
  const byNumber = new Map<string, number>();
  for (const d of docs) {
    const n = docNumber(d);
    if (n !== null) byNumber.set(`${d.documentType}:${n}`, (byNumber.get(`${d.documentType}:${n}`) ?? 0) + 1);
  }
  return docs
    .filter((d) => {
      if (d.documentType !== 'adr' && d.documentType !== 'standard') return false;
      const path = d.filePath.toLowerCase();
      const base = basename(path);
      const stem = base.replace(/\.md$/, '');
      if ([...names].some((n) => n === path || path.endsWith(`/${n}`) || n.endsWith(`/${path}`) || (n === base && /\d/.test(base)))) return true;
      if (stems.has(stem) && STEM_ALONE.test(stem)) return true;
      const n = docNumber(d);
      if (n === null || byNumber.get(`${d.documentType}:${n}`) !== 1) return false;
      // "ADR-0001 (docs/adr/0001-typography-system.md)" names another project's 0001, not 0001-repo-trust-tier-vocabulary;
      // "ADR 10217 (10217-jwt-authentication.md)" still names 10217-ADR-jwt-authentication.
      const given = stemsByNumber.get(n);
      if (given && ![...given].some((g) => sharesSlugWord(g, stem))) return false;
      return (d.documentType === 'adr' ? adrs : standards).has(n);
    })
    .map((d) => d.filePath);
}

function numbers(text: string, re: RegExp): Set<number> {
  const out = new Set<number>();
  for (const m of text.matchAll(re)) out.add(Number(m[1]));
  return out;
}

/** The number a file name gives an ADR or standard: `0007-use-postgres.md`, `ADR-0007-…`, `adr-12.md`. */
function docNumber(d: CitableDoc): number | null {
  return stemNumber(basename(d.filePath.toLowerCase()));
}

function stemNumber(stem: string): number | null {
  const m = /^(?:adr[-_ ]?)?(\d{1,6})(?!\d)/.exec(stem);
  return m ? Number(m[1]) : null;
}

const slugWords = (stem: string) => stem.split(/[^a-z]+/).filter((w) => w.length > 2 && w !== 'adr');
const sharesSlugWord = (a: string, b: string) => {
  const words = new Set(slugWords(b));
  return slugWords(a).some((w) => words.has(w));
};

const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);
