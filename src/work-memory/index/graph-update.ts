/**
 * The HNSW graph and the documents' metadata after an update: the changed and
 * removed documents' points marked deleted (the graph compacted when too many
 * are), the new chunks added under fresh labels, the chunk table rebuilt in
 * document order. Pure over its inputs but for the graph it mutates.
 */
import type { Chunk } from '../chunks/chunk.js';
import { truncate } from '../corpus/metadata.js';
import type { CorpusFile, DocMetadata } from '../corpus/types.js';
import { compareText } from '../../shared/text/compare.js';
import type { HnswIndex } from './hnsw-index.js';
import { HNSW_EF_CONSTRUCTION, HNSW_M, loadHnswlib, type HnswGraph } from './hnswlib.js';
import type { IndexMeta, StoredChunk, StoredDoc } from './types.js';

const EXCERPT_CHARS = 280;
/** Marked-deleted labels above this share of the graph trigger a compaction. */
const MAX_DELETED_SHARE = 0.25;

/** A document read, described and chunked, ready to be embedded. */
export interface Prepared {
  /** The file it was read from; absent for work read from git or a tracker. */
  file?: CorpusFile;
  metadata: DocMetadata;
  chunks: Chunk[];
}

export interface GraphUpdate {
  graph: HnswGraph;
  meta: IndexMeta;
  nextLabel: number;
  deletedCount: number;
}

export async function updateGraph(o: {
  existing: HnswIndex | null;
  keep: StoredDoc[];
  /** Indexed documents whose points go (changed or removed). */
  dropped: StoredDoc[];
  prepared: Prepared[];
  /** One per chunk of `prepared`, in order. */
  vectors: Float32Array[];
  dimensions: number;
}): Promise<GraphUpdate> {
  const hnsw = await loadHnswlib();
  const { existing, keep, prepared, vectors } = o;
  const newCount = vectors.length;
  const liveOld = keep.reduce((n, d) => n + d.labels.length, 0);
  let graph: HnswGraph;
  let nextLabel = existing?.manifest.nextLabel ?? 0;
  let deletedCount = existing?.manifest.deletedCount ?? 0;
  if (existing) {
    graph = existing.graph;
    // Work appended since the base was written (delta.ts) joins the base graph: this generation is written whole.
    const appended = existing.appendedLabels();
    if (appended.length) {
      if (graph.getCurrentCount() + appended.length > graph.getMaxElements())
        graph.resizeIndex(graph.getCurrentCount() + appended.length + newCount);
      for (const l of appended) graph.addPoint(existing.vector(l), l);
    }
    for (const d of o.dropped) for (const l of d.labels) graph.markDelete(l);
    deletedCount += o.dropped.reduce((n, d) => n + d.labels.length, 0);
    if (deletedCount > MAX_DELETED_SHARE * (liveOld + newCount + deletedCount)) {
      graph = compact(hnsw, o.dimensions, graph, keep, liveOld + newCount);
      deletedCount = 0;
    }
  } else {
    graph = new hnsw.HierarchicalNSW('ip', o.dimensions);
    graph.initIndex(Math.max(16, newCount), HNSW_M, HNSW_EF_CONSTRUCTION, 100, true);
    nextLabel = 0;
    deletedCount = 0;
  }
  const needed = graph.getCurrentCount() + newCount;
  if (needed > graph.getMaxElements()) graph.resizeIndex(Math.max(needed, Math.ceil(graph.getMaxElements() * 1.5)));

  const docs: StoredDoc[] = [...keep];
  const chunkRecords = new Map<number, [string, string]>();
  for (const c of existing?.meta.chunks ?? []) chunkRecords.set(c[0], [c[2], c[3]]);
  let v = 0;
  for (const p of prepared) {
    const labels: number[] = [];
    for (const c of p.chunks) {
      const label = nextLabel++;
      graph.addPoint(Array.from(vectors[v++]), label);
      labels.push(label);
      chunkRecords.set(label, [c.section, excerptOf(c.text)]);
    }
    docs.push({ ...p.metadata, labels });
  }
  docs.sort((a, b) => compareText(a.filePath, b.filePath));
  const chunks: StoredChunk[] = [];
  docs.forEach((d, i) => {
    for (const l of d.labels) {
      const [section, excerpt] = chunkRecords.get(l) ?? ['', ''];
      chunks.push([l, i, section, excerpt]);
    }
  });
  return { graph: graph, meta: { docs, chunks }, nextLabel, deletedCount };
}

/** A fresh graph holding only the live points of the kept documents (labels preserved). */
function compact(
  hnsw: Awaited<ReturnType<typeof loadHnswlib>>,
  dims: number,
  old: HnswGraph,
  keep: StoredDoc[],
  capacity: number,
): HnswGraph {
  const fresh = new hnsw.HierarchicalNSW('ip', dims);
  fresh.initIndex(Math.max(16, capacity), HNSW_M, HNSW_EF_CONSTRUCTION, 100, true);
  for (const d of keep) for (const l of d.labels) fresh.addPoint(old.getPoint(l), l);
  return fresh;
}

export function excerptOf(text: string): string {
  // Heading lines go: the section title is shown beside the excerpt already.
  const body = text.replace(/^#{1,6}\s+.*$/gm, '').trim();
  const plain = (body || text.replace(/^#{1,6}\s+/gm, ''))
    .replace(/[*`>]/g, '')
    // Emphasis underscores only: `auth_sessions` keeps its underscore. One match per run, decided by
    // its neighbours: `_+(?!\w)` retried every start in a run (quadratic on a 1 MB line of `_`).
    .replace(/_+/g, (run: string, at: number, all: string) =>
      /\w/.test(all[at - 1] ?? '') && /\w/.test(all[at + run.length] ?? '') ? run : '',
    )
    .replace(/\s+/g, ' ')
    .trim();
  return truncate(plain, EXCERPT_CHARS);
}
