import type { CorpusType } from '../corpus/types.js';
import type { VectorIndex } from '../index/types.js';
import { NEIGHBOURS } from './features.js';
import { workKey } from './match.js';

export { NEIGHBOURS };
/** Passages asked of the graph per neighbour wanted, beyond the document's own (a neighbour may have several). */
const PASSAGES_PER_NEIGHBOUR = 8;

/**
 * How close the nearest OTHER pieces of work in the index are to a document as a whole (its mean
 * vector against their best passages), best first, at most NEIGHBOURS. A bug report that sits near
 * many others (a generic "crash on startup") or a design beside its sibling (the Firefox port of a
 * Chrome design) is weaker evidence at a given cosine than one that stands alone: a brief that
 * matches it about as well as its neighbours do is as likely one more of them (docs/scoring.md).
 * Documents the check leaves out (`exclude`) and the document's own work are not neighbours, nor
 * is another repository's document (org scope holds only those fetched for this brief: a sample
 * biased towards it). Fewer than NEIGHBOURS only when the index holds no more.
 */
export function nearestOtherWork(
  index: VectorIndex,
  type: CorpusType,
  doc: { filePath: string; issueId: string | null; documentType: string; repository?: string },
  mean: Float32Array,
  exclude?: (filePath: string) => boolean,
): number[] {
  const own = workKey(doc);
  const available = index.count(type);
  // The document's own passages come nearest first: ask past them, and widen until enough others are found.
  for (let want = (index.doc?.(doc.filePath)?.labels.length ?? 1) + NEIGHBOURS * PASSAGES_PER_NEIGHBOUR; ; want *= 4) {
    const seen = new Set<string>();
    const out: number[] = [];
    for (const hit of index.search(mean, want, type)) {
      const p = hit.doc.filePath;
      if (p === doc.filePath || seen.has(p) || hit.doc.repository !== doc.repository || exclude?.(p) || (own !== null && workKey(hit.doc) === own)) continue;
      seen.add(p);
      out.push(hit.score);
      if (out.length === NEIGHBOURS) return out;
    }
    if (want >= available) return out;
  }
}
