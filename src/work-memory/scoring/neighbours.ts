import type { CorpusType } from '../corpus/types.js';
import type { VectorIndex } from '../index/types.js';
import { NEIGHBOURS } from './features.js';
import { workKey } from './match.js';

export { NEIGHBOURS };
/** Passages asked of the graph: enough to pass the document's own and its work's, and reach NEIGHBOURS others. */
const NEIGHBOUR_PASSAGES = 24;

/**
 * How close the nearest OTHER pieces of work in the index are to a document as a whole (its mean
 * vector against their best passages), best first, at most NEIGHBOURS. A bug report that sits near
 * many others (a generic "crash on startup") or a design beside its sibling (the Firefox port of a
 * Chrome design) is weaker evidence at a given cosine than one that stands alone: a brief that
 * matches it about as well as its neighbours do is as likely one more of them (docs/scoring.md).
 * Documents the check leaves out (`exclude`) and the document's own work are not neighbours.
 */
export function nearestOtherWork(
  index: VectorIndex,
  type: CorpusType,
  doc: { filePath: string; issueId: string | null; documentType: string; repository?: string },
  mean: Float32Array,
  exclude?: (filePath: string) => boolean,
): number[] {
  const own = workKey(doc);
  const seen = new Set<string>();
  const out: number[] = [];
  for (const hit of index.search(mean, NEIGHBOUR_PASSAGES, type)) {
    const p = hit.doc.filePath;
    if (p === doc.filePath || seen.has(p) || exclude?.(p) || (own !== null && workKey(hit.doc) === own)) continue;
    seen.add(p);
    out.push(hit.score);
    if (out.length === NEIGHBOURS) break;
  }
  return out;
}
