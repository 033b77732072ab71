import { existsSync } from 'node:fs';
import path from 'node:path';
import { ModelUnavailableError, errorMessage } from '../../shared/errors.js';
import type { Embedder } from './embedder.js';
import type { ModelDtype } from './model-files.js';
import {
  assertModelFiles,
  fingerprintFile,
  MODEL_FETCH_HINT,
  onnxFileName,
  type ModelLocation,
} from './model-location.js';
import { isMissingRuntime, openRowRunner, RUNTIME_MISSING, type RowRunner, type SessionSpec } from './onnx-session.js';
import { loadTokenizer, type Tokenizer } from './tokenizer.js';
import type { StartedWorker } from './worker-runner.js';

export { RUNTIME_MISSING };

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
  /** Intra-op threads spin between runs (onnx-session.ts SessionSpec): for an index's batches, not a check's few runs. */
  spinning?: boolean;
  /** The weights' fingerprint when the caller has computed it already (modelSetup). */
  fingerprint?: string;
  /** The inference worker started for this run, when there is one and no load took it yet: the session loads there. */
  worker?: StartedWorker | null;
}

/**
 * all-MiniLM-L6-v2 in-process: mean pooling over the attention mask, L2-normalised.
 * The tokenizer (@huggingface/tokenizers) and ONNX Runtime are driven directly:
 * importing all of Transformers.js and optimising the graph on every start cost
 * ~350 ms of a cold `issue start` (docs/benchmarks.md). The session itself sits
 * behind a RowRunner (src/work-memory/embeddings/onnx-session.ts).
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
    private runner: RowRunner,
    dtype: ModelDtype,
  ) {
    this.maxRows = dtype === 'int8' ? 1 : BATCH_SIZE;
    // The special ids, as the tokenizer itself places them around an empty text.
    const specials = tokenizer.encode('', { add_special_tokens: true }).ids;
    this.cls = specials[0];
    this.sep = specials[specials.length - 1];
  }

  static async load(opts: MiniLMOptions): Promise<MiniLMEmbedder> {
    assertModelFiles(opts.location, opts.modelId, opts.dtype);
    if (!opts.location.dir) throw new ModelUnavailableError(`model not found: ${MODEL_FETCH_HINT}`);
    const folder = path.join(opts.location.dir, opts.modelId);
    const onnxFile = path.join(folder, onnxFileName(opts.dtype));
    const fingerprint = opts.fingerprint ?? (existsSync(onnxFile) ? fingerprintFile(onnxFile) : 'unknown');
    const spec: SessionSpec = {
      onnxFile,
      fingerprint,
      cacheDir: opts.cacheDir ?? null,
      memoryArena: opts.memoryArena ?? false,
      spinning: opts.spinning ?? false,
    };
    try {
      // The session and the tokenizer load side by side (truly so when the session loads in the worker).
      const [runner, { tokenizer }] = await Promise.all([
        openRunner(spec, opts.worker ?? null),
        loadTokenizer(folder, { cacheDir: opts.cacheDir ?? null }),
      ]);
      return new MiniLMEmbedder(`${opts.modelId}@${opts.dtype}`, fingerprint, tokenizer, runner, opts.dtype);
    } catch (e) {
      if (isMissingRuntime(e)) throw new ModelUnavailableError(RUNTIME_MISSING);
      throw new ModelUnavailableError(`cannot load model ${opts.modelId} from ${folder}: ${errorMessage(e)}`);
    }
  }

  get sessionIn(): 'worker' | 'in-process' {
    return this.runner.where;
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
    const t0 = performance.now();
    const vectors = await this.runner.run(rows.map((r) => Int32Array.from(r)));
    this.stats.inferenceMs += performance.now() - t0;
    for (const r of rows) this.stats.tokens += r.length;
    return vectors;
  }

  async dispose(): Promise<void> {
    await this.runner.release();
  }
}

/**
 * In the worker bin/agentos.js started for this line, if this load was handed it (a
 * brief's check); else here, in-process (index, tests, other commands). A
 * worker that fails to load for a reason of its own falls back to in-process,
 * which then reports the real problem, if any.
 */
async function openRunner(spec: SessionSpec, worker: StartedWorker | null): Promise<RowRunner> {
  if (!worker) return openRowRunner(spec);
  const { openWorkerRunner, WorkerLoadError } = await import('./worker-runner.js');
  try {
    return await openWorkerRunner(worker, spec);
  } catch (e) {
    if (e instanceof WorkerLoadError && isMissingRuntime(e)) throw e;
    return openRowRunner(spec);
  }
}
