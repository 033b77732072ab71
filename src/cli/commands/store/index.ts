/**
 * `agentos store init | status`: the shared team store (PostgreSQL + pgvector).
 * Chosen by AGENTOS_DATABASE_URL or `store.url`; the local index stays the default.
 */
import type { CommandContext } from '../../context.js';
import { ExitCode, UsageError } from '../../../shared/errors.js';
import { connectStore, storeError } from '../../../shared/store/connect.js';
import { migrate, SCHEMA_VERSION, schemaVersion } from '../../../shared/store/schema.js';
import { repositoryName } from '../../../shared/store/repository.js';
import { StoreUnavailableError } from '../../../shared/errors.js';
import { syncToStore, type SyncReport } from '../../../work-memory/index/store-sync.js';
import { storeStatus } from '../../../shared/store/status.js';
import { maskUrl, storeUrl } from '../../../shared/store/url.js';

async function withStore<T>(ctx: CommandContext, work: (client: Awaited<ReturnType<typeof connectStore>>, url: string) => Promise<T>): Promise<T> {
  const { config } = await ctx.config();
  const url = storeUrl(ctx.io.env, config);
  if (!url) throw new UsageError('no shared store configured: set AGENTOS_DATABASE_URL (postgres://user@host/db) or store.url in .agentos/config.yaml');
  const client = await connectStore(url, config.store.timeoutMs);
  try {
    return await work(client, url);
  } catch (e) {
    throw storeError(e, url, config.store.timeoutMs);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Create or migrate the schema: idempotent, versioned, safe when two processes run it at once. */
export async function runStoreInit(ctx: CommandContext, opts: { json?: boolean }): Promise<number> {
  const result = await withStore(ctx, (client) => migrate(client));
  if (opts.json) ctx.io.stdout.write(JSON.stringify(result, null, 2) + '\n');
  else
    ctx.io.stdout.write(
      result.from === result.to
        ? `Store schema is current (version ${result.to}, pgvector ${result.vector}).\n`
        : `Store schema ${result.from === 0 ? 'created' : `migrated from version ${result.from}`}: version ${result.to} (pgvector ${result.vector}).\n`,
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
    for (const r of s.repositories) out(`  ${r.name}: ${r.documents} documents, ${r.chunks} chunks, last sync ${r.syncedAt ?? 'never'}`);
  }
  return ExitCode.Ok;
}

/** Push this repository's live index into the shared store (what `index` does after a build when a store is configured). */
export async function runStoreSync(ctx: CommandContext, opts: { json?: boolean }): Promise<number> {
  const report = await syncStore(ctx);
  if (opts.json) ctx.io.stdout.write(JSON.stringify(report, null, 2) + '\n');
  else ctx.io.stdout.write(describeSync(report) + '\n');
  return ExitCode.Ok;
}

export async function syncStore(ctx: CommandContext): Promise<SyncReport> {
  const local = await ctx.index();
  const { openLexical } = await import('../../../work-memory/lexical/file.js');
  let lexical = null;
  try {
    lexical = openLexical(ctx.root());
  } catch {
    lexical = null; // an index without its lexical file: the server gets no term counts for it
  }
  const { config } = await ctx.config();
  return withStore(ctx, async (client) => {
    const version = await schemaVersion(client);
    if (version !== SCHEMA_VERSION)
      throw new StoreUnavailableError(
        version === 0
          ? 'the store has no agentos schema yet: run `agentos store init`'
          : `the store's schema is version ${version}, this agentos writes ${SCHEMA_VERSION}: run \`agentos store init\` (or upgrade agentos)`,
      );
    return syncToStore(client, local, lexical, repositoryName(ctx.root(), config));
  });
}

export function describeSync(r: SyncReport): string {
  const parts = [`${r.added.length} added`, `${r.changed.length} changed`, `${r.removed.length} removed`, `${r.unchanged} unchanged`];
  return `Shared store: ${r.repository}: ${parts.join(', ')} (${r.chunks} chunks sent)${r.replacedAll ? `; every document replaced: ${r.replacedAll}` : ''}.`;
}
