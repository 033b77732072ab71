import { existsSync, openSync, readSync, fstatSync, closeSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import path from 'node:path';
import { ModelUnavailableError, UsageError } from '../../shared/errors.js';
import { packageRoot } from '../../shared/package-root.js';
import { AUTO_DTYPES, ONNX_FILES, type ConfiguredDtype, type ModelDtype } from './model-files.js';

export interface ModelLocation {
  /** Folder holding `<owner>/<name>/`; null only for tests that inject their own files. */
  dir: string | null;
  /** Where the setting came from, for messages. */
  source: 'AGENTOS_MODEL_DIR' | 'config model.dir' | 'project .agentos/models' | 'agentos install' | 'user cache';
}

/** What to do when the model is missing: the one line every command prints. */
export const MODEL_FETCH_HINT =
  'run `agentos model fetch` to download it (about 23 MB), or `agentos model fetch --from DIR` to copy it from a folder';

/**
 * Per-user cache: the optimised graph (~90 MB, depends only on the weights,
 * the ONNX Runtime version and the CPU) and `models/` from `agentos model fetch`,
 * so one copy serves every project.
 */
export function modelCacheDir(env: NodeJS.ProcessEnv): string {
  if (env.AGENTOS_CACHE_DIR) return path.resolve(env.AGENTOS_CACHE_DIR);
  const base = env.XDG_CACHE_HOME || path.join(homedir(), '.cache');
  return path.join(base, 'agentos');
}

/** Where `agentos model fetch` puts `<model id>/` by default. */
export function userModelDir(env: NodeJS.ProcessEnv): string {
  return path.join(modelCacheDir(env), 'models');
}

export function onnxFileName(dtype: ModelDtype): string {
  return ONNX_FILES[dtype];
}

export function requiredFiles(dtype: ModelDtype): string[] {
  return ['config.json', 'tokenizer.json', 'tokenizer_config.json', onnxFileName(dtype)];
}

/**
 * Explicit settings win. Without them, a provisioned folder in the project or
 * beside the agentos install, then the user cache that `agentos model fetch`
 * fills. Nothing is downloaded behind the user's back: a missing model is an
 * error that says to run `agentos model fetch`.
 */
export function resolveModelLocation(
  env: NodeJS.ProcessEnv,
  configDir: string | null,
  projectRoot: string,
  modelId: string,
  dtype: ConfiguredDtype,
  cwd: string = process.cwd(),
): ModelLocation {
  const cache = userModelDir(env);
  // An environment variable is relative to where the user typed it; config is relative to the project.
  if (env.AGENTOS_MODEL_DIR) return { dir: path.resolve(cwd, env.AGENTOS_MODEL_DIR), source: 'AGENTOS_MODEL_DIR' };
  if (configDir) return { dir: path.resolve(projectRoot, configDir), source: 'config model.dir' };
  for (const [dir, source] of [
    [path.join(projectRoot, '.agentos', 'models'), 'project .agentos/models'],
    [path.join(packageRoot(), '.agentos', 'models'), 'agentos install'],
    [cache, 'user cache'],
  ] as const) {
    const wanted = dtype === 'auto' ? AUTO_DTYPES : [dtype];
    if (wanted.some((d) => existsSync(path.join(dir, modelId, onnxFileName(d))))) return { dir, source };
  }
  return { dir: cache, source: 'user cache' };
}

/**
 * `auto` (the default) is the int8 model where provisioning built it, else q8
 * (what `agentos model fetch` downloads); a named dtype is taken as named.
 * null: `auto` and no weights present (the caller decides what to name).
 */
export function resolveDtype(loc: ModelLocation, modelId: string, dtype: ConfiguredDtype): ModelDtype | null {
  if (dtype !== 'auto') return dtype;
  if (!loc.dir) return AUTO_DTYPES[0];
  return AUTO_DTYPES.find((d) => existsSync(path.join(loc.dir!, modelId, onnxFileName(d)))) ?? null;
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
      `model not found: ${folder} (from ${loc.source}) is missing ${missing.join(', ')}; ${MODEL_FETCH_HINT}`,
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
