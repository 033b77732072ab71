/** `agentos store sync`: this repository's live index into the team store (and what `index` runs after a build). */
import type { CommandContext } from '../../../context.js';
import { ExitCode, TeamStoreUnavailableError, UsageError, errorMessage } from '../../../../shared/errors.js';
import { describeSync, notPublishing, syncTeamStore } from '../../../publish.js';
import { sharingAttempts } from '../../../../attempt-memory/open.js';
import { MAX_PULL_ROWS, notMemberWarning, shareAttempts, type ShareReport } from '../../../../attempt-memory/share.js';
import { repositoryName } from '../../../../shared/team-store/repository.js';

/** Push this repository's live index into the team store (what `index` does after a build when a store is configured). */
export interface TeamStoreSyncOptions {
  json?: boolean;
  /** Replace the team's copy from a branch other than the default one. */
  anyBranch?: boolean;
}

export async function runStoreSync(ctx: CommandContext, opts: TeamStoreSyncOptions): Promise<number> {
  const why = await notPublishing(ctx, { explicit: true, anyBranch: opts.anyBranch === true });
  if (why) throw new UsageError(`store sync: ${why}`);
  const report = await syncTeamStore(ctx);
  // Shared attempts (attempts.scope: org): what waits in the outbox goes, the team's come back.
  // Their failure does not hide the documents' sync, which has committed: both are said, exit 7.
  let attempts: ShareReport | null = null;
  let attemptsFailed: unknown = null;
  try {
    attempts = await syncAttempts(ctx);
  } catch (e) {
    attemptsFailed = e;
  }
  if (opts.json) ctx.io.stdout.write(JSON.stringify({ ...report, attempts }, null, 2) + '\n');
  else {
    ctx.io.stdout.write(describeSync(report) + '\n');
    if (attempts)
      ctx.io.stdout.write(
        `Shared attempts: ${attempts.sent} sent, ${attempts.pulled} received from the team, ${attempts.forgotten} forgotten${attempts.queued ? `, ${attempts.queued} still queued` : ''}${attempts.truncated ? ` (more from the team on the next sync: one reads at most ${MAX_PULL_ROWS})` : ''}.\n`,
      );
  }
  if (attempts?.notMember)
    ctx.io.stderr.write(
      `warning: ${notMemberWarning(repositoryName(ctx.root(), (await ctx.config()).config), attempts.notMember)}\n`,
    );
  if (attemptsFailed) {
    if (!(attemptsFailed instanceof TeamStoreUnavailableError)) throw attemptsFailed;
    ctx.io.stderr.write(
      `agentos: the documents were synced; the shared attempts were not (${errorMessage(attemptsFailed)}): they stay queued\n`,
    );
    return ExitCode.TeamStoreUnavailable;
  }
  return ExitCode.Ok;
}

async function syncAttempts(ctx: CommandContext): Promise<ShareReport | null> {
  const { config } = await ctx.config();
  if (!sharingAttempts(ctx.io.env, config) || !config.attempts.enabled) return null;
  const memory = await ctx.attempts('write');
  try {
    return memory.queue
      ? await shareAttempts(ctx.root(), config, memory.queue, { pull: true, force: true, env: ctx.io.env })
      : null;
  } finally {
    memory.close();
  }
}
