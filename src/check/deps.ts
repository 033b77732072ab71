import type { Config } from '../config/schema.js';
import { modelSetup } from '../embeddings/setup.js';
import { openStore } from '../index/hnsw-store.js';
import { openLexical } from '../lexical/file.js';
import type { CheckDeps } from './run.js';

/** The real memory behind the checks: the MiniLM embedder and the HNSW index of the project. */
export function defaultCheckDeps(env: NodeJS.ProcessEnv, config: Config, root: string): CheckDeps {
  const model = modelSetup(env, config, root);
  return {
    method: `embedding:${model.identity.modelId}+hnsw`,
    loadEmbedder: () => model.load('query'),
    openStore: () => openStore(root, model.identity),
    openLexical: async () => openLexical(root),
  };
}
