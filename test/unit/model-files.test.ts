import { readFileSync } from 'node:fs';
import path from 'node:path';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import {
  DEFAULT_DTYPE,
  MODEL_DTYPES,
  MODEL_FILES as PINNED_FILES,
  ONNX_FILES,
  isConfiguredDtype,
  isModelDtype,
} from '../../src/work-memory/embeddings/model-files.js';
import { onnxFileName, resolveDtype } from '../../src/work-memory/embeddings/model-location.js';

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

  test('dtypes map to their own files; auto is the default', () => {
    expect(DEFAULT_DTYPE).toBe('auto');
    expect(isConfiguredDtype('auto')).toBe(true);
    expect(isModelDtype('auto')).toBe(false);
    expect(new Set(MODEL_DTYPES.map(onnxFileName)).size).toBe(MODEL_DTYPES.length);
    expect(isModelDtype('int8')).toBe(true);
    expect(isModelDtype('INT8')).toBe(false);
    expect(isModelDtype(8)).toBe(false);
  });

  test('auto resolves to int8 where provisioning built it, else q8; a named dtype is taken as named', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'agentos-dtype-'));
    try {
      const id = 'Xenova/all-MiniLM-L6-v2';
      const loc = { dir, source: 'user cache' as const };
      expect(resolveDtype(loc, id, 'auto')).toBeNull(); // nothing there: the caller decides (setup: the index's dtype, else q8)
      mkdirSync(path.join(dir, id, 'onnx'), { recursive: true });
      writeFileSync(path.join(dir, id, ONNX_FILES.q8), 'x');
      expect(resolveDtype(loc, id, 'auto')).toBe('q8');
      writeFileSync(path.join(dir, id, ONNX_FILES.int8), 'x');
      expect(resolveDtype(loc, id, 'auto')).toBe('int8');
      expect(resolveDtype(loc, id, 'fp32')).toBe('fp32');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('only the built int8 file is marked as not on the hub', () => {
    expect(PINNED_FILES.filter((f) => f.built).map((f) => f.path)).toEqual([ONNX_FILES.int8]);
  });
});
