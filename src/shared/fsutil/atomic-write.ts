import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Write a file by temp-and-rename: a reader sees the old content or the new, never half. */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  await writeFile(tmp, content);
  await rename(tmp, file);
}
