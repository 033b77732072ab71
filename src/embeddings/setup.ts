import path from 'node:path';
import { existsSync } from 'node:fs';
import type { Config } from '../config/schema.js';
import type { ModelIdentity } from '../index/build.js';
import type { Embedder } from './embedder.js';
import { fingerprintFile, modelCacheDir, onnxFileName, resolveDtype, resolveModelLocation, type ModelLocation } from './model-location.js';
import type { ModelDtype } from './model-files.js';

export { modelCacheDir };
import { MAX_TOKENS } from './minilm.js';

export interface ModelSetup {
  location: ModelLocation;
  /** The weights in use: `model.dtype`, with `auto` resolved against the files present. */
  dtype: ModelDtype;
  /** Known without loading the model, so a no-op index run stays cheap. */
  identity: ModelIdentity;
  /** `batch` (index): throughput first; `query` (a brief): memory first. */
  load(purpose?: 'batch' | 'query'): Promise<Embedder>;
}

export function modelSetup(env: NodeJS.ProcessEnv, config: Config, root: string): ModelSetup {
  const { id } = config.model;
  const location = resolveModelLocation(env, config.model.dir, root, id, config.model.dtype);
  const dtype = resolveDtype(location, id, config.model.dtype);
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
      const { MiniLMEmbedder } = await import('./minilm.js');
      return MiniLMEmbedder.load({
        modelId: id,
        dtype,
        location,
        cacheDir: modelCacheDir(env),
        memoryArena: purpose === 'batch',
        fingerprint: identity.modelFingerprint === 'unknown' ? undefined : identity.modelFingerprint,
      });
    },
  };
}
