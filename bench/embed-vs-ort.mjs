#!/usr/bin/env node
// Embedding cost per token: agentos' MiniLMEmbedder.embed against ONNX Runtime
// driven directly on the same model file with the same token batches.
//
//   node bench/embed-vs-ort.mjs --corpus <root> [--texts 128] [--runs 3] [--warmup 1]
//
// Texts are chunk texts of the corpus (a stride sample, so short and long chunks
// both appear), fed in the slices src/work-memory/index/build.ts uses (EMBED_SLICE). The ORT
// side tokenizes with Transformers.js' AutoTokenizer from the provisioned folder,
// builds the batches the embedder builds (length-sorted per slice, BATCH_SIZE rows,
// [CLS] + <=254 pieces + [SEP]), and times InferenceSession.run only, with ORT's
// default session options. The embedder's own session.run calls are recorded and
// compared with these batches, so "same tokens, same batches" is checked, not assumed.
// Prints a result line for bench/run.mjs (and a short summary on stderr).
import path from 'node:path';
import { MODEL_DIR, MODEL_ID, ONNX_FILE, dist, emitResult, ortCacheDir, summarize } from './lib/common.mjs';
import { corpusChunkTexts, distConstant, strideSample } from './lib/corpus-chunks.mjs';

const MAX_TOKENS = 256;

function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
}

const root = path.resolve(arg('corpus', '.'));
const nTexts = Number(arg('texts', 128));
const runs = Number(arg('runs', 3));
const warmup = Number(arg('warmup', 1));
// --variants: also time ORT sessions with the embedder's non-default options, to see which one costs.
const withVariants = process.argv.includes('--variants');
const EMBED_SLICE = distConstant('work-memory/index/embed-schedule.js', 'EMBED_SLICE', 64);
const BATCH_SIZE = distConstant('work-memory/embeddings/minilm.js', 'BATCH_SIZE', 16);

// 1. The pipeline, loaded as `issue start` / `index` load it.
const { MiniLMEmbedder } = await dist('work-memory/embeddings/minilm.js');
let t0 = performance.now();
const embedder = await MiniLMEmbedder.load({
  modelId: MODEL_ID,
  dtype: 'int8',
  location: { dir: MODEL_DIR, source: 'AGENTOS_MODEL_DIR' },
  cacheDir: await ortCacheDir(root),
  // As `index` loads it (threads spin between batches), like the plain ONNX Runtime session it is compared with.
  spinning: true,
});
const embedderLoadMs = performance.now() - t0;

// Record what the embedder feeds ONNX Runtime (session.run, or a Transformers.js model call).
const recorded = [];
let recording = true;
const record = (feeds) => {
  if (!recording) return;
  const ids = feeds.input_ids;
  recorded.push({ dims: [...(ids.dims ?? [])], data: ids.data ?? ids.cpuData });
};
if (embedder.session && typeof embedder.session.run === 'function') {
  const s = embedder.session;
  const run = s.run.bind(s);
  s.run = (feeds, ...rest) => (record(feeds), run(feeds, ...rest));
} else if (typeof embedder.model === 'function') {
  const m = embedder.model;
  embedder.model = (feeds, ...rest) => (record(feeds), m(feeds, ...rest));
}

// 2. Texts: chunking the corpus with the embedder's tokenizer (as `index` does).
const all = await corpusChunkTexts(root, (t) => embedder.countTokens(t), embedder.maxTokens ?? MAX_TOKENS);
const texts = strideSample(all.texts, nTexts);
const slices = [];
for (let i = 0; i < texts.length; i += EMBED_SLICE) slices.push(texts.slice(i, i + EMBED_SLICE));

async function pipelinePass() {
  const tokens0 = embedder.stats?.tokens ?? 0;
  const inf0 = embedder.stats?.inferenceMs ?? 0;
  const t = performance.now();
  for (const s of slices) await embedder.embed(s);
  return {
    ms: performance.now() - t,
    tokens: (embedder.stats?.tokens ?? 0) - tokens0,
    inferenceMs: (embedder.stats?.inferenceMs ?? 0) - inf0,
  };
}

// First pass: warms the embedder and records its batches.
const firstPipeline = await pipelinePass();
recording = false;

// 3. Pure ORT: Transformers.js' tokenizer, the same batching, a default session.
const tf = await import('@huggingface/transformers');
tf.env.allowRemoteModels = false;
tf.env.allowLocalModels = true;
tf.env.localModelPath = MODEL_DIR.endsWith('/') ? MODEL_DIR : `${MODEL_DIR}/`;
const tokenizer = await tf.AutoTokenizer.from_pretrained(MODEL_ID);
const specials = tokenizer.encode('', { add_special_tokens: true });
const [cls, sep] = [specials[0], specials[specials.length - 1]];
t0 = performance.now();
let tokenizedPieces = 0;
const idsOf = texts.map((t) => {
  const ids = tokenizer.encode(t, { add_special_tokens: false });
  tokenizedPieces += ids.length;
  return [cls, ...ids.slice(0, MAX_TOKENS - 2), sep];
});
const autoTokenizerMs = performance.now() - t0;

const ort = await import('onnxruntime-node');
t0 = performance.now();
const session = await ort.InferenceSession.create(ONNX_FILE);
const ortSessionCreateMs = performance.now() - t0;

