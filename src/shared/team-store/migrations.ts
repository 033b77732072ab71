/**
 * The team store's schema, version by version: the statements `store init` applies (schema.ts
 * runs them, in one transaction under the migration lock). A version once released is never
 * edited: a store already at it would never see the change; what changes comes as the next version.
 */
import { DOCUMENT_LIMITS as L } from './limits.js';

/** A repository's document counts and total lexical length, recomputed from its documents (`where` picks the repositories). */
export function repositoryTotalsSql(where: string): string {
  return `UPDATE repositories r SET docs = s.docs, history_docs = s.history_docs, standard_docs = s.standard_docs, lexical_len = s.lexical_len,
      chunks = (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.repository_id = r.id)
    FROM (SELECT r2.id, count(d.id)::int AS docs, count(d.id) FILTER (WHERE 'history' = ANY(d.types))::int AS history_docs,
                 count(d.id) FILTER (WHERE 'standard' = ANY(d.types))::int AS standard_docs, COALESCE(sum(d.lexical_len), 0)::bigint AS lexical_len
          FROM repositories r2 LEFT JOIN documents d ON d.repository_id = r2.id WHERE ${where} GROUP BY r2.id) s
    WHERE r.id = s.id`;
}

/** Who is asking, as the policies read it: the role in effect (version 4), or the login the session connected as (version 5 on). */
type Who = 'current_user' | 'session_user';

/** Whether `who` may write a repository: an administrator, or one of its owners. A fixed search_path: no caller's function answers for it. */
const mayWriteSql = (who: Who) =>
  `CREATE OR REPLACE FUNCTION agentos.may_write(repo bigint) RETURNS boolean LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
     $$ SELECT pg_catalog.pg_has_role(${who}, 'agentos_admin', 'MEMBER') OR EXISTS (SELECT 1 FROM agentos.repositories r WHERE r.id = repo AND ${who}::text = ANY (r.owners)) $$`;

/** The trigger that lets only an administrator change a repository's owners or name. */
const keepOwnersSql = (who: Who) =>
  `CREATE OR REPLACE FUNCTION agentos.keep_owners() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
     $$ BEGIN
       IF (NEW.owners IS DISTINCT FROM OLD.owners OR NEW.name IS DISTINCT FROM OLD.name) AND NOT pg_catalog.pg_has_role(${who}, 'agentos_admin', 'MEMBER') THEN
         RAISE EXCEPTION 'only an administrator (agentos_admin) changes the owners or the name of %', OLD.name USING ERRCODE = '42501';
       END IF;
       RETURN NEW;
     END $$`;

/** The tables a writer adds rows to (and, through the functions below, removes its own from). */
const WRITTEN = [
  'repositories',
  'documents',
  'chunks',
  'document_terms',
  'repository_terms',
  'attempts',
  'forgotten_attempts',
];

/**
 * Every repository's statistics as the server counts them, once (a migration): `counts` says which
 * documents count (d is the document). The NOT VALID checks are lifted around the recount and put back
 * as they were (NOT VALID): a row from before a check (a pre-version-4 document without a title, a
 * pre-version-5 name) is recounted, not judged, and never fails the upgrade.
 */
