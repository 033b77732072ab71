import { createHash } from 'node:crypto';
import { BoundedReadError, readRegularFile } from '../../shared/fsutil/bounded-read.js';

export type ReadResult = { ok: true; text: string; hash: string } | { ok: false; reason: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Read a markdown file as text, or say why it cannot be used. The hash is of
 * the raw bytes, so it changes exactly when the file does.
 */
export async function readTextFile(absPath: string, maxBytes: number): Promise<ReadResult> {
  let buf: Buffer;
  try {
    // Bounded and regular files only: a FIFO or device swapped in after the scan is refused, not read.
    buf = await readRegularFile(absPath, maxBytes);
  } catch (e) {
    if (e instanceof BoundedReadError)
      return {
        ok: false,
        reason:
          e.problem === 'too-large' || e.problem === 'not-regular' ? e.reason : `unreadable (${e.code ?? e.reason})`,
      };
    return { ok: false, reason: `unreadable (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
  }
  return decodeText(buf, maxBytes);
}

export function decodeText(buf: Buffer, maxBytes: number): ReadResult {
  if (buf.length > maxBytes) {
    return { ok: false, reason: `larger than ${Math.round(maxBytes / 1024)} KB (${Math.round(buf.length / 1024)} KB)` };
  }
  // The whole file (at most maxBytes): a NUL after the first few KB is still not markdown.
  if (buf.includes(0)) return { ok: false, reason: 'binary file (contains NUL bytes)' };
  let text: string;
  try {
    text = utf8.decode(buf);
  } catch {
    return { ok: false, reason: 'not valid UTF-8' };
  }
  return { ok: true, text: normalizeText(text), hash: sha256(buf) };
}

/** Strip a BOM and turn CRLF / CR line endings into LF. */
export function normalizeText(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}