const batches = [];
let realTokens = 0;
let paddedTokens = 0;
for (let s = 0; s < texts.length; s += EMBED_SLICE) {
  const rows = idsOf
    .slice(s, s + EMBED_SLICE)
    .map((ids) => ids)
    .sort((a, b) => a.length - b.length);
  for (let b = 0; b < rows.length; b += BATCH_SIZE) {
    const batch = rows.slice(b, b + BATCH_SIZE);
    const seq = Math.max(...batch.map((r) => r.length));
    const n = batch.length * seq;
    const ids = new BigInt64Array(n);
    const mask = new BigInt64Array(n);
    batch.forEach((r, i) => {
      for (let t = 0; t < r.length; t++) {
        ids[i * seq + t] = BigInt(r[t]);
        mask[i * seq + t] = 1n;
      }
      realTokens += r.length;
    });
    paddedTokens += n;
    batches.push({
      dims: [batch.length, seq],
      ids,
      feeds: {
        input_ids: new ort.Tensor('int64', ids, [batch.length, seq]),
        attention_mask: new ort.Tensor('int64', mask, [batch.length, seq]),
        token_type_ids: new ort.Tensor('int64', new BigInt64Array(n), [batch.length, seq]),
      },
    });
  }
}

// Same tokens, same batches?
let batchesMatch = recorded.length === batches.length;
if (batchesMatch) {
  for (let i = 0; i < batches.length && batchesMatch; i++) {
    const r = recorded[i];
    if (r.dims.join() !== batches[i].dims.join() || !r.data || r.data.length !== batches[i].ids.length)
      batchesMatch = false;
    else
      for (let j = 0; j < r.data.length; j++)
        if (BigInt(r.data[j]) !== batches[i].ids[j]) {
          batchesMatch = false;
          break;
        }
  }
}

async function ortPass(s = session) {
  let ms = 0;
  for (const b of batches) {
    const t = performance.now();
    await s.run(b.feeds);
    ms += performance.now() - t;
  }
  return { ms, tokens: realTokens };
}

const VARIANTS = {
  'arena off': { enableCpuMemArena: false },
  'graph opt extended': { graphOptimizationLevel: 'extended' },
  'arena off + extended': { enableCpuMemArena: false, graphOptimizationLevel: 'extended' },
};
const variants = [];
if (withVariants) {
  for (const [name, options] of Object.entries(VARIANTS))
    variants.push({ name, options, session: await ort.InferenceSession.create(ONNX_FILE, options), passes: [] });
}

for (let i = 0; i < warmup; i++) {
  await ortPass();
  for (const v of variants) await ortPass(v.session);
  if (i > 0) await pipelinePass();
}
const pipe = [];
const pure = [];
for (let i = 0; i < runs; i++) {
  // Alternate the order so neither side always runs on a hotter (or throttled) CPU.
  if (i % 2 === 0) {
    pipe.push(await pipelinePass());
    pure.push(await ortPass());
  } else {
    pure.push(await ortPass());
    pipe.push(await pipelinePass());
  }
  for (const v of variants) v.passes.push(await ortPass(v.session));
}

const perTok = (xs, key = 'ms') => summarize(xs.map((x) => x[key] / x.tokens));
const pipelineMsPerToken = perTok(pipe);
const pipelineInferenceMsPerToken = perTok(pipe, 'inferenceMs');
const ortMsPerToken = perTok(pure);
const result = {
  corpusDocs: all.docs,
  corpusChunks: all.texts.length,
  texts: texts.length,
  slices: slices.length,
  batches: batches.length,
  embedSlice: EMBED_SLICE,
  batchSize: BATCH_SIZE,
  tokens: realTokens,
  paddedTokens,
  pipelineTokens: firstPipeline.tokens,
  batchesMatch,
  recordedBatches: recorded.length,
  embedderLoadMs,
  ortSessionCreateMs,
  chunkingMsPerToken:
    all.chunkMs /
    Math.max(
      1,
      all.texts.reduce((n, t) => n + embedder.countTokens(t) + 2, 0),
    ),
  autoTokenizerMsPerToken: autoTokenizerMs / Math.max(1, tokenizedPieces),
  pipelineMsPerToken,
  pipelineInferenceMsPerToken,
  ortMsPerToken,
  ortTokensPerSec: 1000 / ortMsPerToken.median,
  pipelineTokensPerSec: 1000 / pipelineMsPerToken.median,
  ratio: pipelineMsPerToken.median / ortMsPerToken.median,
  inferenceRatio: pipelineInferenceMsPerToken.median / ortMsPerToken.median,
  ortVariants: variants.map((v) => {
    const msPerToken = perTok(v.passes);
    return { name: v.name, options: v.options, msPerToken, vsDefault: msPerToken.median / ortMsPerToken.median };
  }),
};
process.stderr.write(
  `embed vs ORT: ${result.tokens} tokens in ${result.batches} batches (match: ${batchesMatch}); ` +
    `pipeline ${(pipelineMsPerToken.median * 1000).toFixed(1)} µs/token, ORT ${(ortMsPerToken.median * 1000).toFixed(1)} µs/token, ratio ${result.ratio.toFixed(3)}\n`,
);
emitResult(result);
await embedder.dispose?.();
