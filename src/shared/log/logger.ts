import { mkdirSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { requireVendored } from '../package-root.js';

/**
 * Decisions and retrievals are written as JSON lines to `.agentos/logs/agentos.log`
 * (never to the terminal): an audit trail of what the memory said and who decided.
 */
export async function createFileLogger(root: string, maxBytes = LOG_MAX_BYTES): Promise<Logger> {
  const pino = await loadPino();
  const dir = path.join(root, '.agentos', 'logs');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'agentos.log');
  rotateIfFull(file, maxBytes);
  const dest = pino.destination({ dest: file, sync: true, mkdir: true });
  return pino(
    {
      level: 'info',
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      // "info", not 30: the log is read by people and grep.
      formatters: { level: (label) => ({ level: label }) },
    },
    dest,
  );
}

type PinoModule = typeof import('pino');

/**
 * pino as one file, built by `npm run build` (scripts/bundle-fast.mjs, as the yaml library):
 * the package is ~20 CommonJS files, ~13 ms of every `issue start` to require; the bundle ~7 ms.
 * Only its sync file destination is used here (no transports, which a bundle would break).
 * The package itself when there is no build (tests run the sources).
 */
async function loadPino(): Promise<PinoModule['default']> {
  return requireVendored<PinoModule['default']>('pino') ?? (await import('pino')).default;
}

/** The log stays under ~2x this: one rotated copy (agentos.log.1) is kept. */
export const LOG_MAX_BYTES = 5 * 1024 * 1024;

/**
 * Rotate before opening: a rename is atomic, and a concurrent run that already
 * holds the old file keeps appending to agentos.log.1, losing nothing.
 */
export function rotateIfFull(file: string, maxBytes: number): boolean {
  try {
    if (statSync(file).size < maxBytes) return false;
    renameSync(file, `${file}.1`);
    return true;
  } catch {
    return false; // no log yet, or a concurrent rotation won: either is fine
  }
}
