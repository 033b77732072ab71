/**
 * `agentos store init | status`: the shared team store (PostgreSQL + pgvector).
 * Chosen by AGENTOS_DATABASE_URL or `store.url`; the local index stays the default.
 */
import type { CommandContext } from '../../context.js';
import { ExitCode, StoreUnavailableError, UsageError } from '../../../shared/errors.js';
import { notYours } from '../../../work-memory/index/store-sync.js';
import { connectStore, isStoreError, storeError } from '../../../shared/store/connect.js';
import { terminalSafe } from '../../../shared/sanitize.js';
import { migrate } from '../../../shared/store/schema.js';
import { storeStatus } from '../../../shared/store/status.js';
import { maskUrl, plainTextWarning, storeUrl } from '../../../shared/store/url.js';

/** How long init and sync may spend per statement: waiting for another sync of the repository, or deleting a large one. */
const WORK_MS = 300_000;

export async function withStore<T>(ctx: CommandContext, work: (client: Awaited<ReturnType<typeof connectStore>>, url: string) => Promise<T>, long = false): Promise<T> {
  const { config } = await ctx.config();
  const url = storeUrl(ctx.io.env, config);
  if (!url) throw new UsageError('no shared store configured: set AGENTOS_DATABASE_URL (postgres://user@host/db) or store.url in .agentos/config.yaml');
  const timeout = config.store.timeoutMs;
  const plain = plainTextWarning(url, ctx.io.env);
  if (plain && !ctx.globals.quiet) ctx.io.stderr.write(`Warning: ${plain}\n`);
  const client = await connectStore(url, timeout, long ? Math.max(timeout, WORK_MS) : timeout);
  try {
    return await work(client, url);
  } catch (e) {
    // The store's failures become one line naming it; agentos' own bugs stay what they are.
    throw isStoreError(e) ? storeError(e, url, timeout) : e;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Create or migrate the schema: idempotent, versioned, safe when two processes run it at once. */
export async function runStoreInit(ctx: CommandContext, opts: { json?: boolean }): Promise<number> {
  const result = await withStore(ctx, (client) => migrate(client), true);
  if (opts.json) ctx.io.stdout.write(JSON.stringify(result, null, 2) + '\n');
  else
    ctx.io.stdout.write(
      result.from === result.to
        ? `Store schema is current (version ${result.to}, pgvector ${result.vector}).\n`
        : `Store schema ${result.from === 0 ? 'created' : `migrated from version ${result.from}`}: version ${result.to} (pgvector ${result.vector}).\n`,
    );
  if (result.adopted)
    ctx.io.stderr.write(
      `note: ${result.adopted} repositories published before version 4 are owned by the role that ran this until an administrator adds their owners (UPDATE agentos.repositories SET owners = ARRAY['alice'] WHERE name = '…'; docs/team-store.md); until then their syncs are refused\n`,
    );
  return ExitCode.Ok;
}

export async function runStoreStatus(ctx: CommandContext, opts: { json?: boolean }): Promise<number> {
  const s = await withStore(ctx, (client, url) => storeStatus(client, maskUrl(url)));
  if (opts.json) {
    ctx.io.stdout.write(JSON.stringify(s, null, 2) + '\n');
    return ExitCode.Ok;
  }
  const out = (line: string) => ctx.io.stdout.write(line + '\n');
  out(`Store:   ${s.url}`);
  out(`Server:  PostgreSQL ${s.server}, pgvector ${s.vector ?? 'not installed'}`);
  const schema = {
    current: `version ${s.schema.version}`,
    missing: 'not created (run `agentos store init`)',
    older: `version ${s.schema.version}, older than ${s.schema.expected} (run \`agentos store init\`)`,
    newer: `version ${s.schema.version}, newer than this agentos (${s.schema.expected}): upgrade agentos`,
  }[s.schema.state];
  out(`Schema:  ${schema}`);
  if (s.schema.state === 'current') {
    out(`Repositories: ${s.repositories.length}`);
    // Names come from other people's repositories: shown without terminal escapes.
    for (const r of s.repositories) out(`  ${terminalSafe(r.name)}: ${r.documents} documents, ${r.chunks} chunks, last sync ${r.syncedAt ?? 'never'}`);
    if (s.schema.state === 'current') out(`Shared attempts: ${s.attempts.failures} failures, ${s.attempts.successes} successes`);
  }
  return ExitCode.Ok;
}

/**
 * `agentos store remove NAME`: take a repository out of the team store (issue 30). The name is
 * typed out, not inferred: it is the confirmation. Row-level security decides: only the
 * repository's owners or an administrator remove anything; for anyone else nothing is deleted
 * and the command says whose it is.
 */
export async function runStoreRemove(ctx: CommandContext, name: string, opts: { json?: boolean }): Promise<number> {
  if (!name.trim()) throw new UsageError('store remove: name the repository to remove (as `agentos store status` lists it)');
  const result = await withStore(ctx, async (client) => {
    const { SCHEMA_VERSION, schemaVersion } = await import('../../../shared/store/schema.js');
    const version = await schemaVersion(client);
    if (version !== SCHEMA_VERSION) throw new StoreUnavailableError(`the store's schema is version ${version}, this agentos reads ${SCHEMA_VERSION}: run \`agentos store init\``);
    const exists = await client.query<{ docs: number }>('SELECT docs FROM repositories WHERE name = $1', [name]);
    if (!exists.rows.length) return { removed: false as const, documents: 0, missing: true };
    const gone = await client.query('DELETE FROM repositories WHERE name = $1 RETURNING id', [name]);
    return { removed: (gone.rowCount ?? 0) > 0, documents: exists.rows[0].docs, missing: false };
  });
  if (result.missing) throw new UsageError(`store remove: the shared store has no repository named ${terminalSafe(name)}`);
  if (!result.removed) throw new StoreUnavailableError(notYours(name));
  if (opts.json) ctx.io.stdout.write(JSON.stringify({ repository: name, removed: true, documents: result.documents }, null, 2) + '\n');
  else ctx.io.stdout.write(`Removed ${terminalSafe(name)} from the shared store (${result.documents} documents).\n`);
  return ExitCode.Ok;
}
