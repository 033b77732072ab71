import type { Embedder } from '../embeddings/embedder.js';

/** Texts per embed call: progress is reported between slices. */
export const EMBED_SLICE = 64;

/**
 * Embed every new chunk of a build together, sorted by length over the whole run
 * (not per file or slice): batches of like lengths pad less. Token counts are cached
 * by the embedder from chunking, so the sort costs a lookup each. Vectors come back
 * in the order of `texts`.
 */
export async function embedAll(
  embedder: Embedder,
  texts: string[],
  onProgress?: (p: { done: number; total: number; tokens: number; totalTokens: number }) => void,
): Promise<Float32Array[]> {
  const vectors = new Array<Float32Array>(texts.length);
  const lengths = texts.map((t) => Math.min(embedder.countTokens(t), embedder.maxTokens - 2) + 2);
  const order = texts.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b]);
  const totalTokens = lengths.reduce((a, b) => a + b, 0);
  let tokensDone = 0;
  onProgress?.({ done: 0, total: texts.length, tokens: 0, totalTokens });
  for (let i = 0; i < order.length; i += EMBED_SLICE) {
    const slice = order.slice(i, i + EMBED_SLICE);
    const out = await embedder.embed(slice.map((j) => texts[j]));
    slice.forEach((j, k) => {
      vectors[j] = out[k];
      tokensDone += lengths[j];
    });
    onProgress?.({
      done: Math.min(i + EMBED_SLICE, texts.length),
      total: texts.length,
      tokens: tokensDone,
      totalTokens,
    });
  }
  return vectors;
}
