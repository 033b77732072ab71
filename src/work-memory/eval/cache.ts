import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { Embedder } from '../embeddings/embedder.js';

/**
 * An embedder that remembers: vectors keyed by the SHA-1 of the text (and the
 * model fingerprint, in the file name chosen by the caller), appended to one
 * binary file. Re-running an evaluation after a scoring change embeds nothing.
 */
export class CachingEmbedder implements Embedder {
  private readonly cache = new Map<string, Float32Array>();
  hits = 0;
  misses = 0;

  constructor(
    private readonly inner: Embedder,
    private readonly file: string,
  ) {
    if (existsSync(file)) {
      const buf = readFileSync(file);
      const rec = 20 + inner.dimensions * 4;
      for (let o = 0; o + rec <= buf.length; o += rec) {
        const key = buf.subarray(o, o + 20).toString('hex');
        const v = new Float32Array(inner.dimensions);
        for (let i = 0; i < inner.dimensions; i++) v[i] = buf.readFloatLE(o + 20 + i * 4);
        this.cache.set(key, v);
      }
    }
  }

  get modelId() {
    return this.inner.modelId;
  }
  get modelFingerprint() {
    return this.inner.modelFingerprint;
  }
  get dimensions() {
    return this.inner.dimensions;
  }
  get maxTokens() {
    return this.inner.maxTokens;
  }
  get stats() {
    return this.inner.stats;
  }
  countTokens(text: string): number {
    return this.inner.countTokens(text);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const keys = texts.map((t) => createHash('sha1').update(t).digest('hex'));
    const missing = [
      ...new Set(
        keys
          .map((k, i) => (this.cache.has(k) ? -1 : i))
          .filter((i) => i >= 0)
          .map((i) => texts[i]),
      ),
    ];
    this.hits += texts.length - missing.length;
    if (missing.length) {
      this.misses += missing.length;
      const vs = await this.inner.embed(missing);
      const parts: Buffer[] = [];
      missing.forEach((t, i) => {
        const key = createHash('sha1').update(t).digest('hex');
        this.cache.set(key, vs[i]);
        const rec = Buffer.alloc(20 + this.dimensions * 4);
        Buffer.from(key, 'hex').copy(rec);
        vs[i].forEach((x, j) => rec.writeFloatLE(x, 20 + j * 4));
        parts.push(rec);
      });
      appendFileSync(this.file, Buffer.concat(parts));
    }
    return keys.map((k) => this.cache.get(k)!);
  }
}
