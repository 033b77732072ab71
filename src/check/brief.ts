import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { decodeText, sha256 } from '../corpus/read.js';
import { UsageError } from '../errors.js';

export interface Brief {
  /** As given ("-" for stdin). */
  source: string;
  /** Absolute path, null for stdin. */
  absPath: string | null;
  text: string;
  hash: string;
}

const MAX_BRIEF_BYTES = 1024 * 1024;

/** Read the user's brief. Every problem is a UsageError (exit 2), never a failed-open check. */
export async function readBrief(source: string, cwd: string, stdin: Readable): Promise<Brief> {
  let buf: Buffer;
  let absPath: string | null = null;
  const label = source === '-' ? 'stdin' : source;
  if (source === '-') {
    buf = await readAll(stdin);
  } else {
    absPath = path.resolve(cwd, source);
    try {
      buf = await readFile(absPath);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder, not a file' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
      throw new UsageError(`${label}: cannot read brief: ${why}`);
    }
  }
  const decoded = decodeText(buf, MAX_BRIEF_BYTES);
  if (!decoded.ok) throw new UsageError(`${label}: cannot use brief: ${decoded.reason}`);
  if (decoded.text.trim() === '') throw new UsageError(`${label}: brief is empty`);
  return { source, absPath, text: decoded.text, hash: sha256(buf) };
}

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(parts);
}
