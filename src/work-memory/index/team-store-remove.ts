/**
 * A repository taken out of the team store (`agentos store remove`, issue 30). Row-level security decides: the
 * store's own function removes it for its owners or an administrator (writers hold no DELETE), and for anyone else
 * removes nothing; then what is said is whose it is.
 */
import type { TeamStoreClient } from '../../shared/team-store/connect.js';
import { requireCurrentSchema } from '../../shared/team-store/schema.js';
import { notYours } from './team-store-sync.js';

export type RemoveResult =
  | { missing: true }
  | { missing: false; removed: true; documents: number }
  | { missing: false; removed: false; documents: number; refusal: string };

export async function removeRepository(client: TeamStoreClient, name: string): Promise<RemoveResult> {
  await requireCurrentSchema(client);
  const exists = await client.query<{ docs: number }>('SELECT docs FROM repositories WHERE name = $1', [name]);
  if (!exists.rows.length) return { missing: true };
  const gone = await client.query<{ id: string | null }>('SELECT agentos.remove_repository($1) AS id', [name]);
  const documents = exists.rows[0].docs;
  if (gone.rows[0]?.id != null) return { missing: false, removed: true, documents };
  return { missing: false, removed: false, documents, refusal: await notYours(client, name) };
}
