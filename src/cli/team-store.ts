/** The team store as commands reach it: connected with the configured URL, and its failures said as one line naming it. */
import type { CommandContext } from './context.js';
import { UsageError } from '../shared/errors.js';
import { connectTeamStore, isTeamStoreError, storeError } from '../shared/team-store/connect.js';
import { plainTextWarning, storeUrl } from '../shared/team-store/url.js';

/** How long init and sync may spend per statement: waiting for another sync of the repository, or deleting a large one. */
const WORK_MS = 300_000;

export async function withTeamStore<T>(
  ctx: CommandContext,
  work: (client: Awaited<ReturnType<typeof connectTeamStore>>, url: string) => Promise<T>,
  long = false,
): Promise<T> {
  const { config } = await ctx.config();
  const url = storeUrl(ctx.io.env, config);
  if (!url)
    throw new UsageError(
      'no team store configured: set AGENTOS_DATABASE_URL (postgres://user@host/db) or store.url in .agentos/config.yaml',
    );
  const timeout = config.store.timeoutMs;
  const plain = plainTextWarning(url, ctx.io.env);
  if (plain && !ctx.globals.quiet) ctx.io.stderr.write(`Warning: ${plain}\n`);
  const client = await connectTeamStore(url, timeout, long ? Math.max(timeout, WORK_MS) : timeout);
  try {
    return await work(client, url);
  } catch (e) {
    // The store's failures become one line naming it; agentos' own bugs stay what they are.
    throw isTeamStoreError(e) ? storeError(e, url, timeout) : e;
  } finally {
    await client.end().catch(() => undefined);
  }
}
