import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { formatScore } from '../check/classify.js';
import type { StandardContext } from '../check/standards.js';

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

/** Every retrieved standard, at info level: what the memory attached and why (transparency). */
export function logRetrievedStandards(logger: Logger, items: StandardContext[], base: Record<string, unknown> = {}): void {
  for (const s of items) {
    logger.info(
      { ...base, event: 'standard_retrieved', filePath: s.filePath, section: s.section, score: s.score, snippet: s.snippet },
      `Retrieved: ${s.filePath} (section: ${s.section}, score: ${formatScore(s.score ?? 0)})`,
    );
  }
}
