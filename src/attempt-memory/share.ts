/**
 * Attempts shared with the team (issue 23, `attempts.scope: org`). Every record is
 * redacted and written here first (open.ts), and queued in the local outbox in the
 * same transaction; `shareAttempts` then sends what is queued and reads back what the
 * rest of the team recorded, so a failure one agent hit warns every other agent.
 * A server that is away costs nothing but a warning: the outbox keeps every record
 * until a later run sends it (nothing lost), and a record sent twice is one row (its
 * id is its primary key). After a failed attempt to reach the store, runs wait a
 * minute before trying again, so that hooks stay fast while it is down.
 */
import type { Config } from '../shared/config/schema.js';
import { errorMessage } from '../shared/errors.js';
import { withTeamStoreDeadline, type TeamStoreClient } from '../shared/team-store/connect.js';
import { repositoryName } from '../shared/team-store/repository.js';
import { requireCurrentSchema } from '../shared/team-store/schema.js';
import { storeUrl } from '../shared/team-store/url.js';
import { oneLine } from '../shared/sanitize.js';
import type { SharedQueue } from './open.js';
import type { AttemptRecord } from './types.js';
import { fromWire, WIRE_MAX, WIRE_MAX_TAGS, WIRE_MAX_TAGS_BYTES, wireRecord, type WireRow } from './share-wire.js';
import { clearBackoff, inBackoff, noteBackoff, noteConnecting } from './share-backoff.js';

/** The text columns of a shared attempt, each read bounded. */
const TEXT_COLUMNS = Object.keys(WIRE_MAX) as Array<keyof typeof WIRE_MAX>;

export interface ShareReport {
  sent: number;
  /** Records the server refused (their data): set aside so that the others still go; said in a warning. */
  rejected: number;
  /** Own records forgotten here and deleted on the server. */
  forgotten: number;
  /** Ids forgotten here that another author recorded: kept on the server (only their author may delete them). */
  keptOthers: number;
  /** The team's records new to this machine. */
  pulled: number;
  /** Copies dropped because their author forgot them. */
  dropped: number;
  /** Still queued (the server was away, or more than one batch). */
  queued: number;
  /** The team's rows that were not records (named: id, author, why): left on the server, not imported. */
  skipped: string[];
  /** The pull stopped at MAX_PULL_ROWS: the rest come with the next one. */
  truncated?: boolean;
  /** The repository is published and this login is not one of its members: nothing was sent (kept queued); its owners. */
  notMember?: string[];
}

/** Records per round trip. */
const BATCH = 500;
/** Rows one pull reads at most (a flood of a teammate's records would otherwise hold up the command that pulls); the next pull goes on from there. */
export const MAX_PULL_ROWS = 5_000;
/** Automatic pulls (`run`, hooks) at most this often. */
export const PULL_EVERY_MS = 5 * 60_000;

/**
 * A store call made inside an agent's hook gives up after this: the shortest hook is given
 * 5 s by `hooks install`, and the process must start, record and leave within it.
 */
export const HOOK_STORE_DEADLINE_MS = 1500;

export interface ShareOptions {
  /** Read the team's records too (else only send). */
  pull: boolean;
  /** At most this long for connecting and the work (a hook's budget), when shorter than store.timeout_ms. */
  deadlineMs?: number;
  /** An explicit request (store sync, forget): ignore the back-off after a failure. */
  force?: boolean;
  env: NodeJS.ProcessEnv;
  now?: () => Date;
}

/**
 * Send the outbox and (optionally) pull. Returns null when attempts are not shared or
 * the store is in its back-off; throws TeamStoreUnavailableError when it cannot be reached
 * (the outbox keeps everything).
 */
