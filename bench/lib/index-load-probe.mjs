// Where loading an index goes, step by step as openGeneration does it, in one fresh process:
//   node bench/lib/index-load-probe.mjs <project root>
// Also file sizes and resident memory after each step.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { dist } from './common.mjs';

const root = process.argv[2];
const [store, { indexPaths }, { loadHnswlib }] = await Promise.all([
  dist('work-memory/index/hnsw-index.js'),
  dist('work-memory/index/layout.js'),
  dist('work-memory/index/hnswlib.js'),
]);
const r = {};
const mb = () => process.memoryUsage().rss / 2 ** 20;
const step = (name, fn) => {
  const t = performance.now();
  const v = fn();
  r[`${name}Ms`] = performance.now() - t;
  return v;
};
r.rssStartMb = mb();
const g = indexPaths(root).generation(store.readCurrent(root));
r.manifestBytes = statSync(g.manifest).size;
r.metaBytes = statSync(g.meta).size;
r.vectorsBytes = statSync(g.vectors).size;
const manifest = step('readManifest', () => store.readManifest(g.manifest));
step('vectorsHeadSha', () => store.headSha(g.vectors));
const metaBuf = step('readMeta', () => readFileSync(g.meta));
step('metaSha256', () => createHash('sha256').update(metaBuf).digest('hex'));
const meta = step('parseMeta', () => JSON.parse(metaBuf.toString('utf8')));
r.rssAfterMetaMb = mb();
const t = performance.now();
const hnsw = await loadHnswlib();
r.importHnswlibMs = performance.now() - t;
const index = step('readVectors', () => {
  const i = new hnsw.HierarchicalNSW('ip', manifest.dimensions);
  i.readIndexSync(g.vectors, true);
  return i;
});
r.rssAfterVectorsMb = mb();
step('buildStore', () => new store.HnswIndex(manifest, meta, index));
r.rssEndMb = mb();
r.heapUsedMb = process.memoryUsage().heapUsed / 2 ** 20;
process.stdout.write(JSON.stringify(r) + '\n');
