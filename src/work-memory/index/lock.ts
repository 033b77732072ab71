import { mkdir, rename, unlink, writeFile, link } from 'node:fs/promises';
import path from 'node:path';
import { hostname } from 'node:os';
import { ExitCode, ExitError } from '../../shared/errors.js';
import { readRegularFileSync } from '../../shared/fsutil/bounded-read.js';

export class LockTimeoutError extends ExitError {
  constructor(message: string) {
    super(message, ExitCode.IndexUnavailable);
    this.name = 'LockTimeoutError';
  }
}

interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
}

export interface Lock {
  release(): Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * An exclusive lock file created with link(2), which fails atomically when the
 * lock exists. A lock whose process is gone on this host (kill -9) is stale
 * and taken over; only one contender wins the rename that removes it.
 */
export async function acquireLock(lockPath: string, opts: { waitMs: number; pollMs?: number }): Promise<Lock> {
  await mkdir(path.dirname(lockPath), { recursive: true });
  const info: LockInfo = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  const tmp = `${lockPath}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  await writeFile(tmp, JSON.stringify(info));
  const deadline = Date.now() + opts.waitMs;
  try {
    for (;;) {
      try {
        await link(tmp, lockPath);
        return {
          release: async () => {
            await unlink(lockPath).catch(() => undefined);
          },
        };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const holder = await readHolder(lockPath);
      if (holder && holder.host === info.host && !alive(holder.pid)) {
        // Stale: move it aside (atomic; a racing contender gets ENOENT) and retry.
        const aside = `${lockPath}.stale.${process.pid}`;
        if (
          await rename(lockPath, aside).then(
            () => true,
            () => false,
          )
        )
          await unlink(aside).catch(() => undefined);
        continue;
      }
      if (Date.now() >= deadline) {
        const who = holder ? `pid ${holder.pid} on ${holder.host}, since ${holder.startedAt}` : 'unknown holder';
        throw new LockTimeoutError(`another agentos index is running (${who}); lock file ${lockPath}`);
      }
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 100));
    }
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

async function readHolder(lockPath: string): Promise<LockInfo | null> {
  try {
    // Bounded and regular only: a lock path pointing at /dev/zero must not hang the reader.
    return JSON.parse(readRegularFileSync(lockPath, 4096).toString('utf8')) as LockInfo;
  } catch {
    return null;
  }
}
