#!/usr/bin/env node
// Query latency alone: HNSW (the parameters src/index uses) against an exact
// brute-force scan of the same vectors, and recall@k of HNSW against the exact
// answer, for random unit vectors and for vectors shaped like real embeddings.
//
//   node bench/query-bench.mjs --bases-from <indexed root> [--sizes 1000,10000,100000]
//        [--queries 200] [--k 3] [--kinds random,clustered,real] [--seed 7]
//        [--write-cli-index <root>]
//
// "clustered" vectors are made from real MiniLM embeddings read out of an index
// agentos built (--bases-from): point i is base i mod B, sometimes blended with
// another base, plus Gaussian noise, renormalised. Real embeddings of a project's
// history are clustered like this; random unit vectors in 384 dimensions are not
// (all pairwise cosines near 0) and are the worst case for a graph index.
// "real" indexes the real embeddings themselves, minus every k-th one held out as
// a query (one size: the number of bases). At the largest size, recall and latency
// are also measured at wider search breadths (efSweep).
// With --write-cli-index, the largest clustered set is also written as a complete
// index generation (vectors + meta + manifest via writeGeneration) that the CLI
// loads: each base document's metadata and chunk excerpts are replicated with new
// paths and ids, and each replica chunk gets the perturbed vector of its original.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { prng } from './generate-corpus.mjs';
import { MODEL_DIR, dist, emitResult, summarize } from './lib/common.mjs';

function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
}

const sizes = arg('sizes', '1000,10000,100000').split(',').map(Number);
const nQueries = Number(arg('queries', 200));
const K = Number(arg('k', 3));
const kinds = arg('kinds', 'random,clustered,real').split(',');
const seed = Number(arg('seed', 7));
const basesFrom = arg('bases-from', null);
const cliIndexRoot = arg('write-cli-index', null);

const [{ openIndex, EF_SEARCH }, { loadHnswlib, HNSW_M, HNSW_EF_CONSTRUCTION }] = await Promise.all([
  dist('work-memory/index/hnsw-index.js'),
  dist('work-memory/index/hnswlib.js'),
]);
const hnsw = await loadHnswlib();
const D = 384;

// ---- vectors ---------------------------------------------------------------

function gaussian(r) {
  let u = 0;
  while (u === 0) u = r.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r.next());
}

function normalizeInto(out, off) {
  let s = 0;
  for (let d = 0; d < D; d++) s += out[off + d] * out[off + d];
  s = Math.sqrt(s) || 1;
  for (let d = 0; d < D; d++) out[off + d] /= s;
}

function randomSet(n, r) {
  const out = new Float32Array(n * D);
  for (let i = 0; i < n; i++) {
    for (let d = 0; d < D; d++) out[i * D + d] = gaussian(r);
    normalizeInto(out, i * D);
  }
  return out;
}

/** Point near base `j`: sometimes blended with another base, always with noise (cosine to the base ~0.7-0.95). */
function perturbInto(out, off, bases, B, j, r) {
  const other = r.chance(0.3) ? r.int(0, B - 1) : -1;
  const w = other >= 0 ? 0.1 + 0.4 * r.next() : 0;
  const sigma = 0.015 + 0.035 * r.next();
  for (let d = 0; d < D; d++) {
    let v = bases[j * D + d];
    if (other >= 0) v = (1 - w) * v + w * bases[other * D + d];
    out[off + d] = v + sigma * gaussian(r);
  }
  normalizeInto(out, off);
}

function clusteredSet(n, bases, B, r, cycle) {
  const out = new Float32Array(n * D);
  for (let i = 0; i < n; i++) perturbInto(out, i * D, bases, B, cycle ? i % B : r.int(0, B - 1), r);
  return out;
}

// ---- search ----------------------------------------------------------------

function exactTopK(data, n, q, k) {
  const bestI = new Int32Array(k).fill(-1);
  const bestS = new Float64Array(k).fill(-Infinity);
  for (let i = 0; i < n; i++) {
    const off = i * D;
    let s = 0;
    for (let d = 0; d < D; d += 4)
      s +=
        data[off + d] * q[d] +
        data[off + d + 1] * q[d + 1] +
        data[off + d + 2] * q[d + 2] +
        data[off + d + 3] * q[d + 3];
    if (s > bestS[k - 1]) {
      let p = k - 1;
      while (p > 0 && bestS[p - 1] < s) {
        bestS[p] = bestS[p - 1];
        bestI[p] = bestI[p - 1];
        p--;
      }
      bestS[p] = s;
      bestI[p] = i;
    }
  }
  return { ids: [...bestI], scores: [...bestS] };
}

