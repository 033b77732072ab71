import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Best effort, atomic (tmp + rename): a cache that cannot be written is recomputed
 * next time. The folder keeps itself out of git (a project without `agentos init`
 * has no .agentos/.gitignore).
 */
export function writeCache(file: string, value: unknown): void {
  try {
    const dir = path.dirname(file);
    mkdirSync(dir, { recursive: true });
    const ignore = path.join(dir, '.gitignore');
    if (!existsSync(ignore)) writeFileSync(ignore, '*\n');
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(value));
    renameSync(tmp, file);
  } catch {
    /* read-only project: fine */
  }
}
