/**
 * The shared store's schema, versioned (docs/adrs/0017-shared-store.md). `store init`
 * applies what is missing in one transaction, under an advisory lock: two processes
 * migrating at once wait for each other and the second finds nothing to do; a crash
 * leaves the previous version whole. A server with a newer schema than this agentos
 * knows is refused rather than written to.
 */
import type { StoreClient } from './connect.js';
import { StoreUnavailableError } from '../errors.js';

/** The advisory lock every migration holds (an arbitrary constant: "agentos" in ASCII), as a string: it is above 2^53. */
const MIGRATION_LOCK = '27416758083415923';

/** A repository's document counts and total lexical length, recomputed from its documents (`where` picks the repositories). */
export function repositoryTotalsSql(where: string): string {
  return `UPDATE repositories r SET docs = s.docs, history_docs = s.history_docs, standard_docs = s.standard_docs, lexical_len = s.lexical_len,
      chunks = (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.repository_id = r.id)
    FROM (SELECT r2.id, count(d.id)::int AS docs, count(d.id) FILTER (WHERE 'history' = ANY(d.types))::int AS history_docs,
                 count(d.id) FILTER (WHERE 'standard' = ANY(d.types))::int AS standard_docs, COALESCE(sum(d.lexical_len), 0)::bigint AS lexical_len
          FROM repositories r2 LEFT JOIN documents d ON d.repository_id = r2.id WHERE ${where} GROUP BY r2.id) s
    WHERE r.id = s.id`;
}

