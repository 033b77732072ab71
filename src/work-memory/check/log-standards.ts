import type { Logger } from 'pino';
import { formatScore } from './classify.js';
import type { StandardContext } from './standards.js';

/** Every retrieved standard, at info level in the project's log: what the memory attached and why (transparency). */
export function logRetrievedStandards(
  logger: Logger,
  items: StandardContext[],
  base: Record<string, unknown> = {},
): void {
  for (const s of items) {
    logger.info(
      {
        ...base,
        event: 'standard_retrieved',
        filePath: s.filePath,
        section: s.section,
        score: s.score,
        source: s.source,
        snippet: s.snippet,
      },
      `${s.source === 'cited' ? 'Named in the brief' : s.source === 'standout' ? 'Stands out' : 'Retrieved'}: ${s.filePath} (section: ${s.section}, score: ${s.score === null ? 'none' : formatScore(s.score)})`,
    );
  }
}
