/**
 * An in-memory AttemptMemory for unit tests of hooks, recall and worked-on.
 * It follows the contract (src/attempt-memory/types.ts) loosely where the real store
 * is the authority (similarity: same tool and same command, case-insensitive);
 * integration tests use the real store.
 */
import { errorCause } from '../../src/attempt-memory/cause.js';
import type {
  AttemptMemory,
  AttemptQuery,
  AttemptRecord,
  AttemptStats,
  NewAttempt,
  RepeatWarning,
} from '../../src/attempt-memory/types.js';

export class FakeAttemptMemory implements AttemptMemory {
  records: AttemptRecord[] = [];
  closed = 0;
  private seq = 0;

  constructor(private clock: () => Date = () => new Date()) {}

  record(a: NewAttempt): AttemptRecord {
    const rec: AttemptRecord = {
      id: `A${String(++this.seq).padStart(6, '0')}`,
      time: a.time ?? this.clock().toISOString(),
      sessionId: a.sessionId ?? 'fake-session',
      tool: a.tool,
      command: a.command,
      outcome: a.outcome,
      exitCode: a.exitCode ?? null,
      durationMs: a.durationMs ?? null,
      error: a.error ?? null,
      cause: errorCause(a.error),
      context: a.context ?? null,
      tags: a.tags ?? [],
      cwd: a.cwd ?? '.',
      work: a.work ?? null,
      branch: null,
      overriddenBy: null,
      archived: false,
    };
    this.records.push(rec);
    return rec;
  }

  list(q: AttemptQuery = {}): AttemptRecord[] {
    let r = this.records.filter(
      (x) =>
        (!q.outcome || x.outcome === q.outcome) &&
        (!q.since || x.time >= q.since.toISOString()) &&
        (!q.tag || x.tags.includes(q.tag)) &&
        (!q.sessionId || x.sessionId === q.sessionId) &&
        (!q.work || (x.work !== null && q.work.includes(x.work))) &&
        (q.includeArchived || !x.archived) &&
        (!q.whose || (q.whose === 'own') === !x.origin),
    );
    r = [...r].sort((a, b) => b.time.localeCompare(a.time));
    return q.limit ? r.slice(0, q.limit) : r;
  }

  checkRepeat(a: { tool: string; command: string; context?: string | null; tags?: string[] }): RepeatWarning[] {
    const norm = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();
    return this.records
      .filter(
        (f) =>
          f.outcome === 'failure' &&
          !f.overriddenBy &&
          !f.archived &&
          f.tool === a.tool &&
          norm(f.command) === norm(a.command),
      )
      .map((f) => ({
        failure: f,
        score: 1,
        workedInstead:
          this.records.find(
            (s) =>
              s.outcome === 'success' &&
              s.time > f.time &&
              ((f.context && s.context === f.context) || s.tags.some((t) => f.tags.includes(t))),
          ) ?? null,
      }));
  }

  search(text: string, limit = 10): AttemptRecord[] {
    return this.records
      .filter((r) => `${r.command} ${r.error ?? ''} ${r.context ?? ''}`.toLowerCase().includes(text.toLowerCase()))
      .slice(0, limit);
  }

  forget(q: { id?: string; before?: Date; all?: boolean }): number {
    const before = this.records.length;
    this.records = this.records.filter(
      (r) => !(q.all || r.id === q.id || (q.before && r.time < q.before.toISOString())),
    );
    return before - this.records.length;
  }

  stats(): AttemptStats {
    return {
      sessions: new Set(this.records.map((r) => r.sessionId)).size,
      failures: this.records.filter((r) => r.outcome === 'failure').length,
      successes: this.records.filter((r) => r.outcome === 'success').length,
      repeatsPrevented: 0,
    };
  }

  close(): void {
    this.closed++;
  }
}
