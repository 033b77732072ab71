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
  /** Unit-length vectors, one per text, in input order. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Word pieces in `text`, special tokens excluded. */
  countTokens(text: string): number;
  /** Time spent in the model alone, for benchmarks. */
  readonly stats?: { tokens: number; inferenceMs: number };
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