const recountEverySql = (counts: string) =>
  `DO $$
   DECLARE k record; back text[] := '{}'; s text;
   BEGIN
     FOR k IN SELECT con.conrelid::regclass::text AS t, con.conname AS n, pg_catalog.pg_get_constraintdef(con.oid) AS d
              FROM pg_catalog.pg_constraint con WHERE con.contype = 'c' AND con.conrelid IN ('agentos.documents'::regclass, 'agentos.repositories'::regclass) LOOP
       EXECUTE pg_catalog.format('ALTER TABLE %s DROP CONSTRAINT %I', k.t, k.n);
       back := back || pg_catalog.format('ALTER TABLE %s ADD CONSTRAINT %I %s NOT VALID', k.t, k.n, pg_catalog.regexp_replace(k.d, ' NOT VALID$', ''));
     END LOOP;
     UPDATE agentos.documents d SET lexical_len = s2.len
       FROM (SELECT d2.id, LEAST(COALESCE(sum(t.tf), 0), 2147483647)::int AS len FROM agentos.documents d2 LEFT JOIN agentos.document_terms t ON t.document_id = d2.id GROUP BY d2.id) s2
       WHERE d.id = s2.id AND d.lexical_len IS DISTINCT FROM s2.len;
     DELETE FROM agentos.repository_terms;
     INSERT INTO agentos.repository_terms (term, repository_id, df) SELECT t.term, d.repository_id, count(*) FROM agentos.document_terms t JOIN agentos.documents d ON d.id = t.document_id
       WHERE ${counts} GROUP BY t.term, d.repository_id;
     UPDATE agentos.repositories r SET docs = s2.docs, history_docs = s2.history_docs, standard_docs = s2.standard_docs, lexical_len = s2.lexical_len, chunks = s2.chunks
       FROM (SELECT r2.id, count(d.id)::int AS docs, count(d.id) FILTER (WHERE 'history' = ANY(d.types))::int AS history_docs,
                    count(d.id) FILTER (WHERE 'standard' = ANY(d.types))::int AS standard_docs, COALESCE(sum(d.lexical_len), 0)::bigint AS lexical_len,
                    (SELECT count(*) FROM agentos.chunks c JOIN agentos.documents d3 ON d3.id = c.document_id WHERE d3.repository_id = r2.id)::int AS chunks
             FROM agentos.repositories r2 LEFT JOIN agentos.documents d ON d.repository_id = r2.id AND ${counts} GROUP BY r2.id) s2
       WHERE r.id = s2.id AND (r.docs, r.history_docs, r.standard_docs, r.lexical_len, r.chunks) IS DISTINCT FROM (s2.docs, s2.history_docs, s2.standard_docs, s2.lexical_len, s2.chunks);
     FOREACH s IN ARRAY back LOOP EXECUTE s; END LOOP;
   END $$`;

/**
 * The statistics of one repository, recounted from its rows (version 6 created it, version 7 replaced it):
 * `len` is a document's lexical length from sum(t.tf), `counts` which documents count (d is the document).
 */
const refreshStatisticsSql = (
  create: 'CREATE FUNCTION' | 'CREATE OR REPLACE FUNCTION',
  len: string,
  counts: string,
  why: string,
) =>
  `${create} agentos.refresh_statistics(repo bigint) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
     $$ BEGIN
       IF NOT agentos.may_write(repo) THEN RAISE EXCEPTION 'only an owner of repository % or an administrator recounts it', repo USING ERRCODE = '42501'; END IF;
       UPDATE agentos.documents d SET lexical_len = s.len FROM (SELECT d2.id, ${len}::int AS len FROM agentos.documents d2 LEFT JOIN agentos.document_terms t ON t.document_id = d2.id
           WHERE d2.repository_id = repo GROUP BY d2.id) s WHERE d.id = s.id AND d.lexical_len IS DISTINCT FROM s.len;
       -- ${why}
       DELETE FROM agentos.repository_terms WHERE repository_id = repo;
       INSERT INTO agentos.repository_terms (term, repository_id, df)
         SELECT t.term, repo, count(*) FROM agentos.document_terms t JOIN agentos.documents d ON d.id = t.document_id
         WHERE d.repository_id = repo AND ${counts} GROUP BY t.term;
       UPDATE agentos.repositories r SET docs = s.docs, history_docs = s.history_docs, standard_docs = s.standard_docs, lexical_len = s.lexical_len, chunks = s.chunks
         FROM (SELECT count(d.id)::int AS docs, count(d.id) FILTER (WHERE 'history' = ANY(d.types))::int AS history_docs,
                      count(d.id) FILTER (WHERE 'standard' = ANY(d.types))::int AS standard_docs, COALESCE(sum(d.lexical_len), 0)::bigint AS lexical_len,
                      (SELECT count(*) FROM agentos.chunks c JOIN agentos.documents d3 ON d3.id = c.document_id WHERE d3.repository_id = repo)::int AS chunks
               FROM agentos.documents d WHERE d.repository_id = repo AND ${counts}) s
         WHERE r.id = repo AND (r.docs, r.history_docs, r.standard_docs, r.lexical_len, r.chunks) IS DISTINCT FROM (s.docs, s.history_docs, s.standard_docs, s.lexical_len, s.chunks);
       UPDATE agentos.repositories SET counted = true WHERE id = repo AND NOT counted;
     END $$`;

