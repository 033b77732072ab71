import path from 'node:path';
import type { Readable } from 'node:stream';
import { decodeText, sha256 } from '../corpus/read.js';
import { UsageError } from '../../shared/errors.js';
import { BoundedReadError, readRegularFile, readStreamBounded } from '../../shared/fsutil/bounded-read.js';

export interface Brief {
  /** As given ("-" for stdin). */
  source: string;
  /** Absolute path, null for stdin. */
  absPath: string | null;
  text: string;
  hash: string;
  /** The issue the brief is, when the caller knows it (`agentos ci`: the issue just opened); else read from the text. */
  ownIssue?: string;
}

/** The largest brief read (docs/commands.md "Limits"); stdin stops being read there too. */
export const MAX_BRIEF_BYTES = 1024 * 1024;

/**
 * Read the user's brief. Every problem is a UsageError (exit 2), never a failed-open check.
 * Only a regular file or stdin: a FIFO, a device (`/dev/zero`) or a folder is refused
 * without being read, and no more than MAX_BRIEF_BYTES is ever read.
 */
export async function readBrief(source: string, cwd: string, stdin: Readable): Promise<Brief> {
  let buf: Buffer;
  let absPath: string | null = null;
  const label = source === '-' ? 'stdin' : source;
  try {
    if (source === '-') {
      buf = await readStreamBounded(stdin, MAX_BRIEF_BYTES, label);
    } else {
      absPath = path.resolve(cwd, source);
      buf = await readRegularFile(absPath, MAX_BRIEF_BYTES);
    }
  } catch (e) {
    if (e instanceof BoundedReadError) {
      const verb = e.problem === 'too-large' ? 'cannot use brief' : 'cannot read brief';
      throw new UsageError(`${label}: ${verb}: ${e.reason}`);
    }
    throw new UsageError(`${label}: cannot read brief: ${(e as Error).message.split('\n')[0]}`);
  }
  return decoded(buf, source, absPath, label);
}

/** A brief given as text (an issue's title and body read from a tracker event), checked as a brief read from stdin is. */
export function briefFromText(text: string, label = 'stdin'): Brief {
  return decoded(Buffer.from(text, 'utf8'), '-', null, label);
}

function decoded(buf: Buffer, source: string, absPath: string | null, label: string): Brief {
  const d = decodeText(buf, MAX_BRIEF_BYTES);
  if (!d.ok) throw new UsageError(`${label}: cannot use brief: ${d.reason}`);
  if (d.text.trim() === '') throw new UsageError(`${label}: brief is empty`);
  return { source, absPath, text: d.text, hash: sha256(buf) };
}
