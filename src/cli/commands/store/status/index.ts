/** `agentos store status`: which server answered, its schema, and what it holds (the password masked). */
import type { CommandContext } from '../../../context.js';
import { ExitCode } from '../../../../shared/errors.js';
import { terminalSafe } from '../../../../shared/sanitize.js';
import { storeStatus } from '../../../../shared/team-store/status.js';
import { maskUrl, sslPlan } from '../../../../shared/team-store/url.js';
import { withTeamStore } from '../../../team-store.js';

export interface TeamStoreStatusOptions {
  json?: boolean;
}

export async function runStoreStatus(ctx: CommandContext, opts: TeamStoreStatusOptions): Promise<number> {
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
