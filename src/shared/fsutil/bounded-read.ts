import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';

/**
 * Reading a file agentos did not write: a FIFO with no writer blocks forever,
 * `/dev/zero` never ends, and a 20 MB "config" costs seconds of parsing. Every
 * such read goes through here: the path is stat'ed first (a special file is
 * refused without being opened), opened non-blocking, checked again on the
 * open descriptor (the path may have been swapped in between), and at most
 * `maxBytes` are read.
 */
export type BoundedReadProblem = 'missing' | 'not-regular' | 'too-large' | 'unreadable';

export class BoundedReadError extends Error {
  constructor(
    readonly problem: BoundedReadProblem,
    readonly file: string,
    /** Short, for "FILE: cannot read: <reason>". */
    readonly reason: string,
    readonly code?: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'BoundedReadError';
  }
}

/** What kind of thing is at a path, for messages ("is a FIFO", "is a folder"). */
export function fileKind(st: Stats): string {
  if (st.isFile()) return 'regular file';
  if (st.isDirectory()) return 'folder';
  if (st.isFIFO()) return 'FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'character device';
  if (st.isBlockDevice()) return 'block device';
  if (st.isSocket()) return 'socket';
  return 'special file';
}

function errnoReason(e: unknown): { problem: BoundedReadProblem; reason: string; code?: string } {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { problem: 'missing', reason: 'no such file', code };
  if (code === 'EACCES' || code === 'EPERM') return { problem: 'unreadable', reason: 'permission denied', code };
  if (code === 'ELOOP') return { problem: 'unreadable', reason: 'symlink loop', code };
  if (code === 'EISDIR') return { problem: 'not-regular', reason: 'is a folder, not a file', code };
  return { problem: 'unreadable', reason: code ?? (e as Error).message.split('\n')[0], code };
}

export const kb = (n: number) =>
  n >= 1024 * 1024 ? `${Math.round(n / (1024 * 1024))} MB` : `${Math.round(n / 1024)} KB`;

/**
 * The bytes of a regular file of at most `maxBytes`; anything else is a
 * BoundedReadError saying what it is. Synchronous: callers read small files
 * (pointers, manifests, configs) or need the answer before going on.
 */
export function readRegularFileSync(file: string, maxBytes: number): Buffer {
  let st: Stats;
  try {
    st = statSync(file);
  } catch (e) {
    const r = errnoReason(e);
    throw new BoundedReadError(r.problem, file, r.reason, r.code);
  }
  if (!st.isFile()) throw new BoundedReadError('not-regular', file, `is a ${fileKind(st)}, not a regular file`);
  if (st.size > maxBytes) throw new BoundedReadError('too-large', file, `larger than ${kb(maxBytes)} (${kb(st.size)})`);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const r = errnoReason(e);
    throw new BoundedReadError(r.problem, file, r.reason, r.code);
  }
  try {
    const again = fstatSync(fd);
    if (!again.isFile()) throw new BoundedReadError('not-regular', file, `is a ${fileKind(again)}, not a regular file`);
    // One byte more than allowed tells a file that grew since the stat from one that fits.
    const buf = Buffer.allocUnsafe(Math.min(maxBytes, again.size) + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n === buf.length) {
        if (n > maxBytes) throw new BoundedReadError('too-large', file, `larger than ${kb(maxBytes)}`);
        break; // the file grew while we read it; what we hold is what the stat promised
      }
    }
    return buf.subarray(0, n);
  } catch (e) {
    if (e instanceof BoundedReadError) throw e;
    const r = errnoReason(e);
    throw new BoundedReadError(r.problem, file, r.reason, r.code);
  } finally {
    closeSync(fd);
  }
}

/** Async signature for callers that await; the work is the same bounded synchronous read. */
export async function readRegularFile(file: string, maxBytes: number): Promise<Buffer> {
  return readRegularFileSync(file, maxBytes);
}

/** At most `maxBytes` of a stream (stdin); more is a BoundedReadError, and reading stops there. */
export async function readStreamBounded(
  stream: NodeJS.ReadableStream,
  maxBytes: number,
  label: string,
): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    total += b.length;
    if (total > maxBytes) {
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      throw new BoundedReadError('too-large', label, `larger than ${kb(maxBytes)}`);
    }
    parts.push(b);
  }
  return Buffer.concat(parts);
}
