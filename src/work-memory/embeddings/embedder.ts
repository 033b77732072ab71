/**
 * The embedder behind the index and the checks. MiniLM today; a lexical or
 * remote embedder can slot in behind the same interface.
 */
export interface Embedder {
  /** e.g. "Xenova/all-MiniLM-L6-v2@q8". Stored in the manifest. */
  readonly modelId: string;
  /** Identifies the exact weights (a mismatch forces a rebuild). */
  readonly modelFingerprint: string;
  readonly dimensions: number;
  /** Word pieces per input, beyond which text is truncated. */
  readonly maxTokens: number;
  /** Where the model's session runs (the real model only; --verbose says it). */
  readonly sessionIn?: 'worker' | 'in-process';
  /** Unit-length vectors, one per text, in input order. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Word pieces in `text`, special tokens excluded. */
  countTokens(text: string): number;
  /** Time spent in the model alone, for benchmarks. */
  readonly stats?: { tokens: number; inferenceMs: number };
  /** Releases the model's session (a long-lived process replacing its model). */
  dispose?(): Promise<void>;
}

/** Computed in float64 (JS numbers) whatever array type holds the values. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / (Math.sqrt(na) * Math.sqrt(nb) || 1);
}

/** The dot product (the cosine of unit vectors), in float64. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Scale a vector to unit length in place (a zero vector stays zero). */
export function normalise(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}

/** The normalised mean of vectors: a text of several chunks as a whole. */
export function meanVector(vs: ArrayLike<number>[]): Float32Array {
  const out = new Float32Array(vs[0]?.length ?? 0);
  for (const v of vs) for (let i = 0; i < out.length; i++) out[i] += v[i];
  return normalise(out);
}
