import type { Config } from '../../shared/config/schema.js';
import { modelSetup } from '../index/model-setup.js';
import { openIndex } from '../index/hnsw-index.js';
import { openLexical } from '../lexical/file.js';
import { embeddingMethod, type CheckDeps } from './run.js';
import type { StartedWorker } from '../embeddings/worker-runner.js';
import { withTeamStoreDeadline } from '../../shared/team-store/connect.js';
import { repositoryName } from '../../shared/team-store/repository.js';
import { requireCurrentSchema } from '../../shared/team-store/schema.js';
import { plainTextWarning, storeConfigured, storeUrl, target } from '../../shared/team-store/url.js';
import type { ModelMatch } from '../org/fetch.js';
import { openOrgView, type OrgRequest } from '../org/open.js';
import { readProjectLine } from '../scoring/project-line.js';

/** The real memory behind the checks: the MiniLM embedder and the HNSW index of the project. */
export function defaultCheckDeps(
  env: NodeJS.ProcessEnv,
  config: Config,
  root: string,
  worker: StartedWorker | null = null,
): CheckDeps {
  const model = modelSetup(env, config, root, worker);
  return {
    method: embeddingMethod(model.identity.modelId),
    identity: model.identity,
    loadEmbedder: () => model.load('query'),
    openIndex: () => openIndex(root, model.identity),
    openLexical: async () => openLexical(root),
    openOrg: orgOpener(env, config, root, model.identity),
    projectLine: () => readProjectLine(root),
  };
}

/** The org-scope reader for a check, when a store is configured (the CLI's and the MCP server's checks alike). */
export function orgOpener(
  env: NodeJS.ProcessEnv,
  config: Config,
  root: string,
  model: ModelMatch,
): CheckDeps['openOrg'] {
  return storeConfigured(env, config) ? (q) => openOrg(env, config, root, model, q) : undefined;
}

/** The org view from the team store, within store.timeout_ms from connecting to the last row. */
async function openOrg(
  env: NodeJS.ProcessEnv,
  config: Config,
  root: string,
  model: ModelMatch,
  q: Omit<OrgRequest, 'self' | 'model'>,
) {
  const url = storeUrl(env, config)!;
  let self: string | null = null;
  const notes: string[] = [];
  const plain = plainTextWarning(url, env);
  if (plain) notes.push(plain);
  try {
    // Without a local index (a fresh clone), this repository's published history is read from the store like any other.
    if (!q.noLocalIndex) self = repositoryName(root, config);
  } catch {
    // No name: it cannot have been synced by this clone, so every repository there is another. Said, since a
    // copy synced elsewhere under a configured name would then be compared as another repository.
    notes.push(
      'this repository has no name in the team store (no store.repository, no git remote origin): every repository there is compared as another',
    );
  }
  return withTeamStoreDeadline(url, config.store.timeoutMs, async (client) => {
    await requireCurrentSchema(client);
    const view = await openOrgView(client, { ...q, self, model });
    return { ...view, notes: [...notes, ...view.notes], where: target(url) };
  });
}

/**
 * The same deps, loading the embedder at most once: a refresh of a stale index
 * before the check and the check itself then share one model load.
 */
export function withSharedEmbedder(deps: CheckDeps): CheckDeps {
  let loading: ReturnType<CheckDeps['loadEmbedder']> | null = null;
  let loaded: Awaited<ReturnType<CheckDeps['loadEmbedder']>> | null = null;
  return {
    ...deps,
    loadEmbedder: () => {
      // A failed load is not cached: the check reports its own failure.
      loading ??= deps.loadEmbedder().then(
        (e) => (loaded = e),
        (e: unknown) => {
          loading = null;
          throw e;
        },
      );
      return loading;
    },
    loadedEmbedder: () => loaded,
  };
}
