/**
 * This repository's live index into the shared team store (issue 23): documents,
 * chunks with their vectors, and the BM25 term counts, in one transaction. Only
 * what changed moves: a document whose content hash the server already has is left
 * as it is; a changed one is replaced; one gone from the repository is deleted; a
 * model or chunking change replaces this repository's documents and nobody else's.
 * Concurrent syncs of one repository wait for each other (its row is locked); a
 * server going away mid-sync rolls the transaction back, so nothing half-written is
 * ever visible. Every value is a query parameter.
 */
import type { StoreClient } from '../../shared/store/connect.js';
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

export async function syncToStore(client: StoreClient, local: HnswStore, lexical: LexicalData | null, repository: string): Promise<SyncReport> {
  const { manifest, meta } = local;
  const report: SyncReport = { repository, added: [], changed: [], removed: [], unchanged: 0, chunks: 0, replacedAll: null };
  const terms = new Map((lexical?.store.docs ?? []).map((d) => [d.path, d.tf]));
  await client.query('BEGIN');
  try {
    const repo = await client.query<{ id: string; model_id: string | null; chunking_version: number | null }>(
      `INSERT INTO repositories (name) VALUES ($1) ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id, model_id, chunking_version`,
      [repository],
    );
    const repoId = repo.rows[0].id;
    await client.query('SELECT 1 FROM repositories WHERE id = $1 FOR UPDATE', [repoId]);
    const was = repo.rows[0];
    if ((was.model_id !== null && was.model_id !== manifest.modelId) || (was.chunking_version !== null && was.chunking_version !== manifest.chunkingVersion)) {
      report.replacedAll =
        was.model_id !== manifest.modelId ? `the model changed (${was.model_id} -> ${manifest.modelId})` : `the chunking changed (v${was.chunking_version} -> v${manifest.chunkingVersion})`;
      await client.query('DELETE FROM documents WHERE repository_id = $1', [repoId]);
    }
    const remote = new Map(
      (await client.query<{ id: string; path: string; content_hash: string }>('SELECT id, path, content_hash FROM documents WHERE repository_id = $1', [repoId])).rows.map((r) => [r.path, r]),
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
      const there = remote.get(doc.filePath);
      if (there && there.content_hash === hash) {
        report.unchanged++;
        continue;
      }
      if (there) await client.query('DELETE FROM documents WHERE id = $1', [there.id]);
      (there ? report.changed : report.added).push(doc.filePath);
      const { labels: _labels, ...metadata } = doc as StoredDoc;
      const inserted = await client.query<{ id: string }>(`INSERT INTO documents (repository_id, path, content_hash, types, metadata) VALUES ($1, $2, $3, $4, $5) RETURNING id`, [
        repoId,
        doc.filePath,
        hash,
        doc.types,
        JSON.stringify(metadata),
      ]);
      const docId = inserted.rows[0].id;
      const rows = (chunksByDoc.get(i) ?? []).map((c, ordinal) => [docId, ordinal, c.section, c.excerpt, `[${Array.from(local.index.getPoint(c.label)).join(',')}]`]);
      await insertRows(client, 'chunks (document_id, ordinal, section, excerpt, embedding)', ['', '', '', '', '::vector'], rows);
      report.chunks += rows.length;
      const tf = terms.get(doc.filePath);
      if (tf)
        await insertRows(
          client,
          'document_terms (document_id, term, tf)',
          ['', '', ''],
          [...tf].map(([term, n]) => [docId, term, n]),
        );
    }
    await client.query('UPDATE repositories SET model_id = $2, chunking_version = $3, synced_at = now() WHERE id = $1', [repoId, manifest.modelId, manifest.chunkingVersion]);
    await client.query('COMMIT');
    return report;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
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
