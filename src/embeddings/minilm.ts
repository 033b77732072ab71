import path from 'node:path';
import { existsSync } from 'node:fs';
import { ModelUnavailableError, errorMessage } from '../errors.js';
import type { Embedder } from './embedder.js';
import { assertModelFiles, fingerprintFile, onnxFileName, type ModelLocation } from './model-location.js';

/** sentence-transformers truncates all-MiniLM-L6-v2 at 256 word pieces (its tokenizer config says 512). */
export const MAX_TOKENS = 256;
const BATCH_SIZE = 16;

export interface MiniLMOptions {
  modelId: string;
  dtype: 'q8' | 'fp32';
  location: ModelLocation;
}

// Types of the few Transformers.js calls used here; the library is loaded lazily.
interface Tensor {
  data: Float32Array | BigInt64Array;
  dims: number[];
}
type Tokenizer = {
  encode(text: string, opts?: Record<string, unknown>): number[];
};
type TensorCtor = new (type: 'int64', data: BigInt64Array, dims: number[]) => Tensor;
type Model = ((inputs: Record<string, Tensor>) => Promise<{ last_hidden_state: Tensor }>) & { dispose?: () => Promise<void> };

/** all-MiniLM-L6-v2 in-process: mean pooling over the attention mask, L2-normalised. */
export class MiniLMEmbedder implements Embedder {
  readonly dimensions = 384;
  readonly maxTokens = MAX_TOKENS;
  readonly stats = { tokens: 0, inferenceMs: 0 };
  private idCache = new Map<string, number[]>();
  private cls: number;
  private sep: number;

  private constructor(
    readonly modelId: string,
    readonly modelFingerprint: string,
    private tokenizer: Tokenizer,
    private model: Model,
    private TensorClass: TensorCtor,
  ) {
    // The special ids, as the tokenizer itself places them around an empty text.
    const specials = tokenizer.encode('', { add_special_tokens: true });
    this.cls = specials[0];
    this.sep = specials[specials.length - 1];
  }

  static async load(opts: MiniLMOptions): Promise<MiniLMEmbedder> {
    assertModelFiles(opts.location, opts.modelId, opts.dtype);
    const tf = await import('@huggingface/transformers');
    const env = tf.env;
    if (opts.location.dir) {
      env.allowRemoteModels = false;
      env.allowLocalModels = true;
      env.localModelPath = opts.location.dir.endsWith('/') ? opts.location.dir : opts.location.dir + '/';
    }
    let tokenizer: Tokenizer;
    let model: Model;
    try {
      tokenizer = (await tf.AutoTokenizer.from_pretrained(opts.modelId)) as unknown as Tokenizer;
      model = (await tf.AutoModel.from_pretrained(opts.modelId, { dtype: opts.dtype, device: 'cpu' })) as unknown as Model;
    } catch (e) {
      const where = opts.location.dir ? path.join(opts.location.dir, opts.modelId) : `the Hugging Face hub (cache ${env.cacheDir})`;
      throw new ModelUnavailableError(`cannot load model ${opts.modelId} from ${where}: ${errorMessage(e)}`);
    }
    const base = opts.location.dir ?? (typeof env.cacheDir === 'string' ? env.cacheDir : '');
    const file = path.join(base, opts.modelId, onnxFileName(opts.dtype));
    const fingerprint = existsSync(file) ? fingerprintFile(file) : 'unknown';
    return new MiniLMEmbedder(`${opts.modelId}@${opts.dtype}`, fingerprint, tokenizer, model, tf.Tensor as unknown as TensorCtor);
  }

  countTokens(text: string): number {
    return this.ids(text).length;
  }

  /** Word-piece ids without specials, cached: chunking and embedding ask for the same texts. */
  private ids(text: string): number[] {
    let ids = this.idCache.get(text);
    if (ids === undefined) {
      ids = this.tokenizer.encode(text, { add_special_tokens: false });
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
    for (let s = 0; s < rows.length; s += BATCH_SIZE) {
      const batch = rows.slice(s, s + BATCH_SIZE);
      const vectors = await this.embedBatch(batch.map((b) => b.ids));
      batch.forEach((b, j) => (out[b.i] = vectors[j]));
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
    const { last_hidden_state: hidden } = await this.model(inputs);
    this.stats.inferenceMs += performance.now() - t0;
    const dim = hidden.dims[2];
    const data = hidden.data as Float32Array;
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
    await this.model.dispose?.();
  }
}
