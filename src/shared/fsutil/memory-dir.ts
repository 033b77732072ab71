import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * `.agentos/memory/`: what this clone remembers for its user (attempts, answers to
 * alerts, the work begun). Local and personal: never committed, whatever the
 * project's .gitignore says, so the folder ignores itself.
 */
export function ensureMemoryDir(root: string): string {
  const dir = path.join(root, '.agentos', 'memory');
  mkdirSync(dir, { recursive: true });
  const ignore = path.join(dir, '.gitignore');
  if (!existsSync(ignore)) writeFileSync(ignore, '*\n');
  return dir;
}
