/** `agentos store init`: create or migrate the team store's schema. */
import type { CommandContext } from '../../../context.js';
import { ExitCode } from '../../../../shared/errors.js';
import { migrate } from '../../../../shared/team-store/schema.js';
import { withTeamStore } from '../../../team-store.js';

export interface TeamStoreInitOptions {
  json?: boolean;
}

/** Create or migrate the schema: idempotent, versioned, safe when two processes run it at once. */
export async function runStoreInit(ctx: CommandContext, opts: TeamStoreInitOptions): Promise<number> {
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
