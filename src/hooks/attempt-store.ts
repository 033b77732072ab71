/**
 * The one place hooks, recall and worked-on open the attempt store. The store
 * itself (SQLite, redaction, tagging) is the attempt memory's
 * (src/attempts/open.ts); this indirection keeps its import lazy so that a
 * session-start without attempts never loads it.
 */
import type { AttemptMemory } from '../attempts/types.js';
import type { Config } from '../config/schema.js';

export async function openAttemptStore(root: string, config: Config): Promise<AttemptMemory> {
  // Until the store is merged this module may be absent: fail with a clear message.
  const specifier = '../attempts/open.js';
  const mod = (await import(specifier)) as { openAttemptMemory(root: string, config: Config): AttemptMemory };
  return mod.openAttemptMemory(root, config);
}
