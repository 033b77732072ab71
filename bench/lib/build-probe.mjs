// Where an `index --include-history` run goes, in one fresh process:
//   node bench/lib/build-probe.mjs <project root>
// Calls buildIndex as the index command does, with the progress callback and
// the model loader timed: open previous generation + scan, compare with the
// manifest (reading changed files), model load, chunk + embed, write (HNSW
// update, meta, writeGeneration with fsyncs, prune).
import { dist } from './common.mjs';

const root = process.argv[2];
const r = {};
let t = performance.now();
const [{ buildIndex }, { loadConfig }, { modelSetup }] = await Promise.all([
  dist('work-memory/index/build.js'),
  dist('shared/config/load.js'),
  dist('work-memory/index/model-setup.js'),
]);
r.importMs = performance.now() - t;
const { config } = await loadConfig(root);
const model = modelSetup(process.env, config, root);
const marks = {};
const t0 = performance.now();
const since = () => performance.now() - t0;
const report = await buildIndex({
  root,
  config,
  includeHistory: true,
  full: false,
  model: model.identity,
  lockWaitMs: 30_000,
  loadEmbedder: async () => {
    const s = performance.now();
    const e = await model.load();
    r.modelLoadMs = performance.now() - s;
    return e;
  },
  onProgress: (p) => {
    if (marks[p.phase] === undefined) marks[p.phase] = since();
    if (p.phase === 'embed') marks.lastEmbed = since();
  },
});
r.totalMs = since();
r.openAndScanMs = marks.scan ?? r.totalMs;
r.compareMs = (marks.model ?? marks.write ?? r.totalMs) - (marks.scan ?? 0);
if (marks.model !== undefined)
  r.chunkAndEmbedMs = (marks.lastEmbed ?? marks.write ?? r.totalMs) - marks.model - (r.modelLoadMs ?? 0);
if (marks.write !== undefined) r.writeMs = r.totalMs - marks.write;
// The corpus scan alone (not separable inside buildIndex): once more, same process.
const { scanCorpus } = await dist('work-memory/corpus/scan.js');
t = performance.now();
await scanCorpus(root, config.corpus, true);
r.scanAgainMs = performance.now() - t;
r.chunksEmbedded = report.chunksEmbedded;
r.wrote = report.wrote ? 1 : 0;
process.stdout.write(JSON.stringify(r) + '\n');
