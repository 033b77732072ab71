/**
 * This repository's live index into the team store (issue 23): documents,
 * chunks with their vectors, and the BM25 term counts, in one transaction. Only
 * what changed moves: a document whose digest (content, types, metadata, term
 * counts) the server already has is left as it is; a changed one is replaced; one gone from the repository is deleted; a
 * model or chunking change replaces this repository's documents and nobody else's.
 * Concurrent syncs of one repository wait for each other (its row is locked); a
 * server going away mid-sync rolls the transaction back, so nothing half-written is
 * ever visible. Every value is a query parameter.
 */
import { oneLine } from '../../shared/sanitize.js';
import { createHash } from 'node:crypto';
import { TeamStoreUnavailableError } from '../../shared/errors.js';
import type { TeamStoreClient } from '../../shared/team-store/connect.js';
import { vectorText } from '../../shared/team-store/vector.js';
import type { LexicalData } from '../lexical/file.js';
import type { LexicalDoc } from '../lexical/bm25.js';
import type { HnswIndex } from './hnsw-index.js';
import type { StoredDoc } from './types.js';

export interface SyncReport {
  repository: string;
  added: string[];
  changed: string[];
  removed: string[];
  unchanged: number;
  chunks: number;
  /** Why every document of this repository was replaced (another model or chunking), or null. */
  replacedAll: string | null;
}

/** Rows per INSERT statement (each column one array parameter). */
const ROWS_PER_INSERT = 5000;

/** The vector size the schema holds (all-MiniLM-L6-v2). */
const STORE_DIMENSIONS = 384;

export async function syncToTeamStore(
  client: TeamStoreClient,
  local: HnswIndex,
  lexical: LexicalData | null,
  repository: string,
): Promise<SyncReport> {
  const { manifest } = local;
  if (manifest.dimensions !== STORE_DIMENSIONS)
    throw new TeamStoreUnavailableError(
      `the store holds ${STORE_DIMENSIONS}-dimension vectors; this index has ${manifest.dimensions} (${manifest.modelId})`,
    );
  const report: SyncReport = {
    repository,
    added: [],
    changed: [],
    removed: [],
    unchanged: 0,
    chunks: 0,
    replacedAll: null,
  };
  await client.query('BEGIN');
  try {
    const repoId = await claimRepository(client, repository, manifest, report);
    const outgoing = await whatToSend(client, repoId, local, lexical, report);
    await sendDocuments(client, repoId, local, outgoing, report);
    if (report.replacedAll || report.added.length || report.changed.length || report.removed.length) {
      // The repository's BM25 statistics for the org-scope check (totals, document frequencies, lengths): the server counts them from the rows.
      await client.query('SELECT agentos.refresh_statistics($1)', [repoId]);
    }
    await client.query(
      'UPDATE repositories SET model_id = $2, model_fingerprint = $3, dimensions = $4, max_tokens = $5, chunking_version = $6, synced_at = now() WHERE id = $1',
      [
        repoId,
        manifest.modelId,
        manifest.modelFingerprint,
        manifest.dimensions,
        manifest.maxTokens,
        manifest.chunkingVersion,
      ],
    );
    await client.query('COMMIT');
    return report;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (e instanceof Refused) throw new TeamStoreUnavailableError(await notYours(client, repository));
    throw e;
  }
}

/**
 * The repository's row, created or locked (the upsert holds it until COMMIT: another sync of it waits here); every
 * document of it removed when the model or chunking it was indexed with changed.
 */
async function claimRepository(
  client: TeamStoreClient,
  repository: string,
  manifest: HnswIndex['manifest'],
  report: SyncReport,
): Promise<string> {
  const repo = await client
    .query<RepoRow>(
      `INSERT INTO repositories (name) VALUES ($1) ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id, model_id, model_fingerprint, dimensions, max_tokens, chunking_version`,
      [repository],
    )
    .catch((e: unknown) => {
      // Row-level security: the repository was published by someone else (or this role may only read): said after the rollback.
      if ((e as { code?: string }).code === '42501') throw new Refused();
      throw e;
    });
  const repoId = repo.rows[0].id;
  report.replacedAll = identityChange(repo.rows[0], manifest);
  // Rows leave only through the store's own functions (schema version 6: writers hold no DELETE).
  if (report.replacedAll) await client.query('SELECT agentos.remove_documents($1, NULL)', [repoId]);
  return repoId;
}

