import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { ModelUnavailableError, errorMessage } from '../errors.js';
import type { Embedder } from './embedder.js';
import type { ModelDtype } from './model-files.js';
import { assertModelFiles, fingerprintFile, MODEL_FETCH_HINT, onnxFileName, type ModelLocation } from './model-location.js';

/** sentence-transformers truncates all-MiniLM-L6-v2 at 256 word pieces (its tokenizer config says 512). */
export const MAX_TOKENS = 256;
const BATCH_SIZE = 16;
/**
 * At most this many padded tokens per session.run: a batch of 16 texts of 256
 * word pieces holds 16 x 12 heads x 256 x 256 attention scores (50 MB per
 * tensor, several alive at once, and the arena keeps its high-water mark).
 * Long texts therefore go in smaller batches; short ones still 16 at a time.
 */
const BATCH_TOKENS = 2048;

export interface MiniLMOptions {
  modelId: string;
  dtype: ModelDtype;
  location: ModelLocation;
  /** Where the optimised graph is cached (e.g. `~/.cache/agentos`); null disables the cache. */
  cacheDir?: string | null;
  /**
   * ONNX Runtime's memory arena: ~1.2-1.35x faster inference over many batches
   * (index), more resident memory. Off for a one-brief check, where memory counts.
   */
  memoryArena?: boolean;
  /** The weights' fingerprint when the caller has computed it already (modelSetup). */
  fingerprint?: string;
}

interface Tensor {
  data: Float32Array;
  dims: readonly number[];
}
interface Session {
  run(feeds: Record<string, unknown>): Promise<Record<string, Tensor>>;
  release?: () => Promise<void>;
}
type TensorCtor = new (type: 'int64', data: BigInt64Array, dims: number[]) => unknown;
interface Tokenizer {
  encode(text: string, opts?: { add_special_tokens?: boolean }): { ids: number[] };
}

/**
 * all-MiniLM-L6-v2 in-process: mean pooling over the attention mask, L2-normalised.
 * The tokenizer (@huggingface/tokenizers) and ONNX Runtime are driven directly:
 * importing all of Transformers.js and optimising the graph on every start cost
 * ~350 ms of a cold `issue start` (docs/benchmarks.md).
 */
export class MiniLMEmbedder implements Embedder {
  readonly dimensions = 384;
  readonly maxTokens = MAX_TOKENS;
  readonly stats = { tokens: 0, inferenceMs: 0 };
  private idCache = new Map<string, number[]>();
  private cls: number;
  private sep: number;
  /**
   * Rows per session.run. The int8 model quantizes activations per tensor at run
   * time, over the whole batch, padding included: a text's vector would then
   * depend on its neighbours (cosine to its own single run fell to 0.987 in a
   * mixed batch, and "ok" beside long texts fell under 0.99 against
   * sentence-transformers). So int8 runs one text at a time, as its fidelity
   * check does; it also pads nothing.
   */
  private maxRows: number;

  private constructor(
    readonly modelId: string,
    readonly modelFingerprint: string,
    private tokenizer: Tokenizer,
    private session: Session,
    private TensorClass: TensorCtor,
    dtype: ModelDtype,
  ) {
    this.maxRows = dtype === 'int8' ? 1 : BATCH_SIZE;
    // The special ids, as the tokenizer itself places them around an empty text.
    const specials = tokenizer.encode('', { add_special_tokens: true }).ids;
    this.cls = specials[0];
    this.sep = specials[specials.length - 1];
  }