function buildHnsw(data, n) {
  const index = new hnsw.HierarchicalNSW('ip', D);
  // The same call as src/work-memory/index/build.ts (random seed 100, deleted slots reusable).
  index.initIndex(Math.max(16, n), HNSW_M, HNSW_EF_CONSTRUCTION, 100, true);
  for (let i = 0; i < n; i++) index.addPoint(Array.from(data.subarray(i * D, (i + 1) * D)), i);
  return index;
}

function measure(kind, n, data, queries, index, sweep) {
  const exactMs = [];
  const exactIds = [];
  let top1Cos = 0;
  const nq = queries.length / D;
  const q = (qi) => queries.subarray(qi * D, (qi + 1) * D);
  for (let qi = 0; qi < nq; qi++) {
    const t = performance.now();
    const exact = exactTopK(data, n, q(qi), K);
    exactMs.push(performance.now() - t);
    exactIds.push(new Set(exact.ids));
    top1Cos += exact.scores[0];
  }
  const hnswAt = (ef) => {
    const ms = [];
    let hits = 0;
    for (let qi = 0; qi < nq; qi++) {
      const t = performance.now();
      // As HnswIndex.search does it: setEf, copy to a plain array, search.
      index.setEf(Math.max(ef, K));
      const res = index.searchKnn(Array.from(q(qi)), K);
      ms.push(performance.now() - t);
      for (const l of res.neighbors) if (exactIds[qi].has(l)) hits++;
    }
    return { ef, recall: hits / (nq * K), hnswMs: summarize(ms) };
  };
  const main = hnswAt(EF_SEARCH);
  return {
    kind,
    n,
    queries: nq,
    k: K,
    ef: EF_SEARCH,
    recall: main.recall,
    meanTop1Cosine: top1Cos / nq,
    hnswMs: main.hnswMs,
    exactMs: summarize(exactMs),
    // Recall and latency at other search breadths (largest size only): what a miss would cost to fix.
    efSweep: sweep ? [main, ...[200, 400, 800].filter((e) => e > EF_SEARCH).map(hnswAt)] : undefined,
  };
}

// ---- bases -----------------------------------------------------------------

let bases = null;
let B = 0;
let baseStore = null;
let baseOrder = [];
if (basesFrom) {
  baseStore = await openIndex(path.resolve(basesFrom));
  baseOrder = baseStore.meta.docs.flatMap((d) => d.labels);
  B = baseOrder.length;
  bases = new Float32Array(B * D);
  baseOrder.forEach((label, j) => {
    bases.set(baseStore.vector ? baseStore.vector(label) : baseStore.graph.getPoint(label), j * D);
    normalizeInto(bases, j * D);
  });
  process.stderr.write(`query bench: ${B} real embeddings as bases (from ${basesFrom})\n`);
}

// ---- the CLI-loadable index -------------------------------------------------