export async function shareAttempts(
  root: string,
  config: Config,
  queue: SharedQueue,
  o: ShareOptions,
): Promise<ShareReport | null> {
  const url = storeUrl(o.env, config);
  if (config.attempts.scope !== 'org' || !url) return null;
  const now = o.now ?? (() => new Date());
  if (!o.force && inBackoff(root, now())) return null;
  const repository = repositoryName(root, config);
  const deadline = Math.min(config.store.timeoutMs, o.deadlineMs ?? Infinity);
  // Said before connecting, cleared on success: a process the agent kills while it waits on a store
  // that never answers leaves the mark, and once the mark is older than its deadline the next call backs off.
  noteConnecting(root, now(), deadline);
  try {
    const report = await withTeamStoreDeadline(url, deadline, async (client) => {
      await requireCurrentSchema(client);
      const r: ShareReport = {
        sent: 0,
        rejected: 0,
        forgotten: 0,
        keptOthers: 0,
        pulled: 0,
        dropped: 0,
        queued: 0,
        skipped: [],
      };
      await push(client, queue, repository, r);
      if (o.pull) await pull(client, queue, r, now, config.attempts.archiveAfterDays, repository);
      r.queued = queue.outboxSize();
      return r;
    });
    clearBackoff(root);
    return report;
  } catch (e) {
    noteBackoff(root, now());
    throw e;
  }
}