  static async load(opts: MiniLMOptions): Promise<MiniLMEmbedder> {
    // ONNX Runtime's telemetry (1DS) leaves an empty $TMPDIR/mat-debug-<pid>.log on every run;
    // ORT_DISABLE_TELEMETRY, read when the native library loads, turns it off (a user's own value wins).
    process.env.ORT_DISABLE_TELEMETRY ??= '1';
    assertModelFiles(opts.location, opts.modelId, opts.dtype);
    if (!opts.location.dir) throw new ModelUnavailableError(`model not found: ${MODEL_FETCH_HINT}`);
    const folder = path.join(opts.location.dir, opts.modelId);
    const onnxFile = path.join(folder, onnxFileName(opts.dtype));
    const fingerprint = opts.fingerprint ?? (existsSync(onnxFile) ? fingerprintFile(onnxFile) : 'unknown');
    try {
      const [{ Tokenizer }, ort] = await Promise.all([import('@huggingface/tokenizers'), import('onnxruntime-node')]);
      const [tokenizerJson, tokenizerConfig] = await Promise.all([
        readFile(path.join(folder, 'tokenizer.json'), 'utf8').then(JSON.parse),
        readFile(path.join(folder, 'tokenizer_config.json'), 'utf8').then(JSON.parse),
      ]);
      const tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig) as unknown as Tokenizer;
      const session = await createSession(ort, onnxFile, fingerprint, opts.cacheDir ?? null, opts.memoryArena ?? false);
      return new MiniLMEmbedder(`${opts.modelId}@${opts.dtype}`, fingerprint, tokenizer, session as unknown as Session, ort.Tensor as unknown as TensorCtor, opts.dtype);
    } catch (e) {
      if (isMissingRuntime(e)) throw new ModelUnavailableError(RUNTIME_MISSING);
      throw new ModelUnavailableError(`cannot load model ${opts.modelId} from ${folder}: ${errorMessage(e)}`);
    }
  }

  countTokens(text: string): number {
    return this.ids(text).length;
  }

  /** Word-piece ids without specials, cached: chunking and embedding ask for the same texts. */
  private ids(text: string): number[] {
    let ids = this.idCache.get(text);
    if (ids === undefined) {
      ids = this.tokenizer.encode(text, { add_special_tokens: false }).ids;
      if (this.idCache.size > 20_000) this.idCache.clear();
      this.idCache.set(text, ids);
    }
    return ids;
  }

  /**
   * [CLS] + at most 254 word pieces + [SEP], as sentence-transformers truncates.
   * (Transformers.js' `max_length` cuts after [SEP] is added and loses it.)
   */
  private inputIds(text: string): number[] {
    const ids = this.ids(text);
    const body = ids.length > MAX_TOKENS - 2 ? ids.slice(0, MAX_TOKENS - 2) : ids;
    return [this.cls, ...body, this.sep];
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out = new Array<Float32Array>(texts.length);
    // Length-sorted batches: padding to the longest of similar lengths wastes little.
    const rows = texts.map((t, i) => ({ i, ids: this.inputIds(t) })).sort((a, b) => a.ids.length - b.ids.length);
    for (let s = 0; s < rows.length; ) {
      // Sorted ascending, so the last row of a batch is its longest: grow while it fits the budget.
      let e = s + 1;
      while (e < rows.length && e - s < this.maxRows && (e - s + 1) * rows[e].ids.length <= BATCH_TOKENS) e++;
      const batch = rows.slice(s, e);
      const vectors = await this.embedBatch(batch.map((b) => b.ids));
      batch.forEach((b, j) => (out[b.i] = vectors[j]));
      s = e;
    }
    return out;
  }

  private async embedBatch(rows: number[][]): Promise<Float32Array[]> {
    const batch = rows.length;
    const seq = Math.max(...rows.map((r) => r.length));
    const ids = new BigInt64Array(batch * seq);
    const mask = new BigInt64Array(batch * seq);
    rows.forEach((r, b) => {
      for (let t = 0; t < r.length; t++) {
        ids[b * seq + t] = BigInt(r[t]);
        mask[b * seq + t] = 1n;
      }
    });
    const T = this.TensorClass;
    const inputs = {
      input_ids: new T('int64', ids, [batch, seq]),
      attention_mask: new T('int64', mask, [batch, seq]),
      token_type_ids: new T('int64', new BigInt64Array(batch * seq), [batch, seq]),
    };
    const t0 = performance.now();
    const { last_hidden_state: hidden } = await this.session.run(inputs);
    this.stats.inferenceMs += performance.now() - t0;
    const dim = hidden.dims[2];
    const data = hidden.data;
    const vectors: Float32Array[] = [];
    for (let b = 0; b < batch; b++) {
      const v = new Float32Array(dim);
      const count = rows[b].length;
      for (let t = 0; t < count; t++) {
        const off = (b * seq + t) * dim;
        for (let d = 0; d < dim; d++) v[d] += data[off + d];
      }
      this.stats.tokens += count;
      let norm = 0;
      for (let d = 0; d < dim; d++) {
        v[d] /= count;
        norm += v[d] * v[d];
      }
      norm = Math.sqrt(norm) || 1;
      for (let d = 0; d < dim; d++) v[d] /= norm;
      vectors.push(v);
    }
    return vectors;
  }

  async dispose(): Promise<void> {
    await this.session.release?.();
  }
}

/**
 * onnxruntime-node is an optional dependency: offline, its install script (which
 * fetches CUDA libraries on Linux x64) fails and npm leaves it out rather than
 * failing the whole install. Installed without that script, it works on the CPU.
 */
export const RUNTIME_MISSING =
  'ONNX Runtime is not installed (npm skips it when its install script cannot download its CUDA extras, e.g. offline): run `npm install onnxruntime-node@1.30.0 --onnxruntime-node-install=skip` where agentos is installed';

function isMissingRuntime(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return (err?.code === 'ERR_MODULE_NOT_FOUND' || err?.code === 'MODULE_NOT_FOUND') && /onnxruntime-node/.test(err.message ?? '');
}

type Ort = typeof import('onnxruntime-node');

/**
 * Graph optimisation takes ~200 ms per session. Do it once per (weights, ORT
 * version, CPU arch), save the result (portable "extended" level), and open the
 * saved graph with optimisation off afterwards. Written by temp + rename; a
 * cache that fails to load is deleted and rebuilt.
 */
async function createSession(ort: Ort, onnxFile: string, fingerprint: string, cacheDir: string | null, memoryArena: boolean) {
  // Intra-op threads from the cores this process may use (affinity, cgroups), not ORT's guess.
  const base = { executionProviders: ['cpu'], enableCpuMemArena: memoryArena, intraOpNumThreads: availableParallelism(), interOpNumThreads: 1 };
  if (!cacheDir || fingerprint === 'unknown') return ort.InferenceSession.create(onnxFile, { ...base, graphOptimizationLevel: 'all' });
  const cached = path.join(cacheDir, `minilm-${fingerprint}-ort${ortVersion()}-${process.arch}.onnx`);
  if (existsSync(cached)) {
    try {
      return await ort.InferenceSession.create(cached, { ...base, graphOptimizationLevel: 'disabled' });
    } catch {
      await rm(cached, { force: true });
    }
  }
  try {
    await mkdir(cacheDir, { recursive: true });
    const tmp = `${cached}.tmp-${process.pid}`;
    const session = await ort.InferenceSession.create(onnxFile, { ...base, graphOptimizationLevel: 'extended', optimizedModelFilePath: tmp });
    await rename(tmp, cached).catch(() => rm(tmp, { force: true }));
    return session;
  } catch {
    return ort.InferenceSession.create(onnxFile, { ...base, graphOptimizationLevel: 'all' });
  }
}

function ortVersion(): string {
  try {
    return (createRequire(import.meta.url)('onnxruntime-node/package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
