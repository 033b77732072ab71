import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_DTYPE, MODEL_DTYPES, ONNX_FILES, PINNED_FILES, isModelDtype } from '../../src/embeddings/model-files.js';
import { onnxFileName } from '../../src/embeddings/model-location.js';

const SCRIPT = readFileSync(path.join(process.cwd(), 'scripts', 'provision-model.sh'), 'utf8');

describe('model files and their pins', () => {
  test('every pin in model-files.ts is the one provision-model.sh verifies, next to the same file name', () => {
    for (const f of PINNED_FILES) {
      expect(f.sha256).toMatch(/^[0-9a-f]{64}$/);
      const line = SCRIPT.split('\n').find((l) => l.includes(f.sha256));
      expect({ file: f.path, line }).toEqual({ file: f.path, line: expect.stringMatching(/\S/) });
    }
    // The script names the onnx files it writes by the same relative paths.
    expect(SCRIPT).toContain(`INT8_REL="${ONNX_FILES.int8}"`);
    expect(SCRIPT).toContain(`ONNX_REL="${ONNX_FILES.q8}"`);
  });

  test('pins are unique per path, and every provisioned dtype has a pinned file', () => {
    const paths = PINNED_FILES.map((f) => f.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect(paths).toEqual(expect.arrayContaining([ONNX_FILES.int8, ONNX_FILES.q8, 'tokenizer.json', 'config.json']));
  });

  test('dtypes map to their own files; int8 is the default', () => {
    expect(DEFAULT_DTYPE).toBe('int8');
    expect(new Set(MODEL_DTYPES.map(onnxFileName)).size).toBe(MODEL_DTYPES.length);
    expect(isModelDtype('int8')).toBe(true);
    expect(isModelDtype('INT8')).toBe(false);
    expect(isModelDtype(8)).toBe(false);
  });
});
