/** `--scope`: which past work a check or search compares with, and the line saying what answered. */
import type { Config } from '../../shared/config/schema.js';
import { UsageError } from '../../shared/errors.js';
import { storeUrl } from '../../shared/team-store/url.js';
import type { CheckScope, HistoryOutcome } from '../../work-memory/check/run.js';

/**
 * The flag, else config store.scope. Asking for org on the command line with no store
 * configured is a usage error (the person asked for something that cannot happen);
 * a config default of org without a store warns at the check and answers locally.
 */
export function checkScope(env: NodeJS.ProcessEnv, config: Config, flag: CheckScope | undefined): CheckScope {
  if (flag === 'org' && storeUrl(env, config) === null)
    throw new UsageError(
      '--scope org needs the team store: set AGENTOS_DATABASE_URL (postgres://user@host/db) or store.url in .agentos/config.yaml',
    );
  return flag ?? config.store.scope;
}

/** "Compared with 3 other repositories in the team store at host/db, and this repository's local index." */
export function describeScope(org: NonNullable<HistoryOutcome['org']>): string {
  const n = org.repositories.length;
  const others =
    n === 0
      ? 'no other repository (the team store holds none with this model)'
      : `${n} other ${n === 1 ? 'repository' : 'repositories'}`;
  return `Compared with ${others} in the team store at ${org.where} (${org.fetched} of their documents read), and this repository's local index.`;
}
