/**
 * An embedder that remembers its last vectors in memory (the eval's file-backed one is eval/cache.ts), for a long-lived process (the MCP
 * server): an agent checks the same brief again and again while it works, and the
 * model's ~50 ms is most of a warm check. A vector is a pure function of the text
 * and the weights, and a cache belongs to one embedder (a new model, a new cache),
 * so nothing it answers can be stale.
 */
import { createHash } from 'node:crypto';
import type { Embedder } from './embedder.js';

/** Texts kept (384 floats each: 1.5 KB; 512 texts ≈ 0.8 MB). */
export const EMBED_CACHE_SIZE = 512;

export function lruEmbedder(
  inner: Embedder,
  size = EMBED_CACHE_SIZE,
): Embedder & { readonly cacheStats: { hits: number; misses: number } } {
  // Map keeps insertion order: re-inserting on a hit makes it least recently used last.
  const cache = new Map<string, Float32Array>();
  const cacheStats = { hits: 0, misses: 0 };
  const key = (text: string) => createHash('sha1').update(text).digest('base64');
  return {
    get modelId() {
      return inner.modelId;
    },
    get modelFingerprint() {
      return inner.modelFingerprint;
    },
    get dimensions() {
      return inner.dimensions;
    },
    get maxTokens() {
      return inner.maxTokens;
    },
    get stats() {
      return inner.stats;
    },
    countTokens: (text) => inner.countTokens(text),
    dispose: inner.dispose ? () => inner.dispose!() : undefined,
    cacheStats,
    async embed(texts: string[]): Promise<Float32Array[]> {
      const keys = texts.map(key);
      // What the cache holds now, taken before any await: another call may evict it while the model runs.
      const found = new Map<string, Float32Array>();
      for (const k of keys) {
        const v = cache.get(k);
        if (v) found.set(k, v);
      }
      const missing = [...new Set(keys.filter((k) => !found.has(k)))];
      cacheStats.hits += keys.filter((k) => found.has(k)).length;
      cacheStats.misses += missing.length;
      if (missing.length > 0) {
        const fresh = await inner.embed(missing.map((k) => texts[keys.indexOf(k)]));
        missing.forEach((k, i) => found.set(k, fresh[i]));
      }
      for (const [k, v] of found) {
        cache.delete(k); // re-inserted: now the most recently used
        cache.set(k, v);
      }
      while (cache.size > size) cache.delete(cache.keys().next().value as string);
      // Copies: a caller that normalises or edits its vector in place must not change the cache.
      return keys.map((k) => new Float32Array(found.get(k)!));
    },
  };
}
