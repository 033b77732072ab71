// Where the model's part of a cold start goes, in one fresh process:
//   node bench/lib/model-probe.mjs <project root> <brief.md> [embedder|onnx|cached]
//
// embedder (default), or fresh (the same with an empty graph cache: a user's very first run): importOrtMs / importTokenizersMs (the native runtime and the
//   tokenizer library), loadMs (MiniLMEmbedder.load with those already imported:
//   tokenizer build, ORT session, fingerprint), firstEmbedMs / secondEmbedMs (the
//   brief, first call vs warm).
// onnx:   the first InferenceSession of the process, created from the .onnx with
//   ORT's default options (full graph optimisation at load).
// cached: the first InferenceSession of the process, created from the optimised
//   graph agentos caches (modelCacheDir), optimisation off (what the embedder
//   does after the first run).
// The first session of a process also pays ORT's environment set-up (thread
// pools, allocators), so each mode runs in its own process.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MODEL_DIR, MODEL_ID, ONNX_FILE, dist, ortCacheDir } from './common.mjs';

const [root, brief, mode = 'embedder'] = process.argv.slice(2);
const text = readFileSync(brief, 'utf8');
const r = {};
let t = performance.now();
const ort = await import('onnxruntime-node');
r.importOrtMs = performance.now() - t;

if (mode === 'embedder' || mode === 'fresh') {
  const fresh = mode === 'fresh' ? mkdtempSync(path.join(os.tmpdir(), 'agentos-bench-ortcache-')) : null;
  t = performance.now();
  await import('@huggingface/tokenizers').catch(() => null);
  r.importTokenizersMs = performance.now() - t;
  t = performance.now();
  const { MiniLMEmbedder } = await dist('work-memory/embeddings/minilm.js');
  r.importEmbedderMs = performance.now() - t;
  t = performance.now();
  const embedder = await MiniLMEmbedder.load({
    modelId: MODEL_ID,
    dtype: 'int8',
    location: { dir: MODEL_DIR, source: 'AGENTOS_MODEL_DIR' },
    cacheDir: fresh ?? (await ortCacheDir(root)),
  });
  r[fresh ? 'freshLoadMs' : 'loadMs'] = performance.now() - t;
  if (fresh) {
    rmSync(fresh, { recursive: true, force: true });
    process.stdout.write(JSON.stringify({ freshLoadMs: r.freshLoadMs }) + '\n');
    process.exit(0);
  }
  const { embedBrief } = await dist('work-memory/check/history.js').catch(() => ({}));
  const embedOnce = async () =>
    typeof embedBrief === 'function' ? embedBrief(text, embedder) : embedder.embed([text]);
  t = performance.now();
  await embedOnce();
  r.firstEmbedMs = performance.now() - t;
  t = performance.now();
  await embedOnce();
  r.secondEmbedMs = performance.now() - t;
  r.briefTokens = embedder.stats ? embedder.stats.tokens / 2 : null;
} else {
  let file = ONNX_FILE;
  let options = {};
  if (mode === 'cached') {
    const dir = await ortCacheDir(root);
    // The embedder keeps each optimised graph in a folder minilm-<fingerprint>-ort<version>-<arch>-<recipe>/model.onnx
    // (src/work-memory/embeddings/onnx-session.ts); older builds wrote minilm-….onnx files.
    const entry = readdirSync(dir, { withFileTypes: true }).find(
      (e) =>
        /^minilm-/.test(e.name) &&
        (e.isDirectory() ? existsSync(path.join(dir, e.name, 'model.onnx')) : e.name.endsWith('.onnx')),
    );
    if (!entry) throw new Error(`no cached graph in ${dir}`);
    file = entry.isDirectory() ? path.join(dir, entry.name, 'model.onnx') : path.join(dir, entry.name);
    options = { executionProviders: ['cpu'], enableCpuMemArena: false, graphOptimizationLevel: 'disabled' };
  }
  t = performance.now();
  const session = await ort.InferenceSession.create(file, options);
  r[mode === 'cached' ? 'cachedSessionMs' : 'onnxSessionMs'] = performance.now() - t;
  // A brief-sized input: first run vs second.
  const seq = 256;
  const feeds = () => ({
    input_ids: new ort.Tensor('int64', new BigInt64Array(seq).fill(2000n), [1, seq]),
    attention_mask: new ort.Tensor('int64', new BigInt64Array(seq).fill(1n), [1, seq]),
    token_type_ids: new ort.Tensor('int64', new BigInt64Array(seq), [1, seq]),
  });
  t = performance.now();
  await session.run(feeds());
  r[`${mode}FirstRunMs`] = performance.now() - t;
  t = performance.now();
  await session.run(feeds());
  r[`${mode}SecondRunMs`] = performance.now() - t;
  if (mode === 'cached') {
    // The tokenizer as the embedder builds it: two JSON files and the library's constructor.
    const lib = await import('@huggingface/tokenizers').catch(() => null);
    if (lib?.Tokenizer) {
      t = performance.now();
      const folder = path.join(MODEL_DIR, MODEL_ID);
      const json = JSON.parse(readFileSync(path.join(folder, 'tokenizer.json'), 'utf8'));
      const config = JSON.parse(readFileSync(path.join(folder, 'tokenizer_config.json'), 'utf8'));
      new lib.Tokenizer(json, config);
      r.tokenizerBuildMs = performance.now() - t;
    }
  }
}
process.stdout.write(JSON.stringify(r) + '\n');
