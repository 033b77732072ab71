import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable, Transform } from 'node:stream';
import { ModelUnavailableError, errorMessage } from '../../shared/errors.js';
import { filesFor, MODEL_REPO, type ModelDtype, type ModelFile } from './model-files.js';

/** The hub, or a stand-in (a mirror, or the test's local server). `HF_ENDPOINT` is the hub clients' own variable. */
export function hubBaseUrl(env: NodeJS.ProcessEnv): string {
  return (env.AGENTOS_HUB_URL || env.HF_ENDPOINT || 'https://huggingface.co').replace(/\/+$/, '');
}

export interface FetchProgress {
  file: string;
  /** Bytes of all files to transfer, and how many are done. */
  doneBytes: number;
  totalBytes: number;
}

export interface FetchOptions {
  modelId: string;
  dtype: ModelDtype;
  /** Folder that will hold `<model id>/`. */
  dest: string;
  files?: readonly ModelFile[];
  onProgress?: (p: FetchProgress) => void;
}

export interface FetchReport {
  folder: string;
  fetched: string[];
  /** Already in place with the right SHA-256. */
  kept: string[];
  bytes: number;
}

/** SHA-256 of a file, streamed (the ONNX file is 23 MB). */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

async function hasPinned(file: string, f: ModelFile): Promise<boolean> {
  try {
    if ((await stat(file)).size !== f.bytes) return false;
    return (await sha256File(file)) === f.sha256;
  } catch {
    return false;
  }
}

/**
 * Write `source` to `dest` through a temp file, hashing on the way; the file is
 * moved into place only when size and SHA-256 match the pin, so a cut download
 * or a tampered mirror never leaves a file that looks installed.
 */
async function installVerified(
  source: Readable,
  dest: string,
  f: ModelFile,
  origin: string,
  onBytes: (n: number) => void,
): Promise<void> {
  await mkdir(path.dirname(dest), { recursive: true });
  const tmp = `${dest}.tmp-${process.pid}`;
  const hash = createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      size += chunk.length;
      onBytes(chunk.length);
      cb(null, chunk);
    },
  });
  try {
    await pipeline(source, tap, createWriteStream(tmp));
    const got = hash.digest('hex');
    if (size !== f.bytes || got !== f.sha256) {
      throw new ModelUnavailableError(
        `${f.path} from ${origin} does not match its pin (sha256 ${got.slice(0, 12)}…, ${size} bytes; expected ${f.sha256.slice(0, 12)}…, ${f.bytes} bytes): not installed`,
      );
    }
    await rename(tmp, dest);
  } finally {
    await rm(tmp, { force: true });
  }
}

async function fetchFiles(
  opts: FetchOptions,
  open: (f: ModelFile) => Promise<{ body: Readable; origin: string }>,
): Promise<FetchReport> {
  const folder = path.join(opts.dest, opts.modelId);
  const files = filesFor(opts.dtype, opts.files);
  if (!files.some((f) => f.path.endsWith('.onnx')))
    throw new ModelUnavailableError(`no pinned weights for dtype ${opts.dtype}: use dtype q8`);
  const report: FetchReport = { folder, fetched: [], kept: [], bytes: 0 };
  const todo: ModelFile[] = [];
  for (const f of files) {
    if (await hasPinned(path.join(folder, f.path), f)) report.kept.push(f.path);
    else todo.push(f);
  }
  const totalBytes = todo.reduce((n, f) => n + f.bytes, 0);
  let doneBytes = 0;
  for (const f of todo) {
    const { body, origin } = await open(f);
    opts.onProgress?.({ file: f.path, doneBytes, totalBytes });
    await installVerified(body, path.join(folder, f.path), f, origin, (n) => {
      doneBytes += n;
      opts.onProgress?.({ file: f.path, doneBytes, totalBytes });
    });
    report.fetched.push(f.path);
    report.bytes += f.bytes;
  }
  return report;
}

/** Download the pinned files from the hub (or `AGENTOS_HUB_URL`), checking each SHA-256. */
export async function fetchFromHub(
  env: NodeJS.ProcessEnv,
  opts: FetchOptions,
  fetchImpl: typeof fetch = fetch,
): Promise<FetchReport> {
  const base = hubBaseUrl(env);
  return fetchFiles(opts, async (f) => {
    if (f.built) {
      throw new ModelUnavailableError(
        `${f.path} is not on the hub: it is built from pinned inputs by scripts/provision-model.sh (Python 3) in an agentos checkout; use \`model.dtype: auto\` or \`q8\`, or \`agentos model fetch --from DIR\` from a machine that built it`,
      );
    }
    const url = `${base}/${opts.modelId}/resolve/${MODEL_REPO.revision}/${f.path}`;
    let res: Response;
    try {
      res = await fetchImpl(url, { redirect: 'follow' });
    } catch (e) {
      const cause = (e as { cause?: unknown }).cause;
      throw new ModelUnavailableError(
        `cannot reach ${base} (${errorMessage(cause ?? e)}): connect to the internet and run \`agentos model fetch\` again, or copy the model from a machine that has it with \`agentos model fetch --from DIR\``,
      );
    }
    if (!res.ok || !res.body)
      throw new ModelUnavailableError(
        `${url}: HTTP ${res.status}; the model could not be downloaded (try \`agentos model fetch --from DIR\`)`,
      );
    return { body: Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), origin: url };
  });
}

/**
 * Copy the pinned files from a local folder: either the folder holding
 * `<model id>/` (like AGENTOS_MODEL_DIR) or the model folder itself.
 */
export async function copyFromDir(from: string, opts: FetchOptions): Promise<FetchReport> {
  const candidates = [path.join(from, opts.modelId), from];
  const src = candidates.find((d) => existsSync(path.join(d, 'tokenizer.json')));
  if (!src)
    throw new ModelUnavailableError(
      `${from}: holds neither ${opts.modelId}/ nor tokenizer.json; point --from at a folder with the model files`,
    );
  if (path.resolve(src) === path.resolve(opts.dest, opts.modelId))
    throw new ModelUnavailableError(`${from}: is the destination itself`);
  return fetchFiles(opts, async (f) => {
    const file = path.join(src, f.path);
    if (!existsSync(file)) throw new ModelUnavailableError(`${file}: missing (the model needs ${f.path})`);
    return { body: createReadStream(file), origin: file };
  });
}
