import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';

/**
 * Decisions and retrievals are written as JSON lines to `.agentos/logs/agentos.log`
 * (never to the terminal): an audit trail of what the memory said and who decided.
 */
export async function createFileLogger(root: string): Promise<Logger> {
  const { default: pino } = await import('pino');
  const dir = path.join(root, '.agentos', 'logs');
  mkdirSync(dir, { recursive: true });
  const dest = pino.destination({ dest: path.join(dir, 'agentos.log'), sync: true, mkdir: true });
  return pino({ level: 'info', base: { pid: process.pid } , timestamp: pino.stdTimeFunctions.isoTime }, dest);
}
