// Peer: plain Transformers.js (its feature-extraction pipeline, mean pooling,
// normalize) on the same model folder and the same chunk texts as agentos's
// embedder, in one process, interleaved. What a user of Transformers.js would
// get: the pipeline's default dtype for this model is q8 (model_quantized.onnx);
// --tf-dtype int8 runs it on the int8 file instead.
//
// Usage: node bench/tfjs-peer.mjs --corpus <dir> [--texts 128] [--runs 3] [--tf-dtype q8]
// Prints one JSON line: µs per token (real tokens) for each side, per run, and the ratio.
import { MODEL_DIR, MODEL_ID, dist, ortCacheDir, summarize } from './lib/common.mjs';
import { corpusChunkTexts, distConstant, strideSample } from './lib/corpus-chunks.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const root = arg('corpus', '.');
const nTexts = Number(arg('texts', 128));
const runs = Number(arg('runs', 3));
const tfDtype = arg('tf-dtype', 'q8');
const agentosDtype = arg('dtype', 'int8');
const EMBED_SLICE = distConstant('work-memory/index/embed-schedule.js', 'EMBED_SLICE', 64);

const { MiniLMEmbedder } = await dist('work-memory/embeddings/minilm.js');
const embedder = await MiniLMEmbedder.load({
  modelId: MODEL_ID,
  dtype: agentosDtype,
  location: { dir: MODEL_DIR, source: 'AGENTOS_MODEL_DIR' },
  cacheDir: await ortCacheDir(root),
  memoryArena: true, // as `index` loads it
  spinning: true,
});
const all = await corpusChunkTexts(root, (t) => embedder.countTokens(t), embedder.maxTokens);
const texts = strideSample(all.texts, nTexts);
const slices = [];
for (let i = 0; i < texts.length; i += EMBED_SLICE) slices.push(texts.slice(i, i + EMBED_SLICE));

const tf = await import('@huggingface/transformers');
tf.env.allowRemoteModels = false;
tf.env.allowLocalModels = true;
tf.env.localModelPath = MODEL_DIR.endsWith('/') ? MODEL_DIR : `${MODEL_DIR}/`;
const extractor = await tf.pipeline('feature-extraction', MODEL_ID, { dtype: tfDtype, device: 'cpu' });

// Both sides see the same texts (chunked to <= 256 word pieces, so the pipeline's 512 cut never applies).
const realTokens = texts.reduce((n, t) => n + Math.min(embedder.countTokens(t), embedder.maxTokens - 2) + 2, 0);
const passAgentos = async () => {
  const t = performance.now();
  for (const s of slices) await embedder.embed(s);
  return performance.now() - t;
};
const passTf = async () => {
  const t = performance.now();
  for (const s of slices) await extractor(s, { pooling: 'mean', normalize: true });
  return performance.now() - t;
};
// Same answers? (cosine of the first text's vectors; q8 vs int8 differ slightly)
const a = (await embedder.embed([texts[0]]))[0];
const b = (await extractor([texts[0]], { pooling: 'mean', normalize: true })).tolist()[0];
const agreement = a.reduce((s, x, i) => s + x * b[i], 0);
await passAgentos();
await passTf(); // warm-up
const ag = [];
const tfm = [];
for (let r = 0; r < runs; r++) {
  // Alternate who goes first: a busy machine drifts.
  if (r % 2 === 0) {
    ag.push(await passAgentos());
    tfm.push(await passTf());
  } else {
    tfm.push(await passTf());
    ag.push(await passAgentos());
  }
}
const us = (ms) => (ms * 1000) / realTokens;
const sa = summarize(ag.map(us));
const st = summarize(tfm.map(us));
console.log(
  JSON.stringify({
    texts: texts.length,
    realTokens,
    agentos: { dtype: agentosDtype, usPerToken: sa, samples: ag.map(us) },
    transformersjs: { dtype: tfDtype, usPerToken: st, samples: tfm.map(us) },
    speedupMedian: st.median / sa.median,
    firstTextCosine: agreement,
  }),
);
await embedder.dispose();
