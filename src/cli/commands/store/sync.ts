/** `agentos store sync`: this repository's live index into the shared store (and what `index` runs after a build). */
import path from 'node:path';
import type { CommandContext } from '../../context.js';
import { ExitCode, IndexUnavailableError, StoreUnavailableError } from '../../../shared/errors.js';
import { repositoryName } from '../../../shared/store/repository.js';
import { SCHEMA_VERSION, schemaVersion } from '../../../shared/store/schema.js';
import { syncToStore, type SyncReport } from '../../../work-memory/index/store-sync.js';
import { withStore } from './index.js';
import { sharingAttempts } from '../../../attempt-memory/open.js';
import { shareAttempts, type ShareReport } from '../../../attempt-memory/share.js';

/** Push this repository's live index into the shared store (what `index` does after a build when a store is configured). */
export async function runStoreSync(ctx: CommandContext, opts: { json?: boolean }): Promise<number> {
  const report = await syncStore(ctx);
  // Shared attempts (attempts.scope: org): what waits in the outbox goes, the team's come back.
  const attempts = await syncAttempts(ctx);
  if (opts.json) ctx.io.stdout.write(JSON.stringify({ ...report, attempts }, null, 2) + '\n');
  else {
    ctx.io.stdout.write(describeSync(report) + '\n');
    if (attempts)
      ctx.io.stdout.write(
        `Shared attempts: ${attempts.sent} sent, ${attempts.pulled} received from the team, ${attempts.forgotten} forgotten${attempts.queued ? `, ${attempts.queued} still queued` : ''}.\n`,
      );
  }
  return ExitCode.Ok;
}

async function syncAttempts(ctx: CommandContext): Promise<ShareReport | null> {
  const { config } = await ctx.config();
  if (!sharingAttempts(ctx.io.env, config) || !config.attempts.enabled) return null;
  const memory = await ctx.attempts('write');
  try {
    return memory.queue ? await shareAttempts(ctx.root(), config, memory.queue, { pull: true, force: true, env: ctx.io.env }) : null;
  } finally {
    memory.close();
  }
}

export async function syncStore(ctx: CommandContext): Promise<SyncReport> {
  const root = ctx.root();
  const { config } = await ctx.config();
  const repository = repositoryName(root, config);
  // Vectors and term counts from one generation (a concurrent index may swap CURRENT between two reads).
  const { readCurrent, openGeneration } = await import('../../../work-memory/index/hnsw-store.js');
  const { indexPaths } = await import('../../../work-memory/index/layout.js');
  const { LEXICAL_FILE, readLexical } = await import('../../../work-memory/lexical/file.js');
  const generation = readCurrent(root);
  if (!generation) throw new IndexUnavailableError('no index to sync; run `agentos index --include-history`', 'missing');
  const local = await openGeneration(root, generation, (await ctx.model()).identity);
  const sha = local.manifest.integrity.extra?.[LEXICAL_FILE]?.sha256;
  const lexical = sha ? readLexical(path.join(indexPaths(root).generation(generation).dir, LEXICAL_FILE), sha) : null;
  return withStore(
    ctx,
    async (client) => {
      const version = await schemaVersion(client);
      if (version !== SCHEMA_VERSION)
        throw new StoreUnavailableError(
          version === 0
            ? 'the store has no agentos schema yet: run `agentos store init`'
            : `the store's schema is version ${version}, this agentos writes ${SCHEMA_VERSION}: run \`agentos store init\` (or upgrade agentos)`,
        );
      return syncToStore(client, local, lexical, repository);
    },
    true,
  );
}

export function describeSync(r: SyncReport): string {
  const parts = [`${r.added.length} added`, `${r.changed.length} changed`, `${r.removed.length} removed`, `${r.unchanged} unchanged`];
  return `Shared store: ${r.repository}: ${parts.join(', ')} (${r.chunks} chunks sent)${r.replacedAll ? `; every document replaced: ${r.replacedAll}` : ''}.`;
}
