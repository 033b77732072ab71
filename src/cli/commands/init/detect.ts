import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../../shared/config/schema.js';
import { countGlobMatches, literalGlob } from '../../../work-memory/corpus/glob-counts.js';
import type { CorpusType } from '../../../work-memory/corpus/types.js';

/**
 * Folders projects keep decisions and completed work in. Each candidate offers
 * globs from the most specific to the most general; the first that matches
 * files is proposed. Paths match case-insensitively (docs/LLDs = docs/llds).
 */
export interface Candidate {
  folder: string;
  /** What the folder holds: standing decisions, completed work, or finished designs that are both. */
  types: CorpusType[];
  globs: string[][];
  why: string;
}

export const CANDIDATES: Candidate[] = [
  { folder: 'docs/adr', types: ['standard'], globs: [['docs/adr/**/*.md']], why: 'architecture decision records' },
  { folder: 'docs/adrs', types: ['standard'], globs: [['docs/adrs/**/*.md']], why: 'architecture decision records' },
  { folder: 'docs/decisions', types: ['standard'], globs: [['docs/decisions/**/*.md']], why: 'decision records' },
  {
    folder: 'docs/architecture/decisions',
    types: ['standard'],
    globs: [['docs/architecture/decisions/**/*.md']],
    why: 'decision records',
  },
  { folder: 'adr', types: ['standard'], globs: [['adr/**/*.md']], why: 'architecture decision records' },
  { folder: 'docs/rfcs', types: ['standard'], globs: [['docs/rfcs/**/*.md']], why: 'RFCs' },
  { folder: 'rfcs', types: ['standard'], globs: [['rfcs/**/*.md']], why: 'RFCs' },
  { folder: 'docs/standards', types: ['standard'], globs: [['docs/standards/**/*.md']], why: 'standards' },
  { folder: 'docs/conventions', types: ['standard'], globs: [['docs/conventions/**/*.md']], why: 'conventions' },
  { folder: 'docs/lld/done', types: ['standard', 'history'], globs: [['docs/lld/done/*.md']], why: 'finished designs' },
  {
    folder: 'docs/llds/done',
    types: ['standard', 'history'],
    globs: [['docs/llds/done/*.md']],
    why: 'finished designs',
  },
  {
    folder: 'docs/audit/done',
    types: ['history'],
    globs: [['docs/audit/done/*/001-issue.md'], ['docs/audit/done/**/*.md']],
    why: 'finished issues',
  },
  {
    folder: 'docs/lineage/done',
    types: ['history'],
    globs: [['docs/lineage/done/*/001-issue.md', 'docs/lineage/done/*/001-brief.md'], ['docs/lineage/done/**/*.md']],
    why: 'finished issues',
  },
  { folder: 'issues/closed', types: ['history'], globs: [['issues/closed/**/*.md']], why: 'closed issues' },
  { folder: 'issues/done', types: ['history'], globs: [['issues/done/**/*.md']], why: 'finished issues' },
  { folder: 'docs/issues/closed', types: ['history'], globs: [['docs/issues/closed/**/*.md']], why: 'closed issues' },
  { folder: 'docs/issues/done', types: ['history'], globs: [['docs/issues/done/**/*.md']], why: 'finished issues' },
  {
    folder: 'docs/designs/done',
    types: ['standard', 'history'],
    globs: [['docs/designs/done/**/*.md']],
    why: 'finished designs',
  },
];

/**
 * A folder named as decision records are named (`doc/adr`, adr-tools' default; Backstage's
 * `docs/architecture-decisions`; `architecture/decisions`; `docs/decision-records`; `rfcs`),
 * wherever it sits: the list above holds the usual places, this finds the rest by name.
 */
const DECISION_FOLDER =
  /^(?:adrs?|decisions?|decision[-_]records?|architecture[-_]decisions?|architecture[-_]decision[-_]records?|rfcs?)$/i;
const BY_NAME = 'decision records (by the folder name)';
/** Folders never searched for decision records: dependencies, build output, tooling, and code (`src/decisions/` is a module). */
const NOT_SEARCHED = new Set([
  'node_modules',
  'vendor',
  'dist',
  'build',
  'out',
  'target',
  'coverage',
  'bower_components',
  '__pycache__',
  'src',
  'lib',
  'internal',
  'pkg',
  'test',
  'tests',
]);
/** How deep and how wide the search goes: init on a large monorepo stays a stat walk of a few thousand folders. */
const SEARCH_DEPTH = 4;
const SEARCH_FOLDERS = 5000;

/**
 * A breadth-first walk from `start` (repo-relative; '' for the root), SEARCH_DEPTH levels and at most
 * SEARCH_FOLDERS folders read, entries in name order. `visit` says of each entry whether to go into it
 * (a folder); unreadable folders are skipped.
 */
async function walk(root: string, start: string, visit: (rel: string, e: Dirent) => boolean): Promise<void> {
  let queue = [start];
  let read = 0;
  for (let depth = 0; depth < SEARCH_DEPTH && queue.length; depth++) {
    const next: string[] = [];
    for (const rel of queue) {
      if (++read > SEARCH_FOLDERS) return;
      const entries = await readdir(path.join(root, rel), { withFileTypes: true }).catch(() => []);
      for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        const child = rel ? `${rel}/${e.name}` : e.name;
        if (visit(child, e)) next.push(child);
      }
    }
    queue = next;
  }
}

