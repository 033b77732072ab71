import { createHash } from 'node:crypto';
import type { Config } from '../../shared/config/schema.js';

/**
 * Identity of the settings that decide which files the index holds (globs,
 * exclusions, size limit, whether history is in). Stored in the manifest so a
 * freshness check notices a config change even when no file changed.
 */
export function corpusConfigHash(config: Config, includeHistory: boolean): string {
  const c = config.corpus;
  const parts: Record<string, unknown> = {
    standards: c.standards,
    history: includeHistory ? c.history : [],
    exclude: c.exclude,
    maxFileBytes: c.maxFileBytes,
  };
  // Sources join the identity only when used, so indexes built before they existed stay fresh.
  const s = config.sources;
  if (includeHistory && (s.git.enabled || s.trackers.length || s.github)) parts.sources = s;
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
}
