/**
 * The team store's schema, versioned (docs/adrs/0017-shared-store.md). `store init`
 * applies what is missing in one transaction, under an advisory lock: two processes
 * migrating at once wait for each other and the second finds nothing to do; a crash
 * leaves the previous version whole. A server with a newer schema than this agentos
 * knows is refused rather than written to.
 */
import type { TeamStoreClient } from './connect.js';
import { SEARCH_PATH, STORE_SCHEMA } from './names.js';
import { TeamStoreUnavailableError, errorMessage } from '../errors.js';

/** The advisory lock every migration holds (an arbitrary constant: "agentos" in ASCII), as a string: it is above 2^53. */
export const MIGRATION_LOCK = '27416758083415923';

import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';

export { MIGRATIONS, SCHEMA_VERSION };

/** The schema version on the server: 0 when agentos never initialised it. */
export async function schemaVersion(client: TeamStoreClient): Promise<number> {
  const exists = await client.query<{ t: string | null }>(`SELECT to_regclass('agentos_schema')::text AS t`);
  if (!exists.rows[0]?.t) return 0;
  const r = await client.query<{ version: number }>(`SELECT version FROM agentos_schema`);
  return r.rows[0]?.version ?? 0;
}

/**
 * Why a store at this schema version cannot be read or written by this agentos, in one wording for every reader
 * and writer (checks, syncs, shared attempts, `store remove`); null when it can.
 */
export function schemaProblem(version: number): string | null {
  if (version === SCHEMA_VERSION) return null;
  if (version === 0) return 'the store has no agentos schema yet: run `agentos store init`';
  return version < SCHEMA_VERSION
    ? `the store's schema is version ${version}, older than this agentos (${SCHEMA_VERSION}): run \`agentos store init\``
    : `the store's schema is version ${version}, newer than this agentos knows (${SCHEMA_VERSION}); upgrade agentos`;
}

/** The one check before reading or writing the store: its schema is this agentos' version, else exit 7 with why. */
export async function requireCurrentSchema(client: TeamStoreClient): Promise<void> {
  const problem = schemaProblem(await schemaVersion(client));
  if (problem) throw new TeamStoreUnavailableError(problem);
}

/** What `store init` did: the version before and after, and whether pgvector was installed now. */
export interface MigrationResult {
  from: number;
  to: number;
  vector: string;
  /** Repositories published before version 4 (no owners then): now owned by the role that ran the migration, until an administrator adds theirs. */
  adopted: number;
}

/** How long `store init` waits for another migration (or anyone holding its lock) before it says who holds it. */
export const MIGRATION_WAIT_MS = 30_000;

/**
 * The migration lock, waited for at most MIGRATION_WAIT_MS: an advisory lock anyone can take (a reader
 * holding it made `store init` wait until its statement timeout), so a wait that ends names the holder.
 */
export async function migrationLock(client: TeamStoreClient, waitMs = MIGRATION_WAIT_MS): Promise<void> {
  const until = Date.now() + waitMs;
  for (;;) {
    const got = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1::bigint) AS ok', [
      MIGRATION_LOCK,
    ]);
    if (got.rows[0]?.ok) return;
    if (Date.now() >= until) {
      const holder = await client.query<{ pid: number; usename: string | null }>(
        `SELECT l.pid, a.usename FROM pg_catalog.pg_locks l LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid
          WHERE l.locktype = 'advisory' AND l.granted AND ((l.classid::bigint << 32) | l.objid::bigint) = $1::bigint LIMIT 1`,
        [MIGRATION_LOCK],
      );
      const h = holder.rows[0];
      throw new TeamStoreUnavailableError(
        `another session${h ? ` (pid ${h.pid}${h.usename ? `, user ${h.usename}` : ''})` : ''} has held the store's migration lock for ${Math.round(waitMs / 1000)} s; run \`agentos store init\` again when it is done`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function migrate(client: TeamStoreClient): Promise<MigrationResult> {
  // A store already at this version takes no lock: anyone may hold an advisory lock (a reader holding
  // this one made every `store init` wait), so only an upgrade waits for it.
  const current = await schemaVersion(client).catch(() => null);
  if (current === SCHEMA_VERSION) {
    const vector = await client.query<{ extversion: string }>(
      `SELECT extversion FROM pg_extension WHERE extname = 'vector'`,
    );
    if (vector.rows[0]) return { from: current, to: current, vector: vector.rows[0].extversion, adopted: 0 };
  }
  await client.query('BEGIN');
  try {
    await migrationLock(client);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${STORE_SCHEMA}`);
    } catch (e) {
      if ((e as { code?: string }).code === '42501')
        throw new TeamStoreUnavailableError(
          `this user may not create the "${STORE_SCHEMA}" schema; run \`agentos store init\` as the database owner (docs/team-store.md)`,
        );
      throw e;
    }
    // Tables are created in the store's schema (the first on the path); the extension's type is found in public.
    await client.query(`SET LOCAL search_path = ${SEARCH_PATH}`);
    const available = await client.query<{ default_version: string }>(
      `SELECT default_version FROM pg_available_extensions WHERE name = 'vector'`,
    );
    if (available.rows.length === 0)
      throw new TeamStoreUnavailableError(
        'the server has no pgvector extension (pg_available_extensions has no "vector"); install pgvector on the PostgreSQL server',
      );
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS vector');
    } catch (e) {
      if ((e as { code?: string }).code === '42501')
        throw new TeamStoreUnavailableError(
          'this user may not create the pgvector extension; ask an administrator to run CREATE EXTENSION vector in this database',
        );
      throw e;
    }
    const from = await schemaVersion(client);
    if (from > SCHEMA_VERSION) throw new TeamStoreUnavailableError(schemaProblem(from)!);
    try {
      for (let v = from; v < SCHEMA_VERSION; v++) for (const sql of MIGRATIONS[v]) await client.query(sql);
    } catch (e) {
      if ((e as { code?: string }).code === '42501')
        throw new TeamStoreUnavailableError(
          `this user may not create the store's roles and policies (${errorMessage(e)}); run \`agentos store init\` as the database owner with CREATEROLE (docs/team-store.md)`,
        );
      throw e;
    }
    if (from < SCHEMA_VERSION) {
      await client.query(
        `INSERT INTO agentos_schema (version) VALUES ($1) ON CONFLICT (singleton) DO UPDATE SET version = EXCLUDED.version, migrated_at = now()`,
        [SCHEMA_VERSION],
      );
    }
    const vector = await client.query<{ extversion: string }>(
      `SELECT extversion FROM pg_extension WHERE extname = 'vector'`,
    );
    const adopted =
      from > 0 && from < 4
        ? Number(
            (await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${STORE_SCHEMA}.repositories`)).rows[0].n,
          )
        : 0;
    await client.query('COMMIT');
    return { from, to: SCHEMA_VERSION, vector: vector.rows[0]?.extversion ?? 'unknown', adopted };
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
