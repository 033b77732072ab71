/**
 * The team store's back-off for shared attempts (share.ts): after a failed attempt to reach the
 * store, runs wait a minute before trying again, so that hooks stay fast while it is down. The
 * mark is a file in `.agentos/memory/`; it is an optimisation, never a reason to fail.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureMemoryDir } from '../shared/fsutil/memory-dir.js';

/** After a failure to reach the store, automatic sends wait this long (an explicit `store sync` does not). */
const BACKOFF_MS = 60_000;

function backoffFile(root: string): string {
  return path.join(ensureMemoryDir(root), 'store-unreachable');
}

/**
 * In the back-off after a failure (the file holds its time), or after a call that began connecting and
 * never finished within its deadline (`connecting <time> <deadline ms>`: its process was killed). A call
 * still within its deadline is no reason to wait: processes recording at the same time all send.
 */
export function inBackoff(root: string, now: Date): boolean {
  try {
    const text = readFileSync(backoffFile(root), 'utf8').trim();
    const connecting = /^connecting (\S+) (\d+)$/.exec(text);
    const since = now.getTime() - Date.parse(connecting ? connecting[1] : text);
    // A mark from the future (the clock stepped back) is no reason to wait for hours: only 0 <= since counts.
    return since >= 0 && since < BACKOFF_MS && (!connecting || since > Number(connecting[2]) + KILLED_AFTER_MS);
  } catch {
    return false;
  }
}

/** A connecting mark older than its deadline by this much was left by a process that did not get to finish. */
const KILLED_AFTER_MS = 1000;

export function noteConnecting(root: string, now: Date, deadlineMs: number): void {
  try {
    writeFileSync(backoffFile(root), `connecting ${now.toISOString()} ${Math.round(deadlineMs)}\n`);
  } catch {
    /* the back-off is an optimisation: never a reason to fail */
  }
}

export function noteBackoff(root: string, now: Date): void {
  try {
    writeFileSync(backoffFile(root), now.toISOString() + '\n');
  } catch {
    /* the back-off is an optimisation: never a reason to fail */
  }
}

export function clearBackoff(root: string): void {
  try {
    writeFileSync(backoffFile(root), '');
  } catch {
    /* as above */
  }
}