/** A document the server does not have as it is here: its index in the local metadata, and what the store keeps of it. */
interface Outgoing {
  i: number;
  doc: StoredDoc;
  hash: string;
  digest: string;
  metadata: object;
  lex: LexicalDoc | undefined;
}

/**
 * What to send: every document whose digest the server does not have. Documents gone here, and the old rows of
 * changed ones, are removed first; the report counts what is added, changed, removed and left.
 */
async function whatToSend(
  client: TeamStoreClient,
  repoId: string,
  local: HnswIndex,
  lexical: LexicalData | null,
  report: SyncReport,
): Promise<Outgoing[]> {
  const { manifest, meta } = local;
  const terms = new Map((lexical?.bm25.docs ?? []).map((d) => [d.path, d]));
  const remote = new Map(
    (
      await client.query<{ id: string; path: string; sync_digest: string }>(
        'SELECT id, path, sync_digest FROM documents WHERE repository_id = $1',
        [repoId],
      )
    ).rows.map((r) => [r.path, r]),
  );
  const localPaths = new Set(meta.docs.map((d) => d.filePath));
  const gone = [...remote.values()].filter((r) => !localPaths.has(r.path));
  if (gone.length)
    await client.query('SELECT agentos.remove_documents($1, $2::bigint[])', [repoId, gone.map((r) => r.id)]);
  report.removed = gone.map((r) => r.path).sort();
  const outgoing: Outgoing[] = [];
  const replaced: string[] = [];
  for (const [i, doc] of meta.docs.entries()) {
    const hash = manifest.files[doc.filePath]?.hash ?? doc.contentHash;
    const lex = terms.get(doc.filePath);
    const { labels: _labels, ...metadata } = doc as StoredDoc;
    const digest = syncDigest(hash, metadata, lex?.tf);
    const there = remote.get(doc.filePath);
    if (there && there.sync_digest === digest) {
      report.unchanged++;
      continue;
    }
    if (there) replaced.push(there.id);
    (there ? report.changed : report.added).push(doc.filePath);
    outgoing.push({ i, doc, hash, digest, metadata, lex });
  }
  if (replaced.length) await client.query('SELECT agentos.remove_documents($1, $2::bigint[])', [repoId, replaced]);
  return outgoing;
}

/**
 * Documents in batches, then their chunks and terms in multi-row INSERTs across documents: a round trip per few
 * hundred rows, not three per document.
 */
async function sendDocuments(
  client: TeamStoreClient,
  repoId: string,
  local: HnswIndex,
  outgoing: Outgoing[],
  report: SyncReport,
): Promise<void> {
  const chunksByDoc = new Map<number, Array<{ label: number; section: string; excerpt: string }>>();
  for (const [label, docIndex, section, excerpt] of local.meta.chunks) {
    const list = chunksByDoc.get(docIndex) ?? [];
    list.push({ label, section, excerpt });
    chunksByDoc.set(docIndex, list);
  }
  for (let start = 0; start < outgoing.length; start += DOCS_PER_BATCH) {
    const batch = outgoing.slice(start, start + DOCS_PER_BATCH);
    const ids = await insertReturningIds(
      client,
      batch.map((o) => [repoId, o.doc.filePath, o.hash, o.digest, o.doc.types, JSON.stringify(o.metadata)]),
    );
    const chunkRows: unknown[][] = [];
    const termRows: unknown[][] = [];
    for (const o of batch) {
      const docId = ids.get(o.doc.filePath)!;
      (chunksByDoc.get(o.i) ?? []).forEach((c, ordinal) =>
        chunkRows.push([docId, ordinal, c.section, c.excerpt, vectorText(local.vector(c.label))]),
      );
      if (o.lex) for (const [term, n] of o.lex.tf) termRows.push([docId, term, n]);
    }
    await insertColumns(
      client,
      'chunks (document_id, ordinal, section, excerpt, embedding)',
      ['bigint', 'integer', 'text', 'text', 'vector'],
      chunkRows,
    );
    await insertColumns(client, 'document_terms (document_id, term, tf)', ['bigint', 'text', 'integer'], termRows);
    report.chunks += chunkRows.length;
  }
}

class Refused extends Error {}

interface RepoRow {
  id: string;
  model_id: string | null;
  model_fingerprint: string | null;
  dimensions: number | null;
  max_tokens: number | null;
  chunking_version: number | null;
}

