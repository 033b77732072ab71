import path from 'node:path';
import { existsSync } from 'node:fs';
import type { Config } from '../../shared/config/schema.js';
import type { ModelIdentity } from './build.js';
import type { Embedder } from '../embeddings/embedder.js';
import type { StartedWorker } from '../embeddings/worker-runner.js';
import {
  fingerprintFile,
  modelCacheDir,
  onnxFileName,
  resolveDtype,
  resolveModelLocation,
  type ModelLocation,
} from '../embeddings/model-location.js';
import { AUTO_DTYPES, type ModelDtype } from '../embeddings/model-files.js';
import { readLiveManifest } from './hnsw-index.js';

export { modelCacheDir };
import { MAX_TOKENS } from '../embeddings/minilm.js';

export interface ModelSetup {
  location: ModelLocation;
  /** The weights in use: `model.dtype`, with `auto` resolved against the files present. */
  dtype: ModelDtype;
  /** Known without loading the model, so a no-op index run stays cheap. */
  identity: ModelIdentity;
  /** `batch` (index): throughput first; `query` (a brief): memory first. */
  load(purpose?: 'batch' | 'query'): Promise<Embedder>;
}

/** `worker`: the inference worker started for this run (bin/agentos.js → main → here); the first load takes it. */
export function modelSetup(
  env: NodeJS.ProcessEnv,
  config: Config,
  root: string,
  worker: StartedWorker | null = null,
): ModelSetup {
  const { id } = config.model;
  const location = resolveModelLocation(env, config.model.dir, root, id, config.model.dtype);
  // No weights at all (`auto`): keep the dtype the index was built with, so the keyword
  // fallback can still use that index; else q8, the one `agentos model fetch` gets.
  const dtype = resolveDtype(location, id, config.model.dtype) ?? indexedDtype(root, id) ?? 'q8';
  const file = location.dir ? path.join(location.dir, id, onnxFileName(dtype)) : null;
  const identity: ModelIdentity = {
    modelId: `${id}@${dtype}`,
    modelFingerprint: file && existsSync(file) ? fingerprintFile(file) : 'unknown',
    dimensions: 384,
    maxTokens: MAX_TOKENS,
  };
  return {
    location,
    dtype,
    identity,
    load: async (purpose = 'query') => {
      const { MiniLMEmbedder } = await import('../embeddings/minilm.js');
      return MiniLMEmbedder.load({
        modelId: id,
        dtype,
        location,
        cacheDir: modelCacheDir(env),
        memoryArena: purpose === 'batch',
        spinning: purpose === 'batch',
        fingerprint: identity.modelFingerprint === 'unknown' ? undefined : identity.modelFingerprint,
        worker: worker?.take() ?? null,
      });
    },
  };
}

/** The dtype of the live index's model, when it is one `auto` could pick. */
function indexedDtype(root: string, id: string): ModelDtype | null {
  const manifest = readLiveManifest(root);
  if (!manifest || typeof manifest.modelId !== 'string') return null;
  const [mid, d] = manifest.modelId.split('@');
  return mid === id && (AUTO_DTYPES as readonly string[]).includes(d) ? (d as ModelDtype) : null;
}
