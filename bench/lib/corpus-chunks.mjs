// The chunk texts agentos would embed for a corpus: the same scan, metadata
// extraction and chunking calls as src/work-memory/index/build.ts, with the real tokenizer.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DIST, dist } from './common.mjs';

/** A private constant of a compiled module, read from its source (falls back when renamed). */
export function distConstant(rel, name, fallback) {
  try {
    const m = new RegExp(`const ${name}\\s*=\\s*(\\d[\\d_]*)`).exec(readFileSync(path.join(DIST, rel), 'utf8'));
    return m ? Number(m[1].replace(/_/g, '')) : fallback;
  } catch {
    return fallback;
  }
}

/** Every chunk's embed text, in corpus order, and how long chunking (incl. tokenization) took. */
export async function corpusChunkTexts(root, countTokens, maxTokens) {
  const [{ loadConfig }, { scanCorpus }, { readTextFile }, { extractMetadata }, { chunkMarkdown }] = await Promise.all([
    dist('shared/config/load.js'),
    dist('work-memory/corpus/scan.js'),
    dist('work-memory/corpus/read.js'),
    dist('work-memory/corpus/metadata.js'),
    dist('work-memory/chunks/chunk.js'),
  ]);
  const { config } = await loadConfig(root);
  const scan = await scanCorpus(root, config.corpus, true);
  const texts = [];
  let chunkMs = 0;
  for (const f of scan.files) {
    const read = await readTextFile(f.absPath, config.corpus.maxFileBytes);
    if (!read.ok) continue;
    const t0 = performance.now();
    const { metadata, body } = extractMetadata(f.relPath, read.text, f.types, read.hash);
    const chunks = chunkMarkdown(body, metadata.title, { maxTokens: maxTokens - 2, minTokens: 24, countTokens });
    chunkMs += performance.now() - t0;
    for (const c of chunks) texts.push(c.embedText);
  }
  return { texts, docs: scan.files.length, chunkMs };
}

/** Every k-th element so a sample spans the whole corpus (short and long chunks alike). */
export function strideSample(arr, n) {
  if (arr.length <= n) return [...arr];
  const step = arr.length / n;
  return Array.from({ length: n }, (_, i) => arr[Math.floor(i * step)]);
}
