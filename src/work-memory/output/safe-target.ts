import { lstatSync, realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { readRegularFileSync } from '../../shared/fsutil/bounded-read.js';

/**
 * Where agentos may write without destroying the user's files. Paths are
 * compared as the file system sees them (device and inode, real paths), never
 * as strings: `out/brief.md` through a symlinked folder, a symlink to the brief
 * or a hard link are all the brief.
 */
export function isSameFile(target: string, protectedFile: string): boolean {
  let p: Stats;
  try {
    p = statSync(protectedFile);
  } catch {
    return false;
  }
  try {
    const t = statSync(target);
    return t.dev === p.dev && t.ino === p.ino;
  } catch {
    // The target does not exist (yet): its folder's real path plus its name.
  }
  try {
    return path.join(realpathSync(path.dirname(target)), path.basename(target)) === realpathSync(protectedFile);
  } catch {
    return false;
  }
}

/** Marks a check record as agentos' own, so a later run may replace it and nothing else. */
export const CHECK_RECORD_KIND = 'agentos-check-record';
const MAX_RECORD_BYTES = 4 * 1024 * 1024;

/**
 * A file agentos wrote: a regular file (not a link) holding a check record,
 * marked with CHECK_RECORD_KIND (or the unmarked shape earlier versions wrote).
 */
export function isOwnCheckRecord(file: string): boolean {
  try {
    if (!lstatSync(file).isFile()) return false;
    const data = JSON.parse(readRegularFileSync(file, MAX_RECORD_BYTES).toString('utf8')) as Record<string, unknown>;
    if (typeof data !== 'object' || data === null) return false;
    if (data.kind === CHECK_RECORD_KIND) return true;
    const brief = data.brief as Record<string, unknown> | undefined;
    return (
      typeof data.status === 'string' &&
      typeof data.decision === 'string' &&
      typeof brief === 'object' &&
      brief !== null &&
      'sha256' in brief
    );
  } catch {
    return false;
  }
}

function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where the check record goes: beside the brief to use when that name is free
 * or already agentos' record; otherwise under `.agentos/issues/<slug>/` (the
 * folder agentos owns), never over the brief or a file the user made.
 */
export function checkRecordPath(outPath: string, ownDir: string, briefPath: string | null): string {
  const usable = (f: string) => (!exists(f) || isOwnCheckRecord(f)) && !(briefPath && isSameFile(f, briefPath));
  const beside = path.join(path.dirname(outPath), 'check.json');
  if (usable(beside)) return beside;
  const own = path.join(ownDir, 'check.json');
  if (usable(own)) return own;
  return path.join(ownDir, `check-${process.pid}-${Date.now().toString(36)}.json`);
}
