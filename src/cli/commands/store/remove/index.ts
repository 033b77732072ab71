import type { CommandContext } from '../../../context.js';
import { ExitCode, TeamStoreUnavailableError, UsageError } from '../../../../shared/errors.js';
import { terminalSafe } from '../../../../shared/sanitize.js';
import { removeRepository } from '../../../../work-memory/index/team-store-remove.js';
import { withTeamStore } from '../../../team-store.js';

export interface TeamStoreRemoveOptions {
  json?: boolean;
}

/**
 * `agentos store remove NAME`: take a repository out of the team store (issue 30). The name is
 * typed out, not inferred: it is the confirmation. Row-level security decides
 * (work-memory/index/team-store-remove.ts); for anyone but its owners or an administrator nothing
 * is deleted and the command says whose it is.
 */
export async function runStoreRemove(ctx: CommandContext, name: string, opts: TeamStoreRemoveOptions): Promise<number> {
  if (!name.trim())
    throw new UsageError('store remove: name the repository to remove (as `agentos store status` lists it)');
  const result = await withTeamStore(ctx, (client) => removeRepository(client, name));
  if (result.missing)
    throw new UsageError(`store remove: the team store has no repository named ${terminalSafe(name)}`);
  if (!result.removed) throw new TeamStoreUnavailableError(result.refusal);
  if (opts.json)
    ctx.io.stdout.write(
      JSON.stringify({ repository: name, removed: true, documents: result.documents }, null, 2) + '\n',
    );
  else ctx.io.stdout.write(`Removed ${terminalSafe(name)} from the team store (${result.documents} documents).\n`);
  return ExitCode.Ok;
}
