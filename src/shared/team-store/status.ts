/** `agentos store status`: what the team store holds and which server answered (URL shown masked). */
import type { TeamStoreClient } from './connect.js';
import { SCHEMA_VERSION, schemaVersion } from './schema.js';

export interface TeamStoreStatus {
  url: string;
  server: string;
  /** This session's encryption, as the server reports it (pg_stat_ssl): a TLS protocol, or null in plain text; and the sslmode asked for. */
  connection: { tls: string | null; sslmode: string | null };
  vector: string | null;
  schema: { version: number; expected: number; state: 'current' | 'missing' | 'older' | 'newer' };
  repositories: Array<{ name: string; documents: number; chunks: number; syncedAt: string | null }>;
  /** Shared attempts on the server (attempts.scope: org), by outcome. */
  attempts: { failures: number; successes: number };
}

export async function storeStatus(
  client: TeamStoreClient,
  maskedUrl: string,
  sslmode: string | null = null,
): Promise<TeamStoreStatus> {
  const server = (await client.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0].v;
  const ssl = (
    await client.query<{ ssl: boolean; version: string | null }>(
      `SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()`,
    )
  ).rows[0];
  const connection = { tls: ssl?.ssl ? (ssl.version ?? 'TLS') : null, sslmode };
  const vector =
    (await client.query<{ extversion: string }>(`SELECT extversion FROM pg_extension WHERE extname = 'vector'`)).rows[0]
      ?.extversion ?? null;
  const version = await schemaVersion(client);
  const state =
    version === 0 ? 'missing' : version < SCHEMA_VERSION ? 'older' : version > SCHEMA_VERSION ? 'newer' : 'current';
  let repositories: TeamStoreStatus['repositories'] = [];
  let attempts = { failures: 0, successes: 0 };
  if (state === 'current') {
    // Each repository's totals are kept by its sync: one row each, whatever the store's size.
    const r = await client.query<{ name: string; docs: number; chunks: number; synced_at: Date | null }>(
      `SELECT name, docs, chunks, synced_at FROM repositories ORDER BY name`,
    );
    repositories = r.rows.map((x) => ({
      name: x.name,
      documents: x.docs,
      chunks: x.chunks,
      syncedAt: isoOrNull(x.synced_at),
    }));
    const a = await client.query<{ failures: string; successes: string }>(
      `SELECT count(*) FILTER (WHERE outcome = 'failure') AS failures, count(*) FILTER (WHERE outcome = 'success') AS successes FROM attempts`,
    );
    attempts = { failures: Number(a.rows[0].failures), successes: Number(a.rows[0].successes) };
  }
  return {
    url: maskedUrl,
    server,
    connection,
    vector,
    schema: { version, expected: SCHEMA_VERSION, state },
    repositories,
    attempts,
  };
}

/** A row's date as ISO text; null for what is none (a writer's 'infinity' reads back as the number Infinity, a year past 275760 as an invalid date). */
function isoOrNull(d: unknown): string | null {
  return d instanceof Date && Number.isFinite(d.getTime()) ? d.toISOString() : null;
}