async function push(client: TeamStoreClient, queue: SharedQueue, repository: string, r: ShareReport): Promise<void> {
  // A published repository's attempts are its members' (schema version 6): a login that is not one keeps its
  // records queued here (nothing lost) until an administrator adds it, and is told whose the repository is.
  const member = await client.query<{ ok: boolean; owners: string[] | null }>(
    `SELECT agentos.may_share($1) AS ok, (SELECT owners FROM repositories WHERE name = $1) AS owners`,
    [repository],
  );
  if (!member.rows[0]?.ok) {
    r.notMember = (member.rows[0]?.owners ?? []).map((o) => oneLine(String(o), 64));
    return;
  }
  for (;;) {
    const batch = queue.pending(BATCH);
    if (!batch.length) return;
    const sends = batch.flatMap((e) => (e.op === 'send' ? [e.record] : []));
    const forgets = batch.flatMap((e) => (e.op === 'forget' ? [e.id] : []));
    const rejected: string[] = [];
    await client.query('BEGIN');
    try {
      if (sends.length) {
        try {
          await client.query('SAVEPOINT batch');
          r.sent += await insertAttempts(client, sends, repository);
        } catch (e) {
          // A record the server refuses (its data, not the connection) must not hold back every later one:
          // the batch is sent again one record at a time and a refused record is set aside, and said.
          if (!isDataError(e)) throw e;
          await client.query('ROLLBACK TO SAVEPOINT batch');
          for (const a of sends) {
            await client.query('SAVEPOINT one');
            try {
              r.sent += await insertAttempts(client, [a], repository);
            } catch (one) {
              if (!isDataError(one)) throw one;
              await client.query('ROLLBACK TO SAVEPOINT one');
              rejected.push(a.id);
            }
          }
        }
      }
      if (forgets.length) {
        // Only the author's own, as the server knows the author (its login role; row-level security holds it too).
        const gone = await client.query<{ id: string }>(`SELECT agentos.forget_attempts($1::text[]) AS id`, [forgets]);
        const others = await client.query<{ n: string }>(
          `SELECT count(*) AS n FROM attempts WHERE id = ANY($1::text[])`,
          [forgets],
        );
        await client.query(
          `INSERT INTO forgotten_attempts (id) SELECT pg_catalog.unnest($1::text[]) ON CONFLICT (id) DO NOTHING`,
          [gone.rows.map((x) => x.id)],
        );
        r.forgotten += gone.rows.length;
        r.keptOthers += Number(others.rows[0].n);
      }
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
    r.rejected += rejected.length;
    // After the commit: a crash here sends the batch again, which the primary key makes a no-op.
    queue.settle(
      batch.map((e) =>
        e.op === 'send' ? { id: e.record.id, op: 'send' as const } : { id: e.id, op: 'forget' as const },
      ),
    );
  }
}

async function insertAttempts(client: TeamStoreClient, sends: AttemptRecord[], repository: string): Promise<number> {
  const rows = await client.query(
    // No author column: the server fills it with the login role (current_user), which nobody can choose.
    `INSERT INTO attempts (id, repository, time, session_id, tool, command, outcome, exit_code, duration_ms, error, cause, context, work, branch, tags, cwd)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id text, repository text, time timestamptz, session_id text, tool text, command text, outcome text,
       exit_code integer, duration_ms integer, error text, cause text, context text, work text, branch text, tags jsonb, cwd text)
     ON CONFLICT (id) DO NOTHING`,
    [JSON.stringify(sends.map((a) => wireRecord(a, repository)))],
  );
  return rows.rowCount ?? 0;
}

/** SQLSTATE classes 22 (data exception) and 23 (integrity constraint): the record, not the store. */
function isDataError(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && /^2[23]/.test(code);
}

/**
 * The team's records of this repository since the last pull. Paged on the server's
 * (received_at, id), kept as the server's own text (microseconds: a JS Date would cut
 * them to milliseconds and a page could start where it began); each pull reaches back
 * a minute before the last, for rows whose transactions committed late (ids dedupe).
 */
async function pull(
  client: TeamStoreClient,
  queue: SharedQueue,
  r: ShareReport,
  now: () => Date,
  keepDays: number,
  repository: string,
): Promise<void> {
  // Nothing older than the archive line: it would never warn.
  const oldest = new Date(now().getTime() - keepDays * 86_400_000).toISOString();
  const last = queue.sharedState('pulled_through');
  const start = await client.query<{ since: string }>(
    `SELECT (COALESCE($1::timestamptz, '-infinity') - interval '60 seconds')::text AS since`,
    [last],
  );
  const since = start.rows[0].since;
  // A pull that stopped at its bound goes on exactly where it stopped (reaching back a minute again would
  // read the same rows forever when they all arrived within it); the minute is reached back once it completes.
  const resume = resumeCursor(queue.sharedState('pull_resume'));
  // The server's clock when this series of pulls began: where the next complete pull reaches back from
  // (a row received before it whose transaction committed late is read then; ids dedupe).
  const began = resume?.through ?? (await client.query<{ t: string }>(`SELECT now()::text AS t`)).rows[0].t;
  let cursor: { at: string; id: string } = resume ? { at: resume.at, id: resume.id } : { at: since, id: '' };
  let read = 0;
  let stopped = false;
  for (;;) {
    const rows = await client.query<WireRow & { at: string }>(
      // Each text one character past what a record may hold (share-wire.ts WIRE_MAX), the tags only when a short list:
      // a teammate's 200 MB field is named as too long, not carried over the network on every pull.
      `SELECT id, ${TEXT_COLUMNS.map((c) => `left(${c}, ${WIRE_MAX[c] + 1}) AS ${c}`).join(', ')}, time, outcome, exit_code, duration_ms,
              CASE WHEN jsonb_typeof(tags) = 'array' AND jsonb_array_length(tags) <= ${WIRE_MAX_TAGS} AND pg_catalog.octet_length(tags::text) <= ${WIRE_MAX_TAGS_BYTES} THEN tags END AS tags, received_at::text AS at
       FROM attempts WHERE repository = $4 AND (received_at, id) > ($1::timestamptz, $5) AND time > $3::timestamptz ORDER BY received_at, id LIMIT $2`,
      [cursor.at, BATCH, oldest, repository, cursor.id],
    );
    // Another person's rows are input: one that does not have its shape is left on the server and named, the rest come in.
    const good: Array<AttemptRecord & { origin: string }> = [];
    for (const w of rows.rows) {
      const rec = fromWire(w, now());
      const said = (v: unknown) => (typeof v === 'string' ? oneLine(v, 64) : '?');
      if (typeof rec === 'string') r.skipped.push(`${said(w.id)} (${said(w.author)}): ${rec}`);
      else good.push(rec);
    }
    const got = queue.importShared(good, []);
    r.pulled += got.added;
    if (rows.rows.length < BATCH) break;
    const end = rows.rows[rows.rows.length - 1];
    cursor = { at: end.at, id: end.id };
    read += rows.rows.length;
    // Bounded: the rest on the next pull, from here.
    if (read >= MAX_PULL_ROWS) {
      stopped = true;
      r.truncated = true;
      break;
    }
  }
  // Forgets only of the copies held here: anyone may record forgets of made-up ids, and a million of them
  // would otherwise be read on every pull.
  const held = queue.sharedIds();
  const forgotten = held.length
    ? await client.query<{ id: string }>(
        `SELECT id FROM forgotten_attempts WHERE forgotten_at > $1::timestamptz AND id = ANY($2::text[])`,
        [since, held],
      )
    : { rows: [] };
  r.dropped += queue.importShared(
    [],
    forgotten.rows.map((f) => f.id),
  ).removed;
  if (stopped) queue.setSharedState('pull_resume', JSON.stringify({ ...cursor, through: began }));
  else {
    // The server's clock, not ours.
    queue.setSharedState('pulled_through', began);
    queue.setSharedState('pull_resume', '');
  }
  queue.setSharedState('pulled_at', now().toISOString());
}

/** Where a bounded pull stopped (our own state file's; anything else: none). */
function resumeCursor(text: string | null): { at: string; id: string; through: string } | null {
  try {
    const c = JSON.parse(text || 'null') as { at?: unknown; id?: unknown; through?: unknown } | null;
    return c && typeof c.at === 'string' && typeof c.id === 'string' && typeof c.through === 'string'
      ? { at: c.at, id: c.id, through: c.through }
      : null;
  } catch {
    return null;
  }
}

/** One line for a failed share: what failed and that nothing was lost. */
export function shareWarning(e: unknown, queued: number | null): string {
  return `attempts not shared with the team (${errorMessage(e)}); ${queued === null ? 'they stay' : `${queued} stay`} queued in .agentos/memory and are sent on a later run`;
}

/**
 * Sharing as the hot paths use it (`run`, hooks, `attempt record`): never throws, and
 * connects only when there is something to do: `send` when the outbox holds anything,
 * `refresh` also when the last pull is older than PULL_EVERY_MS, `pull` always (a
 * session's start). Returns the warning to
 * show (or log), or null.
 */
export async function shareBestEffort(
  root: string,
  config: Config,
  queue: SharedQueue | null,
  env: NodeJS.ProcessEnv,
  mode: 'send' | 'refresh' | 'pull',
  now: () => Date = () => new Date(),
  deadlineMs?: number,
): Promise<string | null> {
  if (!queue || config.attempts.scope !== 'org') return null;
  try {
    if (!storeUrl(env, config)) return null;
    const last = queue.sharedState('pulled_at');
    const pull =
      mode === 'pull' || (mode === 'refresh' && (!last || now().getTime() - Date.parse(last) >= PULL_EVERY_MS));
    if (!pull && queue.outboxSize() === 0) return null;
    const r = await shareAttempts(root, config, queue, { pull, env, now, deadlineMs });
    const said = [
      r?.rejected
        ? `${r.rejected} attempt record${r.rejected === 1 ? ' was' : 's were'} refused by the team store (kept on this machine only)`
        : null,
      r?.skipped.length
        ? `${r.skipped.length} of the team's attempt records were not imported: ${r.skipped.slice(0, 3).join('; ')}`
        : null,
      r?.notMember ? notMemberWarning(repositoryName(root, config), r.notMember) : null,
    ].filter((x): x is string => x !== null);
    return said.length ? said.join('; ') : null;
  } catch (e) {
    let queued: number | null = null;
    try {
      queued = queue.outboxSize();
    } catch {
      /* the count is for the message only */
    }
    return shareWarning(e, queued);
  }
}

/** What a login that is not a member of a published repository is told (its records stay queued on this machine). */
export function notMemberWarning(repository: string, owners: string[]): string {
  return `attempt records are kept on this machine: ${oneLine(repository, 200)} in the team store is ${owners.length ? `owned by ${owners.join(', ')}` : 'published'}, and this login is not one of its members; an administrator adds you (docs/team-store.md), then they are sent`;
}
