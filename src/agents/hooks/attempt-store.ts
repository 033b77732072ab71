/**
 * The one place hooks, recall and worked-on open the attempt store (the
 * attempt memory's src/attempt-memory/open.ts). Imported lazily so that a
 * session start without attempts, or `--help`, never loads SQLite.
 */
import type { AttemptMemory } from '../../attempt-memory/types.js';
import type { Config } from '../../shared/config/schema.js';

export async function openAttemptStore(root: string, config: Config, cwd?: string, purpose: 'read' | 'write' = 'write'): Promise<AttemptMemory> {
  const { openAttemptMemory } = await import('../../attempt-memory/open.js');
  return openAttemptMemory(root, config, { ...(cwd ? { cwd } : {}), readOnly: purpose === 'read' });
}
