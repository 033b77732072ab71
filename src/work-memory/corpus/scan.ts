import { readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import type { CorpusFile, CorpusType, SkippedFile } from './types.js';
import { oneDocumentPerIssueFolder } from './layouts.js';
import { compareText } from '../../shared/text/compare.js';

export interface CorpusGlobs {
  standards: string[];
  history: string[];
  exclude: string[];
}

export interface ScanResult {
  files: CorpusFile[];
  skipped: SkippedFile[];
}

/** Folders never worth walking into. */
const SKIP_DIRS = new Set(['.git', 'node_modules', '.agentos', '.hg', '.svn']);

/** A matched path, and whether reaching it crossed a symlink (only then must it be resolved). */
interface Found {
  rel: string;
  viaLink: boolean;
}

/**
 * Find the corpus files under `root`. Globs match case-insensitively (projects
 * spell `docs/LLDs` and `docs/llds` alike); only the static base of each glob is
 * walked, so large repositories are not crawled. Symlinks are resolved and
 * anything that resolves outside the repository is skipped with a reason.
 *
 * The walk uses synchronous calls on purpose: it is thousands of tiny metadata
 * reads, and a thread-pool round trip for each made a no-op `index` of 1,000
 * documents spend 300 ms here (docs/benchmarks.md).
 */
export async function scanCorpus(root: string, globs: CorpusGlobs, includeHistory: boolean): Promise<ScanResult> {
  const realRoot = await realpath(root);
  const byPath = new Map<string, CorpusFile>();
  const skipped = new Map<string, string>();
  const isExcluded = globs.exclude.length ? picomatch(globs.exclude, { nocase: true, dot: true }) : () => false;

  const listings: Listings = new Map();
  const sets: Array<[CorpusType, string[]]> = [['standard', globs.standards]];
  if (includeHistory) sets.push(['history', globs.history]);

  for (const [type, list] of sets) {
    for (const { rel, viaLink } of expandGlobs(realRoot, list, skipped, listings)) {
      if (isExcluded(rel)) continue;
      const existing = byPath.get(rel);
      if (existing) {
        if (!existing.types.includes(type)) existing.types.push(type);
        continue;
      }
      const checked = checkInside(realRoot, rel, viaLink);
      if (typeof checked === 'string') {
        skipped.set(rel, checked);
        continue;
      }
      byPath.set(rel, {
        relPath: rel,
        absPath: checked.abs,
        types: [type],
        size: checked.size,
        mtimeMs: checked.mtimeMs,
      });
    }
  }
  const files = oneDocumentPerIssueFolder([...byPath.values()]).sort((a, b) => compareText(a.relPath, b.relPath));
  return {
    files,
    skipped: [...skipped]
      .map(([relPath, reason]) => ({ relPath, reason }))
      .sort((a, b) => compareText(a.relPath, b.relPath)),
  };
}

/**
 * `realRoot` + `rel` without path.join's normalising (a tenth of a scan of 1,000
 * documents): `rel` is built here from directory entry names joined by `/`, which
 * hold no `/`, `.` or `..` segment, and `realRoot` is already a resolved path.
 */
const under = (realRoot: string, rel: string) =>
  rel === '' ? realRoot : realRoot === '/' ? `/${rel}` : `${realRoot}/${rel}`;

const outside = (realRoot: string, real: string) => {
  const back = path.relative(realRoot, real);
  return back.startsWith('..') || path.isAbsolute(back);
};

/** Make sure the file really lives inside the repository (resolving symlinks when one was crossed). */
function checkInside(
  realRoot: string,
  rel: string,
  viaLink: boolean,
): { abs: string; size: number; mtimeMs: number } | string {
  let abs = under(realRoot, rel);
  if (viaLink) {
    try {
      abs = realpathSync(abs);
    } catch {
      return 'broken symlink';
    }
    if (outside(realRoot, abs)) return 'resolves outside the repository';
  }
  let st;
  try {
    st = statSync(abs);
  } catch {
    return 'unreadable';
  }
  if (!st.isFile()) return 'not a regular file';
  return { abs, size: st.size, mtimeMs: st.mtimeMs };
}

/**
 * Directory listings of one scan. Globs share folders (three history globs under
 * `docs/audit/done/*` listed its 900 folders three times: 2,700 readdirs, most of a
 * 100 ms freshness check); each folder is now read once per scan.
 */
type Listings = Map<string, Dirent[]>;

function list(absDir: string, listings: Listings): Dirent[] {
  let entries = listings.get(absDir);
  if (!entries) {
    try {
      entries = readdirSync(absDir, { withFileTypes: true });
    } catch {
      entries = [];
    }
    listings.set(absDir, entries);
  }
  return entries;
}

/**
 * Repo-relative paths of files matching any of `globs`, in the order one glob after
 * another would give them (the first glob's files first, each in walk order): which
 * revision of an issue folder wins a tie depends on it (layouts.ts). Globs that start
 * from the same folder are walked together, once (three history globs share
 * `docs/audit/done/*`).
 */
function expandGlobs(realRoot: string, globs: string[], skipped: Map<string, string>, listings: Listings): Found[] {
  const found: { f: Found; glob: number }[] = [];
  const groups = new Map<string, { index: number; re: RegExp; maxDepth: number }[]>();
  globs.forEach((glob, index) => {
    // A folder name escaped in the glob (`packages/\\@org/app/adr/**`) is walked from the folder itself.
    const scan = picomatch.scan(glob, { unescape: true });
    // The bare regular expression: picomatch's matcher function wraps each test in option
    // handling this walk does not use (a tenth of the scan of 1,000 documents).
    const re = picomatch.makeRe(glob, { nocase: true, dot: false });
    if (!scan.isGlob) {
      // A plain path (`docs/CONVENTIONS.md`): its "base" is the file itself, which the
      // folder walk below never starts from. Look the name up in its folder instead.
      const dir = path.posix.dirname(scan.base);
      const name = path.posix.basename(scan.base).toLowerCase();
      for (const d of resolveBaseCaseInsensitive(realRoot, dir === '.' ? '' : dir, listings)) {
        for (const e of list(under(realRoot, d.rel), listings)) {
          if (e.name.toLowerCase() === name)
            found.push({
              f: { rel: d.rel ? `${d.rel}/${e.name}` : e.name, viaLink: d.viaLink || e.isSymbolicLink() },
              glob: index,
            });
        }
      }
      return;
    }
    // Without `**` a glob matches no deeper below its base than it has segments (`*` never
    // crosses a `/`; slashes inside braces only raise the bound): no need to walk deeper.
    const maxDepth = scan.glob.includes('**') ? Infinity : scan.glob.split('/').length;
    const group = groups.get(scan.base) ?? [];
    group.push({ index, re, maxDepth });
    groups.set(scan.base, group);
  });
  for (const [base, group] of groups) {
    const maxDepth = Math.max(...group.map((g) => g.maxDepth));
    const firstMatch = (p: string) => {
      for (const g of group) if (g.re.test(p)) return g.index;
      return -1;
    };
    for (const start of resolveBaseCaseInsensitive(realRoot, base, listings)) {
      walk(realRoot, start, firstMatch, found, skipped, new Set(), listings, maxDepth);
    }
  }
  // Stable: within one glob, walk order.
  return found.sort((a, b) => a.glob - b.glob).map((x) => x.f);
}

/** `docs/LLDs/done` may be `docs/llds/Done` on disk: find every spelling that exists. */
function resolveBaseCaseInsensitive(realRoot: string, base: string, listings: Listings): Found[] {
  let current: Found[] = [{ rel: '', viaLink: false }];
  for (const segment of base.split('/').filter(Boolean)) {
    const next: Found[] = [];
    for (const dir of current) {
      for (const e of list(under(realRoot, dir.rel), listings)) {
        if (e.name.toLowerCase() === segment.toLowerCase() && (e.isDirectory() || e.isSymbolicLink())) {
          next.push({ rel: dir.rel ? `${dir.rel}/${e.name}` : e.name, viaLink: dir.viaLink || e.isSymbolicLink() });
        }
      }
    }
    current = next;
  }
  return current;
}

/** `depth`: how many more path segments the glob can match below `dir` (1: only its own entries). */
function walk(
  realRoot: string,
  dir: Found,
  firstMatch: (p: string) => number,
  out: { f: Found; glob: number }[],
  skipped: Map<string, string>,
  seen: Set<string>,
  listings: Listings,
  depth: number,
): void {
  const absDir = under(realRoot, dir.rel);
  if (dir.viaLink) {
    // Only a symlinked folder can leave the repository or close a loop.
    let realDir: string;
    try {
      realDir = realpathSync(absDir);
    } catch {
      return;
    }
    if (outside(realRoot, realDir)) {
      skipped.set(dir.rel, 'folder resolves outside the repository');
      return;
    }
    if (seen.has(realDir)) return; // symlink loop
    seen.add(realDir);
  } else {
    // Reached without a link, the folder's real path is the root plus its relative path.
    if (seen.has(absDir)) return;
    seen.add(absDir);
  }
  for (const e of list(absDir, listings)) {
    const rel = dir.rel ? `${dir.rel}/${e.name}` : e.name;
    const viaLink = dir.viaLink || e.isSymbolicLink();
    let isDir = e.isDirectory();
    if (e.isSymbolicLink()) {
      try {
        isDir = statSync(under(realRoot, rel)).isDirectory();
      } catch {
        isDir = false;
      }
    }
    if (isDir) {
      if (depth > 1 && !SKIP_DIRS.has(e.name))
        walk(realRoot, { rel, viaLink }, firstMatch, out, skipped, seen, listings, depth - 1);
    } else {
      const glob = firstMatch(rel);
      if (glob >= 0) out.push({ f: { rel, viaLink }, glob });
    }
  }
}
