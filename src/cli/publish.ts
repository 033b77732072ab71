/**
 * Publishing this repository's live index to the team store: `agentos store sync`, and
 * `agentos index` after a build (one command never imports another; both import this).
 */
import type { CommandContext } from './context.js';
import { IndexUnavailableError } from '../shared/errors.js';
import { repositoryName } from '../shared/team-store/repository.js';
import { requireCurrentSchema } from '../shared/team-store/schema.js';
import { syncToTeamStore, type SyncReport } from '../work-memory/index/team-store-sync.js';
import { withTeamStore } from './team-store.js';
import { CONFIG_PATH, MAX_CONFIG_BYTES, parseConfigText } from '../shared/config/load.js';
import type { Config } from '../shared/config/schema.js';
import { oneLine } from '../shared/sanitize.js';

export async function syncTeamStore(ctx: CommandContext): Promise<SyncReport> {
  const root = ctx.root();
  const { config } = await ctx.config();
  const repository = repositoryName(root, config);
  // Vectors and term counts from one generation (a concurrent index may swap CURRENT between two reads).
  const { readCurrent, openGeneration } = await import('../work-memory/index/hnsw-index.js');
  const { LEXICAL_FILE, readGenerationLexical } = await import('../work-memory/lexical/file.js');
  const generation = readCurrent(root);
  if (!generation)
    throw new IndexUnavailableError('no index to sync; run `agentos index --include-history`', 'missing');
  const local = await openGeneration(root, generation, (await ctx.model()).identity);
  const lexical = local.manifest.integrity.extra?.[LEXICAL_FILE] ? readGenerationLexical(root, generation) : null;
  return withTeamStore(
    ctx,
    async (client) => {
      await requireCurrentSchema(client);
      return syncToTeamStore(client, local, lexical, repository);
    },
    true,
  );
}

export function describeSync(r: SyncReport): string {
  const parts = [
    `${r.added.length} added`,
    `${r.changed.length} changed`,
    `${r.removed.length} removed`,
    `${r.unchanged} unchanged`,
  ];
  return `Team store: ${r.repository}: ${parts.join(', ')} (${r.chunks} chunks sent)${r.replacedAll ? `; every document replaced: ${r.replacedAll}` : ''}.`;
}

/**
 * Why this repository's index must not replace the team's copy now, or null (issue 30): the
 * project's config must opt in (`store.publish: true`; a URL in the environment alone never
 * uploads), and only the default branch (as git reads origin/HEAD) replaces it, unless asked
 * explicitly (`store sync --any-branch`): a work-in-progress branch would delete done work
 * for everybody. `--any-branch` is about branches only (issue 47): a folder without history
 * and a config nobody committed never publish, whatever the flags.
 */
export async function notPublishing(
  ctx: CommandContext,
  o: { explicit: boolean; anyBranch: boolean },
): Promise<string | null> {
  const { config } = await ctx.config();
  if (!config.store.publish)
    return 'this repository is not published to the team store: set store.publish: true in .agentos/config.yaml (the whole team can read what is published)';
  const root = ctx.root();
  const { git } = await import('../work-memory/sources/git-log.js');
  const { hasGitHistory, resolveRef } = await import('../work-memory/sources/git-branch.js');
  // An empty clone (or a folder out of git) replaced the team's copy with nothing: no history, no publish.
  if (!(await hasGitHistory(root)))
    return "this repository has no git history: nothing it indexes can replace the team's copy";
  // The project's decision is the committed config's: a publish: true edited in and not committed is one person's,
  // and so is another name to publish under (the team's documents would go to a second repository, or someone else's).
  const committed = await committedConfig(root, git);
  if (committed?.store.publish !== true)
    return 'store.publish: true is not in the committed .agentos/config.yaml (HEAD): commit it to publish from this repository';
  if ((committed.store.repository ?? null) !== (config.store.repository ?? null))
    return `store.repository in .agentos/config.yaml (${shownName(config.store.repository)}) is not the committed one (${shownName(committed.store.repository)}): commit it to publish under that name`;
  if (o.anyBranch) return null;
  const current = await git(root, ['symbolic-ref', '-q', '--short', 'HEAD'], { allowFail: true });
  const { ref } = await resolveRef(root, config.sources.git.branch);
  // No default branch to be on (no origin/HEAD, no main/master/trunk/develop): not the branch checked out, whatever it is.
  if (ref === 'HEAD')
    return `no default branch is known here (no origin/HEAD, no main, master, trunk or develop): set sources.git.branch, or run \`git remote set-head origin --auto\`${anyBranchHint(o)}`;
  const main = ref.replace(/^refs\/(heads|remotes\/[^/]+)\//, '');
  const branch = current.code === 0 ? current.stdout.trim() : null;
  // A configured `origin/main` names the branch `main` too.
  if (branch !== null && (branch === main || main.endsWith(`/${branch}`))) return null;
  return `${branch ? `on branch ${branch}` : 'on a detached HEAD'}, not the default branch ${main}: the team's copy is left as it is${o.explicit ? ' (--any-branch replaces it from here)' : ' (`agentos store sync --any-branch` replaces it from here)'}`;
}

const anyBranchHint = (o: { explicit: boolean }) =>
  o.explicit
    ? ' (--any-branch publishes from here anyway)'
    : ' (`agentos store sync --any-branch` publishes from here anyway)';

/** The config committed at HEAD, read as the config file is read (depth, aliases, keys): null when there is none or it does not parse. */
async function committedConfig(
  root: string,
  git: typeof import('../work-memory/sources/git-log.js').git,
): Promise<Config | null> {
  const r = await git(root, ['show', `HEAD:./${CONFIG_PATH}`], { allowFail: true });
  if (r.code !== 0 || r.stdout.length > MAX_CONFIG_BYTES) return null;
  try {
    return parseConfigText(r.stdout).config;
  } catch {
    return null;
  }
}

const shownName = (name: string | null | undefined): string => (name ? oneLine(name, 100) : 'none: the remote decides');