/**
 * Version 6, least privilege (issue 47). A writer holds no table-wide UPDATE or DELETE (either let
 * `LOCK TABLE … ACCESS EXCLUSIVE` stop every reader): rows are added with INSERT, on the columns a
 * client may say, and removed or recounted only through the functions here, which run as the store's
 * owner and check who is asking (session_user, as the policies do). The statistics the score reads —
 * a repository's totals, its terms' document frequencies, a document's lexical length — are the
 * server's: computed from the rows by refresh_statistics, never a column a writer sets.
 */
const VERSION_6: string[] = [
  `REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON ${WRITTEN.map((t) => `agentos.${t}`).join(', ')} FROM agentos_writer`,
  `REVOKE INSERT ON ${WRITTEN.map((t) => `agentos.${t}`).join(', ')} FROM agentos_writer`,
  // What a client says: a repository's name (and, when it syncs, its model); a document without its length; chunks, terms, attempts, forgets.
  `GRANT INSERT (name) ON agentos.repositories TO agentos_writer`,
  `GRANT UPDATE (name, model_id, model_fingerprint, dimensions, max_tokens, chunking_version, synced_at) ON agentos.repositories TO agentos_writer`,
  `GRANT INSERT (repository_id, path, content_hash, sync_digest, types, metadata) ON agentos.documents TO agentos_writer`,
  // No serial id, author or receipt time from a client (a planted chunk id ahead of the sequence would fail everyone's later syncs).
  `GRANT INSERT (document_id, ordinal, section, excerpt, embedding) ON agentos.chunks TO agentos_writer`,
  `GRANT INSERT ON agentos.document_terms TO agentos_writer`,
  `GRANT INSERT (id, repository, time, session_id, tool, command, outcome, exit_code, duration_ms, error, cause, context, work, branch, tags, cwd) ON agentos.attempts TO agentos_writer`,
  `GRANT INSERT (id) ON agentos.forgotten_attempts TO agentos_writer`,
  // A published repository's attempts are its members' (owners, and those an administrator adds): any writer
  // shared into any repository's name before (issue 47). A name nobody published is anyone's to share under.
  `ALTER TABLE agentos.repositories ADD COLUMN members text[] NOT NULL DEFAULT '{}'`,
  `CREATE FUNCTION agentos.may_share(repo_name text) RETURNS boolean LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
     $$ SELECT pg_catalog.pg_has_role(session_user, 'agentos_admin', 'MEMBER')
          OR NOT EXISTS (SELECT 1 FROM agentos.repositories r WHERE r.name = repo_name)
          OR EXISTS (SELECT 1 FROM agentos.repositories r WHERE r.name = repo_name AND (session_user::text = ANY (r.owners) OR session_user::text = ANY (r.members))) $$`,
  `ALTER POLICY attempts_own ON agentos.attempts WITH CHECK (author = session_user AND agentos.may_share(repository))`,
  // An administrator (docs/team-store.md) adds owners and members and removes anyone's rows by hand: a trusted role, and its own grants.
  `GRANT UPDATE (owners, members) ON agentos.repositories TO agentos_admin`,
  `GRANT DELETE ON agentos.repositories, agentos.documents, agentos.attempts TO agentos_admin`,
  `ALTER TABLE agentos.documents ALTER COLUMN lexical_len SET DEFAULT 0`,
  // Rows added or removed and not yet counted (refresh_statistics): a reader leaves the repository out until they are.
  `ALTER TABLE agentos.repositories ADD COLUMN counted boolean NOT NULL DEFAULT true`,
  `CREATE FUNCTION agentos.mark_uncounted() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
     $$ BEGIN
       IF TG_TABLE_NAME = 'documents' THEN
         UPDATE agentos.repositories r SET counted = false WHERE r.counted AND r.id IN (SELECT repository_id FROM changed_rows);
       ELSE
         UPDATE agentos.repositories r SET counted = false WHERE r.counted AND r.id IN (SELECT d.repository_id FROM agentos.documents d WHERE d.id IN (SELECT document_id FROM changed_rows));
       END IF;
       RETURN NULL;
     END $$`,
  `REVOKE ALL ON FUNCTION agentos.mark_uncounted() FROM PUBLIC`,
  ...['documents', 'chunks', 'document_terms'].flatMap((t) => [
    `CREATE TRIGGER ${t}_added AFTER INSERT ON agentos.${t} REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION agentos.mark_uncounted()`,
    `CREATE TRIGGER ${t}_removed AFTER DELETE ON agentos.${t} REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION agentos.mark_uncounted()`,
  ]),
  // The statistics of one repository, recounted from its rows: called by a sync of it, as its owner or an administrator.
  refreshStatisticsSql(
    'CREATE FUNCTION',
    'COALESCE(sum(t.tf), 0)',
    'EXISTS (SELECT 1 FROM agentos.chunks c WHERE c.document_id = d.id)',
    'A document with no chunk is never found (and one a reader skips is read for nothing): only documents with chunks count.',
  ),
  // A repository's documents removed (all of them when ids is null), with their chunks and terms: its owners' and administrators' only.
  `CREATE FUNCTION agentos.remove_documents(repo bigint, ids bigint[]) RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
     $$ DECLARE n integer;
     BEGIN
       IF NOT agentos.may_write(repo) THEN RAISE EXCEPTION 'only an owner of repository % or an administrator removes its documents', repo USING ERRCODE = '42501'; END IF;
       DELETE FROM agentos.documents WHERE repository_id = repo AND (ids IS NULL OR id = ANY (ids));
       GET DIAGNOSTICS n = ROW_COUNT;
       RETURN n;
     END $$`,
  // A repository removed by name: null when there is none or the caller may not (the client then says whose it is).
  `CREATE FUNCTION agentos.remove_repository(repo_name text) RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
     $$ DECLARE gone bigint;
     BEGIN
       DELETE FROM agentos.repositories r WHERE r.name = repo_name AND agentos.may_write(r.id) RETURNING r.id INTO gone;
       RETURN gone;
     END $$`,
  // A person's own shared attempts taken back (another's stay, whoever asks): the ids removed.
  `CREATE FUNCTION agentos.forget_attempts(ids text[]) RETURNS SETOF text LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
     $$ DELETE FROM agentos.attempts a WHERE a.id = ANY (ids) AND a.author = session_user RETURNING a.id $$`,
  // Every deletion of a shared attempt leaves a tombstone (an administrator's by hand too): a teammate's copy goes at the next pull.
  `CREATE FUNCTION agentos.tombstone_attempt() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
     $$ BEGIN
       INSERT INTO agentos.forgotten_attempts (id, author) VALUES (OLD.id, OLD.author) ON CONFLICT (id) DO NOTHING;
       RETURN OLD;
     END $$`,
  `REVOKE ALL ON FUNCTION agentos.tombstone_attempt() FROM PUBLIC`,
  `CREATE TRIGGER attempts_tombstone AFTER DELETE ON agentos.attempts FOR EACH ROW EXECUTE FUNCTION agentos.tombstone_attempt()`,
  ...[
    'refresh_statistics(bigint)',
    'remove_documents(bigint, bigint[])',
    'remove_repository(text)',
    'forget_attempts(text[])',
  ].flatMap((f) => [
    `REVOKE ALL ON FUNCTION agentos.${f} FROM PUBLIC`,
    `GRANT EXECUTE ON FUNCTION agentos.${f} TO agentos_writer`,
  ]),
  // Every repository's statistics as the server counts them, once: values a writer set before this version go.
  recountEverySql('EXISTS (SELECT 1 FROM agentos.chunks c WHERE c.document_id = d.id)'),
];

