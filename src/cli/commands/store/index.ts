/**
 * `agentos store init | status`: the team store (PostgreSQL + pgvector).
 * Chosen by AGENTOS_DATABASE_URL or `store.url`; the local index stays the default.
 */
import type { CommandContext } from '../../context.js';
import { ExitCode, TeamStoreUnavailableError, UsageError } from '../../../shared/errors.js';
import { notYours } from '../../../work-memory/index/team-store-sync.js';
import { withTeamStore } from '../../team-store.js';
import { terminalSafe } from '../../../shared/sanitize.js';
import { migrate } from '../../../shared/team-store/schema.js';
import { storeStatus } from '../../../shared/team-store/status.js';
import { maskUrl, sslPlan } from '../../../shared/team-store/url.js';

/** Create or migrate the schema: idempotent, versioned, safe when two processes run it at once. */
export async function runStoreInit(ctx: CommandContext, opts: { json?: boolean }): Promise<number> {
  const result = await withTeamStore(ctx, (client) => migrate(client), true);
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
  const s = await withTeamStore(ctx, (client, url) => storeStatus(client, maskUrl(url), sslPlan(url, ctx.io.env).mode));
  if (opts.json) {
    ctx.io.stdout.write(JSON.stringify(s, null, 2) + '\n');
    return ExitCode.Ok;
  }
  const out = (line: string) => ctx.io.stdout.write(line + '\n');
  out(`Store:   ${s.url}`);
  out(`Server:  PostgreSQL ${s.server}, pgvector ${s.vector ?? 'not installed'}`);
  // Whether the password and the team's text cross the network encrypted, and whether the server was verified (libpq's modes).
  const verified = s.connection.sslmode === 'verify-full' || s.connection.sslmode === 'verify-ca';
  out(
    `Connection: ${s.connection.tls ? `${s.connection.tls}, ${verified ? 'server verified' : 'server not verified'}` : 'plain text'}${s.connection.sslmode ? ` (sslmode ${s.connection.sslmode})` : ''}`,
  );
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
    for (const r of s.repositories)
      out(
        `  ${terminalSafe(r.name)}: ${r.documents} documents, ${r.chunks} chunks, last sync ${r.syncedAt ?? 'never'}`,
      );
    if (s.schema.state === 'current')
      out(`Shared attempts: ${s.attempts.failures} failures, ${s.attempts.successes} successes`);
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
  if (!name.trim())
    throw new UsageError('store remove: name the repository to remove (as `agentos store status` lists it)');
  const result = await withTeamStore(ctx, async (client) => {
    const { SCHEMA_VERSION, schemaVersion } = await import('../../../shared/team-store/schema.js');
    const version = await schemaVersion(client);
    if (version !== SCHEMA_VERSION)
      throw new TeamStoreUnavailableError(
        `the store's schema is version ${version}, this agentos reads ${SCHEMA_VERSION}: run \`agentos store init\``,
      );
    const exists = await client.query<{ docs: number }>('SELECT docs FROM repositories WHERE name = $1', [name]);
    if (!exists.rows.length) return { removed: false as const, documents: 0, missing: true };
    // Through the store's function (writers hold no DELETE): null when it is not the caller's to remove.
    const gone = await client.query<{ id: string | null }>('SELECT agentos.remove_repository($1) AS id', [name]);
    const removed = gone.rows[0]?.id != null;
    return {
      removed,
      documents: exists.rows[0].docs,
      missing: false,
      refusal: removed ? null : await notYours(client, name),
    };
  });
  if (result.missing)
    throw new UsageError(`store remove: the team store has no repository named ${terminalSafe(name)}`);
  if (!result.removed) throw new TeamStoreUnavailableError(result.refusal ?? `${terminalSafe(name)}: not removed`);
  if (opts.json)
    ctx.io.stdout.write(
      JSON.stringify({ repository: name, removed: true, documents: result.documents }, null, 2) + '\n',
    );
  else ctx.io.stdout.write(`Removed ${terminalSafe(name)} from the team store (${result.documents} documents).\n`);
  return ExitCode.Ok;
}