async function writeCliIndex(root, index, n) {
  const [{ writeGeneration }, { loadConfig }, { modelSetup }, types, chunk] = await Promise.all([
    dist('work-memory/index/write.js'),
    dist('shared/config/load.js'),
    dist('work-memory/index/model-setup.js'),
    dist('work-memory/index/types.js'),
    dist('work-memory/chunks/chunk.js'),
  ]);
  mkdirSync(path.join(root, '.agentos'), { recursive: true });
  const { config } = await loadConfig(root);
  // The identity `issue start` will expect, computed the way it computes it.
  const identity = modelSetup({ ...process.env, AGENTOS_MODEL_DIR: MODEL_DIR }, config, root).identity;
  const byLabel = new Map(baseStore.meta.chunks.map((c) => [c[0], c]));
  const docs = [];
  const chunks = [];
  const files = {};
  let label = 0;
  for (let copy = 0; label < n; copy++) {
    for (const d of baseStore.meta.docs) {
      if (label >= n) break;
      const newId =
        d.issueId && /^\d+$/.test(d.issueId)
          ? String(Number(d.issueId) + copy * 100000)
          : `${d.issueId ?? 'doc'}-${copy}`;
      const filePath = copy === 0 ? d.filePath : d.filePath.replace(/(\d+)/, () => newId);
      const unique = filePath === d.filePath && copy > 0 ? `${filePath}.${copy}` : filePath;
      const hash = createHash('sha256').update(unique).digest('hex');
      const labels = [];
      const docIdx = docs.length;
      for (const orig of d.labels) {
        if (label >= n) break;
        const rec = byLabel.get(orig) ?? [orig, 0, '', ''];
        chunks.push([label, docIdx, rec[2], rec[3]]);
        labels.push(label++);
      }
      docs.push({ ...d, filePath: unique, issueId: d.issueId === null ? null : newId, contentHash: hash, labels });
      files[unique] = { hash, size: 4096, mtimeMs: 1_700_000_000_000 + docIdx };
    }
  }
  const { integrity: _integrity, ...baseManifest } = baseStore.manifest;
  const manifest = {
    ...baseManifest,
    formatVersion: types.INDEX_FORMAT_VERSION,
    modelId: identity.modelId,
    modelFingerprint: identity.modelFingerprint,
    dimensions: identity.dimensions,
    maxTokens: identity.maxTokens,
    chunkingVersion: chunk.CHUNKING_VERSION,
    includeHistory: true,
    createdAt: new Date().toISOString(),
    chunkCount: chunks.length,
    nextLabel: label,
    deletedCount: 0,
    files,
  };
  const t = performance.now();
  const generation = await writeGeneration(root, manifest, { docs, chunks }, { graph: index });
  return { root, generation, docs: docs.length, chunks: chunks.length, writeMs: performance.now() - t };
}

// ---- run -------------------------------------------------------------------

const results = [];
let cliIndex = null;
const maxN = Math.max(...sizes);
for (const kind of kinds) {
  if ((kind === 'clustered' || kind === 'real') && !bases) {
    process.stderr.write(`query bench: no --bases-from, skipping ${kind} vectors\n`);
    continue;
  }
  if (kind === 'real') {
    // Real embeddings only: every k-th one held out as a query, the rest indexed.
    const hold = new Set(
      Array.from({ length: Math.min(nQueries, Math.floor(B / 4)) }, (_, i) =>
        Math.floor((i * B) / Math.min(nQueries, Math.floor(B / 4))),
      ),
    );
    const n = B - hold.size;
    const data = new Float32Array(n * D);
    const queries = new Float32Array(hold.size * D);
    let a = 0;
    let b = 0;
    for (let j = 0; j < B; j++) {
      const v = bases.subarray(j * D, (j + 1) * D);
      if (hold.has(j)) queries.set(v, b++ * D);
      else data.set(v, a++ * D);
    }
    const t = performance.now();
    const index = buildHnsw(data, n);
    const m = { ...measure('real (held out)', n, data, queries, index, true), buildMs: performance.now() - t };
    results.push(m);
    process.stderr.write(
      `query bench: real ${n}: hnsw median ${m.hnswMs.median.toFixed(3)} ms, recall@${K} ${m.recall.toFixed(4)}\n`,
    );
    continue;
  }
  for (const n of sizes) {
    const r = prng(seed * 1000 + n + (kind === 'random' ? 0 : 1));
    const rq = prng(seed * 1000 + n + (kind === 'random' ? 2 : 3));
    const data = kind === 'random' ? randomSet(n, r) : clusteredSet(n, bases, B, r, true);
    const queries = kind === 'random' ? randomSet(nQueries, rq) : clusteredSet(nQueries, bases, B, rq, false);
    const t = performance.now();
    const index = buildHnsw(data, n);
    const buildMs = performance.now() - t;
    const m = { ...measure(kind, n, data, queries, index, n === maxN), buildMs };
    results.push(m);
    process.stderr.write(
      `query bench: ${kind} ${n}: build ${(buildMs / 1000).toFixed(1)} s, hnsw median ${m.hnswMs.median.toFixed(3)} ms, exact median ${m.exactMs.median.toFixed(2)} ms, recall@${K} ${m.recall.toFixed(4)}\n`,
    );
    if (cliIndexRoot && kind === 'clustered' && n === maxN)
      cliIndex = await writeCliIndex(path.resolve(cliIndexRoot), index, n);
  }
}
emitResult({ bases: B, efSearch: EF_SEARCH, M: HNSW_M, efConstruction: HNSW_EF_CONSTRUCTION, results, cliIndex });
