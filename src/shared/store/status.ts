/** `agentos store status`: what the shared store holds and which server answered (URL shown masked). */
import type { StoreClient } from './connect.js';
import { SCHEMA_VERSION, schemaVersion } from './schema.js';

export interface StoreStatus {
  url: string;
  server: string;
  vector: string | null;
  schema: { version: number; expected: number; state: 'current' | 'missing' | 'older' | 'newer' };
  repositories: Array<{ name: string; documents: number; chunks: number; syncedAt: string | null }>;
}

export async function storeStatus(client: StoreClient, maskedUrl: string): Promise<StoreStatus> {
  const server = (await client.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0].v;
  const vector = (await client.query<{ extversion: string }>(`SELECT extversion FROM pg_extension WHERE extname = 'vector'`)).rows[0]?.extversion ?? null;
  const version = await schemaVersion(client);
  const state = version === 0 ? 'missing' : version < SCHEMA_VERSION ? 'older' : version > SCHEMA_VERSION ? 'newer' : 'current';
  let repositories: StoreStatus['repositories'] = [];
  if (state === 'current') {
    const r = await client.query<{ name: string; documents: string; chunks: string; synced_at: Date | null }>(
      `SELECT r.name, count(DISTINCT d.id) AS documents, count(c.id) AS chunks, r.synced_at
         FROM repositories r LEFT JOIN documents d ON d.repository_id = r.id LEFT JOIN chunks c ON c.document_id = d.id
        GROUP BY r.id ORDER BY r.name`,
    );
    repositories = r.rows.map((x) => ({ name: x.name, documents: Number(x.documents), chunks: Number(x.chunks), syncedAt: x.synced_at ? x.synced_at.toISOString() : null }));
  }
  return { url: maskedUrl, server, vector, schema: { version, expected: SCHEMA_VERSION, state }, repositories };
}
