import type { Config } from '../../shared/config/schema.js';
import { modelSetup } from '../index/model-setup.js';
import { openStore } from '../index/hnsw-store.js';
import { openLexical } from '../lexical/file.js';
import type { CheckDeps } from './run.js';

/** The real memory behind the checks: the MiniLM embedder and the HNSW index of the project. */
export function defaultCheckDeps(env: NodeJS.ProcessEnv, config: Config, root: string): CheckDeps {
  const model = modelSetup(env, config, root);
  return {
    method: `embedding:${model.identity.modelId}+hnsw`,
    identity: model.identity,
    loadEmbedder: () => model.load('query'),
    openStore: () => openStore(root, model.identity),
    openLexical: async () => openLexical(root),
  };
}

/**
 * The same deps, loading the embedder at most once: a refresh of a stale index
 * before the check and the check itself then share one model load.
 */
export function withSharedEmbedder(deps: CheckDeps): CheckDeps {
  let loading: ReturnType<CheckDeps['loadEmbedder']> | null = null;
  return {
    ...deps,
    loadEmbedder: () => {
      // A failed load is not cached: the check reports its own failure.
      loading ??= deps.loadEmbedder().catch((e: unknown) => {
        loading = null;
        throw e;
      });
      return loading;
    },
  };
}
