import { existsSync, openSync, readSync, fstatSync, closeSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModelUnavailableError, UsageError } from '../errors.js';
import { ONNX_FILES, type ModelDtype } from './model-files.js';

export interface ModelLocation {
  /** Folder holding `<owner>/<name>/`; null = Transformers.js cache and hub download. */
  dir: string | null;
  /** Where the setting came from, for messages. */
  source: 'AGENTOS_MODEL_DIR' | 'config model.dir' | 'project .agentos/models' | 'agentos install' | 'hub';
}

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function onnxFileName(dtype: ModelDtype): string {
  return ONNX_FILES[dtype];
}

export function requiredFiles(dtype: ModelDtype): string[] {
  return ['config.json', 'tokenizer.json', 'tokenizer_config.json', onnxFileName(dtype)];
}

/**
 * Explicit settings win and are offline-only. Without them, a provisioned
 * folder in the project or beside the agentos install is used; failing that,
 * Transformers.js' own cache and hub download (users with internet).
 */
export function resolveModelLocation(
  env: NodeJS.ProcessEnv,
  configDir: string | null,
  projectRoot: string,
  modelId: string,
  dtype: ModelDtype,
  cwd: string = process.cwd(),
): ModelLocation {
  // An environment variable is relative to where the user typed it; config is relative to the project.
  if (env.AGENTOS_MODEL_DIR) return { dir: path.resolve(cwd, env.AGENTOS_MODEL_DIR), source: 'AGENTOS_MODEL_DIR' };
  if (configDir) return { dir: path.resolve(projectRoot, configDir), source: 'config model.dir' };
  for (const [dir, source] of [
    [path.join(projectRoot, '.agentos', 'models'), 'project .agentos/models'],
    [path.join(PACKAGE_ROOT, '.agentos', 'models'), 'agentos install'],
  ] as const) {
    if (existsSync(path.join(dir, modelId, onnxFileName(dtype)))) return { dir, source };
  }
  return { dir: null, source: 'hub' };
}

/**
 * A folder the user named (config `model.dir`, AGENTOS_MODEL_DIR) that does not
 * exist is a configuration mistake: `index` and `search` stop with exit 2 and the
 * path. (`issue start` keeps failing open: the history check is advisory.)
 */
export function assertExplicitModelDir(loc: ModelLocation): void {
  if (!loc.dir || (loc.source !== 'config model.dir' && loc.source !== 'AGENTOS_MODEL_DIR')) return;
  let isDir = false;
  try {
    isDir = statSync(loc.dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    const where = loc.source === 'config model.dir' ? '.agentos/config.yaml: model.dir' : 'AGENTOS_MODEL_DIR';
    throw new UsageError(`${where}: folder not found: ${loc.dir}`);
  }
}

/** A clear error naming the folder and the files it expected, instead of a stack trace. */
export function assertModelFiles(loc: ModelLocation, modelId: string, dtype: ModelDtype): void {
  if (!loc.dir) return;
  const folder = path.join(loc.dir, modelId);
  const missing = requiredFiles(dtype).filter((f) => !existsSync(path.join(folder, f)));
  if (missing.length) {
    throw new ModelUnavailableError(
      `model not found: ${folder} (from ${loc.source}) is missing ${missing.join(', ')}; run scripts/provision-model.sh or set AGENTOS_MODEL_DIR`,
    );
  }
}

/**
 * A cheap identity for the weights: size plus hashes of the first and last MiB.
 * Different exports differ here; hashing all 23 MB on every query would not pay.
 */
export function fingerprintFile(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const n = Math.min(1 << 20, size);
    const head = Buffer.alloc(n);
    const tail = Buffer.alloc(n);
    readSync(fd, head, 0, n, 0);
    readSync(fd, tail, 0, n, size - n);
    return createHash('sha256').update(String(size)).update(head).update(tail).digest('hex').slice(0, 16);
  } finally {
    closeSync(fd);
  }
}
