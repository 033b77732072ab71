import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import type { CorpusFile, CorpusType, SkippedFile } from './types.js';

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

/**
 * Find the corpus files under `root`. Globs match case-insensitively (projects
 * spell `docs/LLDs` and `docs/llds` alike); only the static base of each glob is
 * walked, so large repositories are not crawled. Symlinks are resolved and
 * anything that resolves outside the repository is skipped with a reason.
 */
export async function scanCorpus(root: string, globs: CorpusGlobs, includeHistory: boolean): Promise<ScanResult> {
  const realRoot = await realpath(root);
  const byPath = new Map<string, CorpusFile>();
  const skipped = new Map<string, string>();
  const isExcluded = globs.exclude.length ? picomatch(globs.exclude, { nocase: true, dot: true }) : () => false;

  const sets: Array<[CorpusType, string[]]> = [['standard', globs.standards]];
  if (includeHistory) sets.push(['history', globs.history]);

  for (const [type, list] of sets) {
    for (const glob of list) {
      for (const rel of await expandGlob(realRoot, glob, skipped)) {
        if (isExcluded(rel)) continue;
        const existing = byPath.get(rel);
        if (existing) {
          if (!existing.types.includes(type)) existing.types.push(type);
          continue;
        }
        const checked = await checkInside(realRoot, rel);
        if (typeof checked === 'string') {
          skipped.set(rel, checked);
          continue;
        }
        byPath.set(rel, { relPath: rel, absPath: checked.abs, types: [type], size: checked.size, mtimeMs: checked.mtimeMs });
      }
    }
  }
  const files = [...byPath.values()].sort((a, b) => comparePaths(a.relPath, b.relPath));
  return {
    files,
    skipped: [...skipped].map(([relPath, reason]) => ({ relPath, reason })).sort((a, b) => comparePaths(a.relPath, b.relPath)),
  };
}

/** Resolve symlinks and make sure the file really lives inside the repository. */
async function checkInside(realRoot: string, rel: string): Promise<{ abs: string; size: number; mtimeMs: number } | string> {
  const abs = path.join(realRoot, rel);
  let real: string;
  try {
    real = await realpath(abs);
  } catch {
    return 'broken symlink';
  }
  const back = path.relative(realRoot, real);
  if (back.startsWith('..') || path.isAbsolute(back)) return 'resolves outside the repository';
  const st = await stat(real);
  if (!st.isFile()) return 'not a regular file';
  return { abs: real, size: st.size, mtimeMs: st.mtimeMs };
}

/** Repo-relative paths of files matching one glob. */
async function expandGlob(realRoot: string, glob: string, skipped: Map<string, string>): Promise<string[]> {
  const scan = picomatch.scan(glob);
  const isMatch = picomatch(glob, { nocase: true, dot: false });
  const out: string[] = [];
  if (!scan.isGlob) {
    // A plain path (`docs/CONVENTIONS.md`): its "base" is the file itself, which the
    // folder walk below never starts from. Look the name up in its folder instead.
    const dir = path.posix.dirname(scan.base);
    const name = path.posix.basename(scan.base).toLowerCase();
    for (const d of await resolveBaseCaseInsensitive(realRoot, dir === '.' ? '' : dir)) {
      const entries = await readdir(path.join(realRoot, d), { withFileTypes: true }).catch(() => []);
      for (const e of entries) if (e.name.toLowerCase() === name) out.push(d ? `${d}/${e.name}` : e.name);
    }
    return out;
  }
  for (const start of await resolveBaseCaseInsensitive(realRoot, scan.base)) {
    await walk(realRoot, start, isMatch, out, skipped, new Set());
  }
  return out;
}

/** `docs/LLDs/done` may be `docs/llds/Done` on disk: find every spelling that exists. */
async function resolveBaseCaseInsensitive(realRoot: string, base: string): Promise<string[]> {
  let current = [''];
  for (const segment of base.split('/').filter(Boolean)) {
    const next: string[] = [];
    for (const dir of current) {
      let entries;
      try {
        entries = await readdir(path.join(realRoot, dir), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        if (e.name.toLowerCase() === segment.toLowerCase() && (e.isDirectory() || e.isSymbolicLink())) {
          next.push(dir ? `${dir}/${e.name}` : e.name);
        }
      }
    }
    current = next;
  }
  return current;
}

async function walk(
  realRoot: string,
  relDir: string,
  isMatch: (p: string) => boolean,
  out: string[],
  skipped: Map<string, string>,
  seen: Set<string>,
): Promise<void> {
  const absDir = path.join(realRoot, relDir);
  let realDir: string;
  try {
    realDir = await realpath(absDir);
  } catch {
    return;
  }
  const back = path.relative(realRoot, realDir);
  if (back.startsWith('..') || path.isAbsolute(back)) {
    skipped.set(relDir, 'folder resolves outside the repository');
    return;
  }
  if (seen.has(realDir)) return; // symlink loop
  seen.add(realDir);
  let entries;
  try {
    entries = await readdir(absDir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const rel = relDir ? `${relDir}/${e.name}` : e.name;
    let isDir = e.isDirectory();
    if (e.isSymbolicLink()) {
      try {
        isDir = (await stat(path.join(realRoot, rel))).isDirectory();
      } catch {
        isDir = false;
      }
    }
    if (isDir) {
      if (!SKIP_DIRS.has(e.name)) await walk(realRoot, rel, isMatch, out, skipped, seen);
    } else if (isMatch(rel)) {
      out.push(rel);
    }
  }
}


/** Byte order, the same on every machine and locale. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
