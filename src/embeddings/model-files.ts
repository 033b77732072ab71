/**
 * The model files agentos uses, each pinned by SHA-256 and size. One list for
 * `agentos model fetch` (hub download and `--from DIR`), the model lookup and
 * the checks, so a new file (e.g. another quantisation) is one entry here.
 * The same pins are in scripts/provision-model.sh (bash, for the dev checkout).
 */
export interface ModelFile {
  /** Path inside `<model id>/`, e.g. `onnx/model_quantized.onnx`. */
  path: string;
  sha256: string;
  bytes: number;
  /** Which dtype needs it; absent = every dtype (tokenizer, config). */
  dtype?: ModelDtype;
}

export type ModelDtype = 'q8' | 'fp32';

/** The hub repository and the revision the pins were taken from (Xenova/all-MiniLM-L6-v2 @ 48a5a37). */
export const MODEL_REPO = { id: 'Xenova/all-MiniLM-L6-v2', revision: '48a5a37' } as const;

export const MODEL_FILES: readonly ModelFile[] = [
  { path: 'config.json', sha256: '7135149f7cffa1a573466c6e4d8423ed73b62fd2332c575bf738a0d033f70df7', bytes: 650 },
  { path: 'special_tokens_map.json', sha256: 'b6d346be366a7d1d48332dbc9fdf3bf8960b5d879522b7799ddba59e76237ee3', bytes: 125 },
  { path: 'tokenizer.json', sha256: 'da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0', bytes: 711661 },
  { path: 'tokenizer_config.json', sha256: '9261e7d79b44c8195c1cada2b453e55b00aeb81e907a6664974b4d7776172ab3', bytes: 366 },
  { path: 'vocab.txt', sha256: '07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3', bytes: 231508 },
  // The int8 export agentos is validated with (fixtures/model-reference/README.md).
  { path: 'onnx/model_quantized.onnx', sha256: '8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6', bytes: 22928619, dtype: 'q8' },
];

/** The files one dtype needs, small ones first (a failed download fails fast). */
export function filesFor(dtype: ModelDtype, files: readonly ModelFile[] = MODEL_FILES): ModelFile[] {
  return files.filter((f) => !f.dtype || f.dtype === dtype).sort((a, b) => a.bytes - b.bytes);
}
