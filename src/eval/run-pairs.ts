import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { checkHistory, embedBriefChunks } from '../check/history.js';
import type { Config } from '../config/schema.js';
import type { Embedder } from '../embeddings/embedder.js';
import { buildIndex, type ModelIdentity } from '../index/build.js';
import { openStore } from '../index/hnsw-store.js';
import { openLexical } from '../lexical/file.js';
import type { Scoring } from '../scoring/rank.js';
import { CachingEmbedder } from './cache.js';
import type { QueryResult } from './metrics.js';
import { parsePairs, reportText, splitPairs, type EvalQuery } from './pairs.js';

export interface PairsEvalOptions {
  file: string;
  /** Scratch folder: the project built from the file, and the embedding cache. */
  work: string;
  config: Config;
  model: ModelIdentity;
  loadEmbedder: () => Promise<Embedder>;
  /** Ask at most this many queries (a deterministic sample), 0 for all. */
  limit: number;
  /** Keep this share of duplicate clusters (deterministic), 1 for all. */
  subset: number;
  onProgress?: (msg: string) => void;
}

export interface PairsEvalRun {
  results: QueryResult[];
  timings: { buildMs: number; embedMs: number; queryMs: number };
  indexed: number;
}

const NEAREST = 10;
/** Candidates kept per query for offline refits (the union of both retrievers' lists). */
const CANDIDATES = 60;
const SLICE = 64;

/** Index the file's originals and unrelated reports as a scratch project's history, then ask every query. */
export async function runPairsEval(o: PairsEvalOptions): Promise<PairsEvalRun> {
  const reports = parsePairs(await readFile(o.file, 'utf8'), o.file);
  const split = splitPairs(reports, 0.2, o.subset);
  let queries = split.queries;
  if (o.limit > 0 && queries.length > o.limit) {
    const key = (q: EvalQuery) => createHash('sha1').update(q.id).digest('hex');
    queries = [...queries].sort((a, b) => (key(a) < key(b) ? -1 : 1)).slice(0, o.limit);
  }
  const root = path.join(o.work, 'project');
  const done = path.join(root, 'docs', 'audit', 'done');
  await rm(root, { recursive: true, force: true });
  await mkdir(done, { recursive: true });
  const pathOf = new Map<string, string>();
  for (const [i, r] of split.history.entries()) {
    const rel = `docs/audit/done/${i + 1}-report/001-issue.md`;
    pathOf.set(r.id, rel);
    await mkdir(path.join(root, path.dirname(rel)), { recursive: true });
    await writeFile(path.join(root, rel), reportText(r));
  }
  let embedder: CachingEmbedder | null = null;
  const load = async () => (embedder ??= new CachingEmbedder(await o.loadEmbedder(), path.join(o.work, `embeddings-${o.model.modelFingerprint}.bin`)));
  o.onProgress?.(`indexing ${split.history.length} reports`);
  const t0 = performance.now();
  await buildIndex({ root, config: o.config, includeHistory: true, full: true, model: o.model, loadEmbedder: load, lockWaitMs: 0 });
  const buildMs = performance.now() - t0;

  // Embed every query's chunks in large batches first (cached), then ask one by one.
  const e = await load();
  const t1 = performance.now();
  const texts: string[] = [];
  const collector: Embedder = {
    modelId: e.modelId,
    modelFingerprint: e.modelFingerprint,
    dimensions: e.dimensions,
    maxTokens: e.maxTokens,
    countTokens: (t: string) => e.countTokens(t),
    embed: async (ts: string[]) => (texts.push(...ts), ts.map(() => new Float32Array(e.dimensions))),
  };
  for (const q of queries) await embedBriefChunks(q.text, collector);
  for (let i = 0; i < texts.length; i += SLICE) {
    await e.embed(texts.slice(i, i + SLICE));
    if (i % (SLICE * 10) === 0) o.onProgress?.(`embedding queries ${i}/${texts.length}`);
  }
  const embedMs = performance.now() - t1;

  const store = await openStore(root);
  const lexical = openLexical(root);
  const results: QueryResult[] = [];
  const t2 = performance.now();
  for (const q of queries) {
    const { texts: chunks, vectors } = await embedBriefChunks(q.text, e);
    const s0 = performance.now();
    const scoring: Scoring = { method: o.config.scoring.method, lexical, briefText: q.text, briefChunks: chunks };
    const { nearest: all } = checkHistory(store, vectors, CANDIDATES, o.config.thresholds, scoring);
    const nearest = all.slice(0, NEAREST);
    const target = q.target ? (pathOf.get(q.target) ?? null) : null;
    const rank = target ? nearest.findIndex((m) => m.filePath === target) : -1;
    results.push({
      id: q.id,
      target,
      top: nearest[0]?.score ?? 0,
      topPath: nearest[0]?.filePath ?? null,
      targetRank: rank >= 0 ? rank + 1 : null,
      targetScore: rank >= 0 ? nearest[rank].score : null,
      ms: performance.now() - s0,
      candidates: all.map((m) => ({ path: m.filePath, cosine: m.components?.cosine ?? m.score, lexical: m.components?.lexical ?? 0 })),
    });
  }
  return { results, timings: { buildMs, embedMs, queryMs: performance.now() - t2 }, indexed: split.history.length };
}