/**
 * Version 7 (issue 47): a document counts in the statistics only when a reader would read it: it has
 * chunks and stays within DOCUMENT_LIMITS, and its chunks and term counts have the shape every reader
 * checks (work-memory/org/fetch.ts). Before, a document of 10,001 chunks, skipped by every reader,
 * still weighed in the totals and in every term it held. (Its metadata's shape is the client's to
 * judge, a path is measured in characters here and UTF-16 units there, and a vector from before
 * version 4's unit CHECK, which readers skip, still counts: pgvector's functions are not on this
 * function's fixed search_path.) A document's lexical length
 * is clamped to an integer as version 6's recount clamps it (a sum past 2^31 failed the recount).
 * `repositories.chunks` stays every chunk stored: `store status` shows what the store holds.
 */
const COUNTABLE = 'agentos.countable(d.id)';
const VERSION_7: string[] = [
  // One pass over a document's chunks (at most one past the limit) and one over its terms: the reader's rules for
  // both (a chunk's text over the lengths agentos writes, a term count that is not a positive count), then its row's.
  `CREATE FUNCTION agentos.countable(doc bigint) RETURNS boolean LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
     $$ SELECT (SELECT count(*) BETWEEN 1 AND ${L.chunks}
                       AND count(*) FILTER (WHERE pg_catalog.length(c.section) > ${L.section} OR pg_catalog.length(c.excerpt) > ${L.excerpt}) = 0
                  FROM (SELECT section, excerpt FROM agentos.chunks WHERE document_id = doc LIMIT ${L.chunks + 1}) c)
           AND (SELECT count(*) <= ${L.terms} AND count(*) FILTER (WHERE t.tf <= 0) = 0
                  FROM (SELECT tf FROM agentos.document_terms WHERE document_id = doc LIMIT ${L.terms + 1}) t)
           AND EXISTS (SELECT 1 FROM agentos.documents d WHERE d.id = doc AND pg_catalog.length(d.path) <= ${L.path}
                         AND pg_catalog.octet_length(d.metadata::text) <= ${L.metadataBytes}) $$`,
  `REVOKE ALL ON FUNCTION agentos.countable(bigint) FROM PUBLIC`,
  refreshStatisticsSql(
    'CREATE OR REPLACE FUNCTION',
    'LEAST(COALESCE(sum(t.tf), 0), 2147483647)',
    COUNTABLE,
    'Only what a reader reads counts: a document with no chunk is never found, and one past the limits is skipped unread.',
  ),
  // Every repository recounted by the new rule, once.
  recountEverySql(COUNTABLE),
];

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
  [
    // Version 4, a store a team can trust (issue 30): the store's own schema, each person their own
    // login role in a group, row-level security instead of the client's courtesy, and CHECKs that
    // refuse rows no agentos writes. The tables of a version-3 store move out of `public`.
    `DO $$ DECLARE t text; BEGIN
       FOREACH t IN ARRAY ARRAY['agentos_schema', 'repositories', 'documents', 'chunks', 'document_terms', 'repository_terms', 'attempts', 'forgotten_attempts'] LOOP
         IF to_regclass('public.' || t) IS NOT NULL AND to_regclass('agentos.' || t) IS NULL THEN EXECUTE format('ALTER TABLE public.%I SET SCHEMA agentos', t); END IF;
       END LOOP; END $$`,
    // Group roles: readers check, search and pull; writers also publish and share; admins may change any repository.
    `DO $$ BEGIN
       IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'agentos_reader') THEN CREATE ROLE agentos_reader NOLOGIN; END IF;
       IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'agentos_writer') THEN CREATE ROLE agentos_writer NOLOGIN IN ROLE agentos_reader; END IF;
       IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'agentos_admin') THEN CREATE ROLE agentos_admin NOLOGIN IN ROLE agentos_writer; END IF;
     END $$`,
    // A repository belongs to whoever published it first; an administrator can add owners.
    `ALTER TABLE agentos.repositories ADD COLUMN owners text[] NOT NULL DEFAULT ARRAY[current_user::text]`,
    // The author of a record is the database user, never a name the client chooses.
    `ALTER TABLE agentos.attempts ALTER COLUMN author SET DEFAULT current_user`,
    `ALTER TABLE agentos.forgotten_attempts ALTER COLUMN author SET DEFAULT current_user`,
    // A fixed search_path: a caller's own `pg_has_role` or `=` in a schema of theirs must never answer for these.
    mayWriteSql('current_user'),
    `CREATE FUNCTION agentos.may_write_document(doc bigint) RETURNS boolean LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS
       $$ SELECT agentos.may_write((SELECT d.repository_id FROM agentos.documents d WHERE d.id = doc)) $$`,
    // Who owns a repository, and its name, change only by an administrator: an owner may not hand it away or rename it.
    keepOwnersSql('current_user'),
    `CREATE TRIGGER repositories_keep_owners BEFORE UPDATE ON agentos.repositories FOR EACH ROW EXECUTE FUNCTION agentos.keep_owners()`,
    ...[
      'repositories',
      'documents',
      'chunks',
      'document_terms',
      'repository_terms',
      'attempts',
      'forgotten_attempts',
    ].flatMap((t) => [
      `ALTER TABLE agentos.${t} ENABLE ROW LEVEL SECURITY`,
      `CREATE POLICY ${t}_read ON agentos.${t} FOR SELECT USING (true)`,
    ]),
    `CREATE POLICY repositories_publish ON agentos.repositories FOR INSERT WITH CHECK (owners = ARRAY[current_user::text] OR pg_has_role(current_user, 'agentos_admin', 'MEMBER'))`,
    `CREATE POLICY repositories_own ON agentos.repositories FOR UPDATE USING (agentos.may_write(id)) WITH CHECK (agentos.may_write(id))`,
    `CREATE POLICY repositories_remove ON agentos.repositories FOR DELETE USING (agentos.may_write(id))`,
    ...['documents', 'repository_terms'].flatMap((t) => [
      `CREATE POLICY ${t}_write ON agentos.${t} FOR INSERT WITH CHECK (agentos.may_write(repository_id))`,
      `CREATE POLICY ${t}_change ON agentos.${t} FOR UPDATE USING (agentos.may_write(repository_id)) WITH CHECK (agentos.may_write(repository_id))`,
      `CREATE POLICY ${t}_remove ON agentos.${t} FOR DELETE USING (agentos.may_write(repository_id))`,
    ]),
    ...['chunks', 'document_terms'].flatMap((t) => [
      `CREATE POLICY ${t}_write ON agentos.${t} FOR INSERT WITH CHECK (agentos.may_write_document(document_id))`,
      `CREATE POLICY ${t}_remove ON agentos.${t} FOR DELETE USING (agentos.may_write_document(document_id))`,
    ]),
    `CREATE POLICY attempts_own ON agentos.attempts FOR INSERT WITH CHECK (author = current_user)`,
    `CREATE POLICY attempts_forget ON agentos.attempts FOR DELETE USING (author = current_user OR pg_has_role(current_user, 'agentos_admin', 'MEMBER'))`,
    // A forget is recorded only by the author of the record (another's id stays on every machine).
    `CREATE POLICY forgotten_own ON agentos.forgotten_attempts FOR INSERT WITH CHECK (author = current_user AND NOT EXISTS (SELECT 1 FROM agentos.attempts a WHERE a.id = forgotten_attempts.id AND a.author <> current_user))`,
    // Rows no agentos writes are refused (NOT VALID: rows already there are judged by the client instead).
    `ALTER TABLE agentos.chunks ADD CONSTRAINT chunks_unit_vector CHECK (abs(vector_norm(embedding) - 1) < 0.01) NOT VALID`,
    `ALTER TABLE agentos.documents ADD CONSTRAINT documents_shape CHECK (COALESCE(jsonb_typeof(metadata -> 'title'), '') = 'string' AND lexical_len >= 0) NOT VALID`,
    `ALTER TABLE agentos.document_terms ADD CONSTRAINT document_terms_tf CHECK (tf > 0) NOT VALID`,
    `ALTER TABLE agentos.repository_terms ADD CONSTRAINT repository_terms_df CHECK (df >= 0) NOT VALID`,
    `ALTER TABLE agentos.repositories ADD CONSTRAINT repositories_totals CHECK (docs >= 0 AND history_docs >= 0 AND standard_docs >= 0 AND lexical_len >= 0 AND chunks >= 0) NOT VALID`,
    `ALTER TABLE agentos.attempts ADD CONSTRAINT attempts_time CHECK (isfinite(time)) NOT VALID`,
    `GRANT USAGE ON SCHEMA agentos TO agentos_reader`,
    `GRANT SELECT ON ALL TABLES IN SCHEMA agentos TO agentos_reader`,
    `GRANT INSERT, UPDATE, DELETE ON agentos.repositories, agentos.documents, agentos.chunks, agentos.document_terms, agentos.repository_terms, agentos.attempts, agentos.forgotten_attempts TO agentos_writer`,
    `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA agentos TO agentos_writer`,
  ],
  [
    // Version 5, a writer acts as themselves (issue 47). Who someone is, is the login they connected as
    // (session_user): `SET ROLE agentos_writer` made current_user the group, and records, forgets and
    // repositories were then the group's, which every writer can claim.
    mayWriteSql('session_user'),
    keepOwnersSql('session_user'),
    `ALTER TABLE agentos.repositories ALTER COLUMN owners SET DEFAULT ARRAY[session_user::text]`,
    `ALTER TABLE agentos.attempts ALTER COLUMN author SET DEFAULT session_user`,
    `ALTER TABLE agentos.forgotten_attempts ALTER COLUMN author SET DEFAULT session_user`,
    `ALTER POLICY repositories_publish ON agentos.repositories WITH CHECK (owners = ARRAY[session_user::text] OR pg_has_role(session_user, 'agentos_admin', 'MEMBER'))`,
    `ALTER POLICY attempts_own ON agentos.attempts WITH CHECK (author = session_user)`,
    `ALTER POLICY attempts_forget ON agentos.attempts USING (author = session_user OR pg_has_role(session_user, 'agentos_admin', 'MEMBER'))`,
    `ALTER POLICY forgotten_own ON agentos.forgotten_attempts WITH CHECK (author = session_user AND NOT EXISTS (SELECT 1 FROM agentos.attempts a WHERE a.id = forgotten_attempts.id AND a.author <> session_user))`,
    // When the server received a record is the server's to say: a client's 'infinity' made every later pull page past it.
    `CREATE FUNCTION agentos.received_now() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS
       $$ BEGIN NEW.received_at := pg_catalog.clock_timestamp(); RETURN NEW; END $$`,
    `CREATE TRIGGER attempts_received_now BEFORE INSERT OR UPDATE ON agentos.attempts FOR EACH ROW EXECUTE FUNCTION agentos.received_now()`,
    `ALTER TABLE agentos.attempts ADD CONSTRAINT attempts_duration CHECK (duration_ms IS NULL OR duration_ms >= 0) NOT VALID`,
    // A name in the form the client keeps (repository.ts normaliseRepositoryName): NFKC, no control or invisible
    // characters, the host lower-case; a look-alike (\u200b, another case) cannot stand beside the name it imitates.
    // normalize() needs a UTF8 server; elsewhere the other rules hold and the client checks the form.
    `DO $$ BEGIN
       EXECUTE 'ALTER TABLE agentos.repositories ADD CONSTRAINT repositories_name_form CHECK (name <> '''' AND name !~ ''[[:cntrl:]\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufe00-\ufe0f\ufeff]''
         AND pg_catalog.split_part(name, ''/'', 1) = pg_catalog.lower(pg_catalog.split_part(name, ''/'', 1))'
         || CASE WHEN pg_catalog.current_setting('server_encoding') = 'UTF8' THEN ' AND name = pg_catalog.normalize(name, ''NFKC'')' ELSE '' END || ') NOT VALID';
     END $$`,
  ],
  VERSION_6,
  VERSION_7,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