/** Why the repository's vectors on the server were made another way (then all of them are replaced), or null. */
function identityChange(was: RepoRow, m: HnswIndex['manifest']): string | null {
  if (was.model_id === null) return null; // never synced
  if (was.model_id !== m.modelId) return `the model changed (${was.model_id} -> ${m.modelId})`;
  if (
    was.model_fingerprint !== m.modelFingerprint &&
    was.model_fingerprint !== 'unknown' &&
    m.modelFingerprint !== 'unknown'
  )
    return `the model weights changed (${was.model_fingerprint} -> ${m.modelFingerprint})`;
  if (was.dimensions !== m.dimensions) return `the vector size changed (${was.dimensions} -> ${m.dimensions})`;
  if (was.max_tokens !== m.maxTokens) return `the model window changed (${was.max_tokens} -> ${m.maxTokens})`;
  if (was.chunking_version !== m.chunkingVersion)
    return `the chunking changed (v${was.chunking_version} -> v${m.chunkingVersion})`;
  return null;
}

/** What the server holds of a document, in one value: its content, types, metadata and term counts. */
function syncDigest(hash: string, metadata: object, tf: Map<string, number> | undefined): string {
  const h = createHash('sha256').update(hash).update('\0').update(JSON.stringify(metadata)).update('\0');
  for (const [term, n] of [...(tf ?? new Map<string, number>())].sort((a, b) =>
    a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0,
  ))
    h.update(`${term}:${n}\n`);
  return h.digest('hex');
}

/** Documents per INSERT (6 parameters each). */
const DOCS_PER_BATCH = 200;

/** A batch of documents inserted in one statement; their new ids by path (unique within the repository). */
async function insertReturningIds(client: TeamStoreClient, rows: unknown[][]): Promise<Map<string, string>> {
  const values: unknown[] = [];
  const tuples = rows.map((row) => `(${row.map((v) => (values.push(v), `$${values.length}`)).join(', ')})`);
  const r = await client.query<{ id: string; path: string }>(
    `INSERT INTO documents (repository_id, path, content_hash, sync_digest, types, metadata) VALUES ${tuples.join(', ')} RETURNING id, path`,
    values,
  );
  return new Map(r.rows.map((x) => [x.path, x.id]));
}

/**
 * Rows inserted a column at a time: each column one array parameter, unnested on the
 * server (a few parameters per statement instead of one per value: bound and parsed
 * far faster than multi-row VALUES). Every value is still a parameter.
 */
async function insertColumns(client: TeamStoreClient, into: string, types: string[], rows: unknown[][]): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const batch = rows.slice(start, start + ROWS_PER_INSERT);
    const columns = types.map((_, j) => batch.map((row) => row[j]));
    // vector[] is read through text[]: pgvector parses each element as it parses one value.
    const params = types.map((t, j) => `$${j + 1}::${t === 'vector' ? 'text[]::vector[]' : `${t}[]`}`);
    // pg_catalog's unnest by name (ROWS FROM: the many-array unnest cannot be qualified): where anyone may
    // create in \`public\` (PostgreSQL 14 and older), their unnest(bigint[]) would match exactly and run as
    // whoever syncs (CVE-2018-1058).
    await client.query(
      `INSERT INTO ${into} SELECT * FROM ROWS FROM (${params.map((p) => `pg_catalog.unnest(${p})`).join(', ')})`,
      columns,
    );
  }
}

/**
 * A refusal of the store's row-level security, said as what it is (issue 47): whose the repository is
 * (its owners are readable by everyone), or that this login may only read. Asked outside any
 * transaction; what cannot be asked is not guessed.
 */
export async function notYours(client: TeamStoreClient, repository: string): Promise<string> {
  const owners = await client
    .query<{ owners: unknown }>('SELECT owners FROM repositories WHERE name = $1', [repository])
    .then((r) => r.rows[0]?.owners)
    .catch(() => undefined);
  const name = oneLine(repository, 200);
  if (Array.isArray(owners) && owners.length)
    return `${name} in the team store is owned by ${owners.map((o) => oneLine(String(o), 60)).join(', ')}: only its owners or an administrator (agentos_admin) can replace or remove it (docs/team-store.md)`;
  const writer = await client
    .query<{ w: boolean }>(`SELECT pg_catalog.pg_has_role(session_user, 'agentos_writer', 'MEMBER') AS w`)
    .then((r) => r.rows[0]?.w)
    .catch(() => undefined);
  if (writer === false)
    return `${name}: this login may only read the team store (agentos_reader); a writer publishes (docs/team-store.md)`;
  return `${name}: the team store refused this login's change to it (docs/team-store.md)`;
}