/** Decision-record folders by name, repo-relative with `/`, shallowest first; not inside one another. */
export async function decisionFolders(root: string): Promise<string[]> {
  const found: string[] = [];
  await walk(root, '', (rel, e) => {
    if (!e.isDirectory() || e.name.startsWith('.') || NOT_SEARCHED.has(e.name.toLowerCase())) return false;
    if (!DECISION_FOLDER.test(e.name)) return true;
    found.push(rel);
    return false;
  });
  return found;
}

export interface FoundFolder {
  folder: string;
  types: CorpusType[];
  why: string;
  /** The proposed globs, each with the files it matches now (the files `exclude` names left out). */
  globs: { glob: string; files: number }[];
  files: number;
  /** Files in it that are no decision: a template to copy, the folder's index page (proposed as `corpus.exclude`). */
  exclude: { path: string; why: string }[];
}

/** A template to copy, not a decision: `adr-template.md`, `adr-template-minimal.md`, `0000-template.md`, `adr000-template.md`, `template.md`. */
const TEMPLATE_FILE = /^(?:adr[-_]?)?0*[-_]?template(?:[-_][\w-]*)?\.md$/i;
/** A decision-record folder's index or README: a list of the records, or how to write one. */
const INDEX_FILE = /^(?:index|readme)\.md$/i;
/** The files of a standards folder that are no decision, as repo-relative paths. */
async function notDecisions(root: string, folder: string): Promise<{ path: string; why: string }[]> {
  const out: { path: string; why: string }[] = [];
  // In a folder of decision records an index page lists them (in docs/standards a README may be one).
  const records = DECISION_FOLDER.test(path.posix.basename(folder));
  await walk(root, folder, (rel, e) => {
    if (e.isFile() && TEMPLATE_FILE.test(e.name)) out.push({ path: rel, why: 'a template, not a decision' });
    else if (e.isFile() && records && INDEX_FILE.test(e.name)) out.push({ path: rel, why: "the folder's index page" });
    return e.isDirectory() && !e.name.startsWith('.');
  });
  return out;
}

/**
 * Which candidate folders exist with markdown in them, and the globs to use.
 * Stat only; `exclude` of the current config applies.
 */
export async function detectLayout(
  root: string,
  exclude: Config['corpus']['exclude'] = [],
  candidates?: Candidate[],
): Promise<FoundFolder[]> {
  const found: FoundFolder[] = [];
  // The usual places first, then any other folder named as decision records are (not one already proposed, nor inside one).
  const known = CANDIDATES.map((c) => c.folder.toLowerCase());
  const inKnown = (f: string) => known.some((k) => f.toLowerCase() === k || f.toLowerCase().startsWith(`${k}/`));
  candidates ??= [
    ...CANDIDATES,
    ...(await decisionFolders(root))
      .filter((f) => !inKnown(f))
      .map(
        (f): Candidate => ({ folder: f, types: ['standard'], globs: [[`${literalGlob(f)}/**/*.md`]], why: BY_NAME }),
      ),
  ];
  // The same folder spelled twice (docs/lld/done vs docs/LLD/done) must be offered once.
  const seen = new Set<string>();
  for (const c of candidates) {
    for (const set of c.globs) {
      const counts = await countGlobMatches(root, { standards: set, history: [], exclude, maxFileBytes: 0 }, [
        'standard',
      ]);
      const files = counts.reduce((n, g) => n + g.files, 0);
      // A folder found by its name alone is proposed with two records or more: one README in `src/decisions/` is code's.
      if (files === 0 || (c.why === BY_NAME && files < 2)) continue;
      const key = c.folder.toLowerCase();
      if (!seen.has(key)) {
        seen.add(key);
        // Standing decisions only: a template or an index page attached to a brief would stand for a rule it is not.
        const skip = c.types.length === 1 && c.types[0] === 'standard' ? await notDecisions(root, c.folder) : [];
        const kept = skip.length
          ? await countGlobMatches(
              root,
              { standards: set, history: [], exclude: [...exclude, ...skip.map((x) => x.path)], maxFileBytes: 0 },
              ['standard'],
            )
          : counts;
        found.push({
          folder: c.folder,
          types: c.types,
          why: c.why,
          globs: kept.filter((g) => g.files > 0).map(({ glob, files }) => ({ glob, files })),
          files: kept.reduce((n, g) => n + g.files, 0),
          exclude: skip,
        });
      }
      break;
    }
  }
  return found;
}

/** The corpus section from the folders chosen for each role. */
export function corpusFromChoice(
  found: FoundFolder[],
  standards: string[],
  history: string[],
): { standards: FoundFolder['globs']; history: FoundFolder['globs']; exclude: FoundFolder['exclude'] } {
  const pick = (folders: string[]) => found.filter((f) => folders.includes(f.folder)).flatMap((f) => f.globs);
  return {
    standards: pick(standards),
    history: pick(history),
    exclude: found.filter((f) => standards.includes(f.folder)).flatMap((f) => f.exclude),
  };
}
