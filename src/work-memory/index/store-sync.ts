/**
 * This repository's live index into the shared team store (issue 23): documents,
 * chunks with their vectors, and the BM25 term counts, in one transaction. Only
 * what changed moves: a document whose digest (content, types, metadata, term
 * counts) the server already has is left as it is; a changed one is replaced; one gone from the repository is deleted; a
 * model or chunking change replaces this repository's documents and nobody else's.
 * Concurrent syncs of one repository wait for each other (its row is locked); a
 * server going away mid-sync rolls the transaction back, so nothing half-written is
 * ever visible. Every value is a query parameter.
 */
import { createHash } from 'node:crypto';
import { StoreUnavailableError } from '../../shared/errors.js';
import type { StoreClient } from '../../shared/store/connect.js';
import { repositoryTotalsSql } from '../../shared/store/schema.js';
import type { LexicalData } from '../lexical/file.js';
import type { HnswStore } from './hnsw-store.js';
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

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters at 5 per chunk row. */
const ROWS_PER_INSERT = 500;

/** The vector size the schema holds (all-MiniLM-L6-v2). */
const STORE_DIMENSIONS = 384;

export async function syncToStore(client: StoreClient, local: HnswStore, lexical: LexicalData | null, repository: string): Promise<SyncReport> {
  const { manifest, meta } = local;
  if (manifest.dimensions !== STORE_DIMENSIONS) throw new StoreUnavailableError(`the store holds ${STORE_DIMENSIONS}-dimension vectors; this index has ${manifest.dimensions} (${manifest.modelId})`);
  const report: SyncReport = { repository, added: [], changed: [], removed: [], unchanged: 0, chunks: 0, replacedAll: null };
  const terms = new Map((lexical?.store.docs ?? []).map((d) => [d.path, d]));
  await client.query('BEGIN');
  try {
    // The upsert locks the repository's row until COMMIT: another sync of it waits here.
    const repo = await client.query<RepoRow>(
      `INSERT INTO repositories (name) VALUES ($1) ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id, model_id, model_fingerprint, dimensions, max_tokens, chunking_version`,
      [repository],
    );
    const repoId = repo.rows[0].id;
    report.replacedAll = identityChange(repo.rows[0], manifest);
    if (report.replacedAll) await client.query('DELETE FROM documents WHERE repository_id = $1', [repoId]);
    const remote = new Map(
      (await client.query<{ id: string; path: string; sync_digest: string }>('SELECT id, path, sync_digest FROM documents WHERE repository_id = $1', [repoId])).rows.map((r) => [r.path, r]),
    );
    const localPaths = new Set(meta.docs.map((d) => d.filePath));
    const gone = [...remote.values()].filter((r) => !localPaths.has(r.path));
    if (gone.length) await client.query('DELETE FROM documents WHERE id = ANY($1::bigint[])', [gone.map((r) => r.id)]);
    report.removed = gone.map((r) => r.path).sort();
    const chunksByDoc = new Map<number, Array<{ label: number; section: string; excerpt: string }>>();
    for (const [label, docIndex, section, excerpt] of meta.chunks) {
      const list = chunksByDoc.get(docIndex) ?? [];
      list.push({ label, section, excerpt });
      chunksByDoc.set(docIndex, list);
    }
    for (const [i, doc] of meta.docs.entries()) {
      const hash = manifest.files[doc.filePath]?.hash ?? doc.contentHash;
      const lex = terms.get(doc.filePath);
      const tf = lex?.tf;
      const { labels: _labels, ...metadata } = doc as StoredDoc;
      const digest = syncDigest(hash, metadata, tf);
      const there = remote.get(doc.filePath);
      if (there && there.sync_digest === digest) {
        report.unchanged++;
        continue;
      }
      if (there) await client.query('DELETE FROM documents WHERE id = $1', [there.id]);
      (there ? report.changed : report.added).push(doc.filePath);
      const inserted = await client.query<{ id: string }>(
        `INSERT INTO documents (repository_id, path, content_hash, sync_digest, types, metadata, lexical_len) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
        [repoId, doc.filePath, hash, digest, doc.types, JSON.stringify(metadata), lex?.len ?? 0],
      );
      const docId = inserted.rows[0].id;
      const rows = (chunksByDoc.get(i) ?? []).map((c, ordinal) => [docId, ordinal, c.section, c.excerpt, `[${Array.from(local.index.getPoint(c.label)).join(',')}]`]);
      await insertRows(client, 'chunks (document_id, ordinal, section, excerpt, embedding)', ['', '', '', '', '::vector'], rows);
      report.chunks += rows.length;
      if (tf)
        await insertRows(
          client,
          'document_terms (document_id, term, tf)',
          ['', '', ''],
          [...tf].map(([term, n]) => [docId, term, n]),
        );
    }
    if (report.replacedAll || report.added.length || report.changed.length || report.removed.length) {
      // The repository's BM25 statistics for the org-scope check: rewritten whole, its rows only.
      await client.query('DELETE FROM repository_terms WHERE repository_id = $1', [repoId]);
      await client.query(
        'INSERT INTO repository_terms (term, repository_id, df) SELECT t.term, $1, count(*) FROM document_terms t JOIN documents d ON d.id = t.document_id WHERE d.repository_id = $1 GROUP BY t.term',
        [repoId],
      );
      await client.query(repositoryTotalsSql('r2.id = $1'), [repoId]);
    }
    await client.query('UPDATE repositories SET model_id = $2, model_fingerprint = $3, dimensions = $4, max_tokens = $5, chunking_version = $6, synced_at = now() WHERE id = $1', [
      repoId,
      manifest.modelId,
      manifest.modelFingerprint,
      manifest.dimensions,
      manifest.maxTokens,
      manifest.chunkingVersion,
    ]);
    await client.query('COMMIT');
    return report;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

interface RepoRow {
  id: string;
  model_id: string | null;
  model_fingerprint: string | null;
  dimensions: number | null;
  max_tokens: number | null;
  chunking_version: number | null;
}

/** Why the repository's vectors on the server were made another way (then all of them are replaced), or null. */
function identityChange(was: RepoRow, m: HnswStore['manifest']): string | null {
  if (was.model_id === null) return null; // never synced
  if (was.model_id !== m.modelId) return `the model changed (${was.model_id} -> ${m.modelId})`;
  if (was.model_fingerprint !== m.modelFingerprint && was.model_fingerprint !== 'unknown' && m.modelFingerprint !== 'unknown')
    return `the model weights changed (${was.model_fingerprint} -> ${m.modelFingerprint})`;
  if (was.dimensions !== m.dimensions) return `the vector size changed (${was.dimensions} -> ${m.dimensions})`;
  if (was.max_tokens !== m.maxTokens) return `the model window changed (${was.max_tokens} -> ${m.maxTokens})`;
  if (was.chunking_version !== m.chunkingVersion) return `the chunking changed (v${was.chunking_version} -> v${m.chunkingVersion})`;
  return null;
}

/** What the server holds of a document, in one value: its content, types, metadata and term counts. */
function syncDigest(hash: string, metadata: object, tf: Map<string, number> | undefined): string {
  const h = createHash('sha256').update(hash).update('\0').update(JSON.stringify(metadata)).update('\0');
  for (const [term, n] of [...(tf ?? new Map<string, number>())].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) h.update(`${term}:${n}\n`);
  return h.digest('hex');
}

/** Multi-row INSERTs, every value a parameter ($n, with a cast per column where given). */
async function insertRows(client: StoreClient, into: string, casts: string[], rows: unknown[][]): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const batch = rows.slice(start, start + ROWS_PER_INSERT);
    const values: unknown[] = [];
    const tuples = batch.map((row) => `(${row.map((v, j) => (values.push(v), `$${values.length}${casts[j]}`)).join(', ')})`);
    await client.query(`INSERT INTO ${into} VALUES ${tuples.join(', ')}`, values);
  }
}
