/**
 * One connection to the team store (node-postgres), bounded in time: connecting and
 * every statement give up after `timeoutMs`. Failures become one TeamStoreUnavailableError
 * line that says what went wrong and where, never with the password.
 */
import { createRequire } from 'node:module';
import type { Client as PgClient } from 'pg';
import { TeamStoreUnavailableError, UsageError, errorMessage } from '../errors.js';
import { sslPlan, target } from './url.js';
import { SEARCH_PATH } from './names.js';

const require = createRequire(import.meta.url);

export type TeamStoreClient = PgClient;

/**
 * `timeoutMs` bounds connecting (a server that is away is known quickly); `workMs`, each
 * statement (a sync of a large repository, or one waiting for another sync of the same
 * repository, needs longer than a status query).
 */
export async function connectTeamStore(
  url: string,
  timeoutMs: number,
  workMs = timeoutMs,
  lockMs?: number,
): Promise<TeamStoreClient> {
  const plan = sslPlan(url, process.env);
  try {
    return await connectOnce(plan.first, timeoutMs, workMs, lockMs);
  } catch (e) {
    // prefer / allow: the server does not (or only) speak TLS: libpq tries the other way once.
    if (plan.fallback && isTlsRefusal(e)) return connectOnce(plan.fallback, timeoutMs, workMs, lockMs);
    throw e;
  }
}

/**
 * How long a read under a deadline waits for a lock: a writer may `LOCK TABLE … IN ACCESS EXCLUSIVE
 * MODE` (table-wide UPDATE and DELETE allow it), and a check must then say so and answer locally at
 * once, not after its whole deadline.
 */
export const READ_LOCK_MS = 1000;

/** The server said no to TLS (prefer) or no to plain text (allow). */
function isTlsRefusal(e: unknown): boolean {
  const raw = (e as { cause?: unknown }).cause ?? e;
  const m = errorMessage(raw);
  return (
    /does not support SSL/i.test(m) ||
    ((raw as { code?: string }).code === '28000' && /no encryption|SSL off|no pg_hba\.conf entry/i.test(m))
  );
}

async function connectOnce(url: string, timeoutMs: number, workMs: number, lockMs?: number): Promise<TeamStoreClient> {
  const { Client } = require('pg') as typeof import('pg');
  let client: PgClient;
  try {
    // The store's tables are in their own schema (version 4): every statement finds them there first.
    client = new Client({
      connectionString: url,
      connectionTimeoutMillis: timeoutMs,
      statement_timeout: workMs,
      query_timeout: workMs + 1000,
      application_name: 'agentos',
      // DateStyle ISO: times are kept as the server's text between sessions (the pull cursor), and a role's or
      // database's own style ('SQL, DMY') would read 11/03 back as 3 November in a session set another way.
      options: `-c search_path=${SEARCH_PATH.replace(/\s+/g, '')} -c datestyle=ISO,YMD${lockMs ? ` -c lock_timeout=${Math.round(lockMs)}` : ''}`,
    });
  } catch (e) {
    // The driver parses the URL here (and reads any sslrootcert file): the URL is the user's to fix.
    throw new UsageError(
      `the store URL is not usable (${errorMessage(e).replace(/postgres(ql)?:\/\/\S+/g, '<url>')}); expected postgres://user@host:port/database`,
    );
  }
  // A server going away later must not crash the process: the query in flight reports it.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (e) {
    await client.end().catch(() => undefined);
    // The driver's own error stays as the cause: prefer/allow read it to decide whether to try the other way.
    throw Object.assign(storeError(e, url, timeoutMs), { cause: e });
  }
  return client;
}

/** Whether an error came from the driver or the server (and so means the store), not from agentos itself. */
export function isTeamStoreError(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return (
    e instanceof TeamStoreUnavailableError ||
    typeof code === 'string' ||
    /Connection terminated|connection/i.test(errorMessage(e))
  );
}

/** A driver or server error as one line naming the store (host, port, database) and the problem. */
export function storeError(e: unknown, url: string, timeoutMs: number): TeamStoreUnavailableError {
  const where = target(url);
  const code = (e as { code?: string }).code;
  const message = errorMessage(e);
  if (e instanceof TeamStoreUnavailableError) return e;
  if (code === 'ECONNREFUSED')
    return new TeamStoreUnavailableError(
      `cannot reach the store at ${where} (connection refused): is the server running?`,
    );
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new TeamStoreUnavailableError(`cannot reach the store at ${where} (unknown host)`);
  if (code === '28P01' || code === '28000')
    return new TeamStoreUnavailableError(
      `the store at ${where} refused the credentials (${code === '28P01' ? 'wrong password' : 'not allowed to connect'})`,
    );
  if (code === '3D000') return new TeamStoreUnavailableError(`the store at ${where} has no such database`);
  if (code === '55P03')
    return new TeamStoreUnavailableError(
      `the store at ${where} is busy: a lock on its tables was held too long (another sync, or a session holding a table lock)`,
    );
  if (code === '57014' || /timeout|timed out/i.test(message))
    return new TeamStoreUnavailableError(
      `no answer from the store at ${where} within ${(timeoutMs / 1000).toFixed(1)} s`,
    );
  // The driver's message can quote the connection string in some errors: never pass a password on.
  return new TeamStoreUnavailableError(
    `the store at ${where} failed: ${message.replace(/postgres(ql)?:\/\/\S+/g, '<url>')}`,
  );
}

/**
 * Connect, do `work`, disconnect: all of it within `deadlineMs` (a check must not
 * wait on a slow store longer than the user allowed). Past the deadline the
 * connection is destroyed, so nothing is left running on the server's side for us.
 * The store's failures come back as one TeamStoreUnavailableError line.
 */
export async function withTeamStoreDeadline<T>(
  url: string,
  deadlineMs: number,
  work: (client: TeamStoreClient) => Promise<T>,
): Promise<T> {
  // The deadline starts before connecting: connecting and the work share it.
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new TeamStoreUnavailableError(
            `no answer from the store at ${target(url)} within ${(deadlineMs / 1000).toFixed(1)} s`,
          ),
        ),
      deadlineMs,
    );
    timer.unref();
  });
  expired.catch(() => undefined); // raced below; never an unhandled rejection
  let client: TeamStoreClient | null = null;
  try {
    const connecting = connectTeamStore(url, deadlineMs, deadlineMs, Math.min(READ_LOCK_MS, deadlineMs / 2));
    // A connection that arrives after the deadline is closed at once (a long-lived MCP server must not collect them).
    expired.catch(() => connecting.then((late) => late.end()).catch(() => undefined));
    client = await Promise.race([connecting, expired]);
    return await Promise.race([work(client), expired]);
  } catch (e) {
    throw isTeamStoreError(e) ? storeError(e, url, deadlineMs) : e;
  } finally {
    clearTimeout(timer);
    const open = client;
    if (open) await Promise.race([open.end().catch(() => undefined), new Promise((r) => setTimeout(r, 200).unref())]);
  }
}