/** Each version's statements, applied in order. The vector size is the model's (all-MiniLM-L6-v2: 384). */
export const MIGRATIONS: string[][] = [
  [
    `CREATE TABLE IF NOT EXISTS agentos_schema (singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton), version integer NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now())`,
    // Each repository is a namespace: its documents, its model and chunking, its last sync.
    // The model identity the vectors were made with: another one replaces the repository's documents.
    `CREATE TABLE repositories (id bigserial PRIMARY KEY, name text NOT NULL UNIQUE, model_id text, model_fingerprint text, dimensions integer, max_tokens integer, chunking_version integer, synced_at timestamptz)`,
    // sync_digest: content hash, types, metadata and term counts together: any of them changing resends the document.
    `CREATE TABLE documents (id bigserial PRIMARY KEY, repository_id bigint NOT NULL REFERENCES repositories ON DELETE CASCADE, path text NOT NULL, content_hash text NOT NULL, sync_digest text NOT NULL, types text[] NOT NULL, metadata jsonb NOT NULL, UNIQUE (repository_id, path))`,
    `CREATE TABLE chunks (id bigserial PRIMARY KEY, document_id bigint NOT NULL REFERENCES documents ON DELETE CASCADE, ordinal integer NOT NULL, section text NOT NULL, excerpt text NOT NULL, embedding vector(384) NOT NULL)`,
    `CREATE INDEX chunks_embedding ON chunks USING hnsw (embedding vector_ip_ops)`,
    `CREATE INDEX chunks_document ON chunks (document_id)`,
    // BM25 statistics kept in tables: the client scores as the local index does (same numbers).
    `CREATE TABLE document_terms (document_id bigint NOT NULL REFERENCES documents ON DELETE CASCADE, term text NOT NULL, tf integer NOT NULL, PRIMARY KEY (document_id, term))`,
  ],
  [
    // Version 2, the org-scope check (issue 23): BM25 over every repository needs each document's
    // length, the documents holding a term, and each repository's totals, without a scan of document_terms.
    `ALTER TABLE documents ADD COLUMN lexical_len integer NOT NULL DEFAULT 0`,
    `UPDATE documents d SET lexical_len = COALESCE((SELECT sum(tf) FROM document_terms t WHERE t.document_id = d.id), 0)`,
    `CREATE INDEX document_terms_term ON document_terms (term)`,
    // Per repository, so that a sync rewrites its own rows only (no contention between repositories).
    `CREATE TABLE repository_terms (term text NOT NULL, repository_id bigint NOT NULL REFERENCES repositories ON DELETE CASCADE, df integer NOT NULL, PRIMARY KEY (term, repository_id))`,
    `INSERT INTO repository_terms (term, repository_id, df) SELECT t.term, d.repository_id, count(*) FROM document_terms t JOIN documents d ON d.id = t.document_id GROUP BY 1, 2`,
    `ALTER TABLE repositories ADD COLUMN docs integer NOT NULL DEFAULT 0, ADD COLUMN history_docs integer NOT NULL DEFAULT 0, ADD COLUMN standard_docs integer NOT NULL DEFAULT 0, ADD COLUMN lexical_len bigint NOT NULL DEFAULT 0, ADD COLUMN chunks integer NOT NULL DEFAULT 0`,
    repositoryTotalsSql('true'),
  ],
  [
    // Version 3, shared attempts (issue 23): what every agent of the team tried, redacted on
    // its machine before it was sent. The id is the recording machine's ULID: a record sent
    // twice (a crash between the server's commit and the local outbox) is one row.
    `CREATE TABLE attempts (id text PRIMARY KEY, repository text NOT NULL, author text NOT NULL, time timestamptz NOT NULL, session_id text NOT NULL, tool text NOT NULL, command text NOT NULL,
      outcome text NOT NULL CHECK (outcome IN ('success', 'failure')), exit_code integer, duration_ms integer, error text, cause text, context text, work text, branch text,
      tags jsonb NOT NULL, cwd text NOT NULL, received_at timestamptz NOT NULL DEFAULT clock_timestamp())`,
    `CREATE INDEX attempts_received ON attempts (received_at)`,
    // What an author forgot: other machines drop their copies when they next pull.
    `CREATE TABLE forgotten_attempts (id text PRIMARY KEY, author text NOT NULL, forgotten_at timestamptz NOT NULL DEFAULT clock_timestamp())`,
    `CREATE INDEX forgotten_attempts_at ON forgotten_attempts (forgotten_at)`,
  ],
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** The schema version on the server: 0 when agentos never initialised it. */
export async function schemaVersion(client: StoreClient): Promise<number> {
  const exists = await client.query<{ t: string | null }>(`SELECT to_regclass('agentos_schema')::text AS t`);
  if (!exists.rows[0]?.t) return 0;
  const r = await client.query<{ version: number }>(`SELECT version FROM agentos_schema`);
  return r.rows[0]?.version ?? 0;
}

/** What `store init` did: the version before and after, and whether pgvector was installed now. */
export interface MigrationResult {
  from: number;
  to: number;
  vector: string;
}

export async function migrate(client: StoreClient): Promise<MigrationResult> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
    const available = await client.query<{ default_version: string }>(`SELECT default_version FROM pg_available_extensions WHERE name = 'vector'`);
    if (available.rows.length === 0) throw new StoreUnavailableError('the server has no pgvector extension (pg_available_extensions has no "vector"); install pgvector on the PostgreSQL server');
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS vector');
    } catch (e) {
      if ((e as { code?: string }).code === '42501')
        throw new StoreUnavailableError('this user may not create the pgvector extension; ask an administrator to run CREATE EXTENSION vector in this database');
      throw e;
    }
    const from = await schemaVersion(client);
    if (from > SCHEMA_VERSION) throw new StoreUnavailableError(`the store's schema is version ${from}, newer than this agentos knows (${SCHEMA_VERSION}); upgrade agentos`);
    for (let v = from; v < SCHEMA_VERSION; v++) for (const sql of MIGRATIONS[v]) await client.query(sql);
    if (from < SCHEMA_VERSION) {
      await client.query(`INSERT INTO agentos_schema (version) VALUES ($1) ON CONFLICT (singleton) DO UPDATE SET version = EXCLUDED.version, migrated_at = now()`, [SCHEMA_VERSION]);
    }
    const vector = await client.query<{ extversion: string }>(`SELECT extversion FROM pg_extension WHERE extname = 'vector'`);
    await client.query('COMMIT');
    return { from, to: SCHEMA_VERSION, vector: vector.rows[0]?.extversion ?? 'unknown' };
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
