/**
 * The two memories joined (issue 21 §5): when a check relates a brief to past
 * work, what was tried during that work and failed, with what worked instead.
 * Attempts carry the work they were made for (src/attempt-memory/work.ts); a past
 * document's issue id is the key, normalised the same way.
 */
import type { AttemptMemory, AttemptRecord } from '../attempt-memory/types.js';
import { errorMessage } from '../shared/errors.js';
import { commandTokens } from '../attempt-memory/normalise.js';
import { workId } from '../attempt-memory/work.js';
import type { MatchNotes } from '../work-memory/output/notes.js';

export interface TriedDuring {
  /** The failure: when, the command, the line that says why. */
  failure: Pick<AttemptRecord, 'id' | 'time' | 'tool' | 'command' | 'cause' | 'exitCode'>;
  /** A later success of the same work that overrode it (the same command, once it worked), if any. */
  workedInstead: Pick<AttemptRecord, 'id' | 'time' | 'command'> | null;
}

/** At most this many failures per piece of work: the check names the pitfalls, it does not replay the log. */
export const TRIED_PER_WORK = 3;

/**
 * For each past work id, its failures (newest first, the same command once), each
 * with what later worked. Archived failures count here: old work is what this is for.
 */
export function triedDuring(memory: AttemptMemory, issueIds: Array<string | null>): Map<string, TriedDuring[]> {
  const keys = [...new Set(issueIds.map(workId).filter((k): k is string => k !== null))];
  const out = new Map<string, TriedDuring[]>();
  if (keys.length === 0) return out;
  const records = memory.list({ work: keys, includeArchived: true, limit: 500 });
  const byId = new Map(records.map((r) => [r.id, r]));
  for (const key of keys) {
    const seen = new Set<string>();
    const list: TriedDuring[] = [];
    for (const r of records) {
      if (r.work !== key || r.outcome !== 'failure' || seen.has(r.command) || list.length >= TRIED_PER_WORK) continue;
      seen.add(r.command);
      const success = r.overriddenBy ? (byId.get(r.overriddenBy) ?? null) : laterSuccess(records, r);
      list.push({
        failure: { id: r.id, time: r.time, tool: r.tool, command: r.command, cause: r.cause, exitCode: r.exitCode },
        workedInstead: success ? { id: success.id, time: success.time, command: success.command } : null,
      });
    }
    if (list.length) out.set(key, list);
  }
  return out;
}

/**
 * The first success of the same work after a failure that did the same kind of thing:
 * the same tool and the same first two words (`npm install redis-node` failed, then
 * `npm install ioredis` worked; a later `npm test` is not what worked instead).
 */
function laterSuccess(records: AttemptRecord[], failure: AttemptRecord): AttemptRecord | null {
  const verb = commandVerb(failure.command);
  let found: AttemptRecord | null = null;
  for (const r of records) {
    if (r.time <= failure.time) break; // records are newest first
    if (
      r.outcome === 'success' &&
      r.work === failure.work &&
      r.tool === failure.tool &&
      commandVerb(r.command) === verb
    )
      found = r; // keeps the earliest after it
  }
  return found;
}

const commandVerb = (command: string) => commandTokens(command).slice(0, 2).join(' ');

/**
 * What was tried during each matched past work (issue start and the MCP check alike):
 * none when there is no match or the attempt memory is off (not even read), and none,
 * with a warning saying so, when the memory cannot be read; the check itself stands.
 */
export async function triedForMatches(
  all: Array<{ issueId: string | null; repository?: string }>,
  enabled: boolean,
  open: () => Promise<AttemptMemory>,
): Promise<{ lookup: TriedLookup; warning: string | null }> {
  // Another repository's issue 12 is not the work this repository's attempts call 12.
  const matches = all.filter((m) => !m.repository);
  if (matches.length === 0 || !enabled) return { lookup: () => [], warning: null };
  try {
    return {
      lookup: triedLookup(
        triedDuring(
          await open(),
          matches.map((m) => m.issueId),
        ),
      ),
      warning: null,
    };
  } catch (e) {
    return {
      lookup: () => [],
      warning: `attempt memory unavailable (${errorMessage(e)}); what was tried during past work is not shown`,
    };
  }
}

/** Looks up what was tried during a matched past work (empty when nothing, or no memory). */
export type TriedLookup = (m: { issueId: string | null; repository?: string }) => TriedDuring[];

export function triedLookup(map: Map<string, TriedDuring[]>): TriedLookup {
  return (m) => (m.repository ? [] : (map.get(workId(m.issueId) ?? '') ?? []));
}

/**
 * One line per failure: "failed (date): `command` — cause; worked instead: `…`".
 * `text` makes past text safe where it goes (a terminal, markdown); commands are code spans.
 */
export function renderTried(tried: TriedDuring[], text: (s: string) => string = (s) => s): string[] {
  const code = (s: string) => `\`${text(s).replace(/`/g, "'")}\``;
  return tried.map((t) => {
    const why = t.failure.cause
      ? ` — ${text(t.failure.cause)}`
      : t.failure.exitCode !== null
        ? ` — exit ${t.failure.exitCode}`
        : '';
    const instead = t.workedInstead ? `; worked instead: ${code(t.workedInstead.command)}` : '';
    return `failed (${t.failure.time.slice(0, 10)}): ${code(t.failure.command)}${why}${instead}`;
  });
}

/** The notes the work memory's output shows under each match: what was tried during it ("Tried: failed …"). */
export function triedNotes(lookup: TriedLookup): MatchNotes {
  return (m, safe) => renderTried(lookup(m), safe).map((text) => ({ label: 'Tried', text }));
}
