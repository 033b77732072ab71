import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './errors.js';

/** The project root: `--cwd`, else the nearest folder upwards holding `.agentos/` or `.git`. */
export function findProjectRoot(cwd: string, explicit?: string): string {
  if (explicit) {
    const dir = path.resolve(cwd, explicit);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--cwd ${explicit}: not a folder`);
    return dir;
  }
  let dir = path.resolve(cwd);
  for (;;) {
    if (existsSync(path.join(dir, '.agentos')) || existsSync(path.join(dir, '.git'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return path.resolve(cwd);
    dir = up;
  }
}

/** The nearest folder upwards holding `.agentos/` or `.git`, or null when `cwd` is in no project. */
export function projectRootOrNull(cwd: string): string | null {
  let dir = path.resolve(cwd);
  for (;;) {
    if (existsSync(path.join(dir, '.agentos')) || existsSync(path.join(dir, '.git'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}
