import type { CorpusType } from '../corpus/types.js';
import type { VectorIndex } from '../index/types.js';
import { workKey } from './match.js';

/** Passages asked of the graph beyond the document's own, then widened: its own work's and excluded ones come first too. */
const PASSAGES_BEYOND_OWN = 8;

/**
 * How close the nearest OTHER piece of work in the index is to a document as a whole (its mean
 * vector against the other's best passage); null when the index holds no other. A bug report with a
 * near neighbour (one of five reports of the same toolbar, a generic "crash on startup") is weaker
 * evidence at a given cosine than one that stands alone: a brief that matches it no better than its
 * neighbour does is as likely one more of them (`neighbourGap`, docs/scoring.md). Documents the
 * check leaves out (`exclude`) and the document's own work are not neighbours, nor is another
 * repository's document (org scope holds only those fetched for this brief: a sample biased towards it).
 */
export function nearestOtherWork(
  index: VectorIndex,
  type: CorpusType,
  doc: { filePath: string; issueId: string | null; documentType: string; repository?: string },
  mean: Float32Array,
  exclude?: (filePath: string) => boolean,
): number | null {
  const own = workKey(doc);
  const available = index.count(type);
  // The document's own passages come nearest first: ask past them, and widen until another is found.
  for (let want = (index.doc?.(doc.filePath)?.labels.length ?? 1) + PASSAGES_BEYOND_OWN; ; want *= 4) {
    for (const hit of index.search(mean, want, type)) {
      const p = hit.doc.filePath;
      if (
        p === doc.filePath ||
        hit.doc.repository !== doc.repository ||
        exclude?.(p) ||
        (own !== null && workKey(hit.doc) === own)
      )
        continue;
      return hit.score;
    }
    if (want >= available) return null;
  }
}
