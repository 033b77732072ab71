/**
 * Copies among a brief's candidates (issue 47): another repository's document with the same title
 * and, as a whole, the same text as a candidate (its mean vector within COPY_COSINE; within
 * COPY_COSINE_ANY_TITLE, whatever its title) is the same
 * work, counted once. Thirty copies of a teammate's issue published in another repository turned
 * its duplicate alert into "clear": each copy stood beside the original as competing work (the
 * gap) and filled the brief's reference (the standout feature). This repository's own documents are never
 * grouped with each other here: their scores stay as they were.
 */
import { dot } from '../embeddings/embedder.js';

/** Mean vectors at least this close are one text (a re-embedding of the same words differs by less). */
export const COPY_COSINE = 0.97;
/** This close, the text is the same whatever the title says: a copy with a character of its title changed is still a copy. */
export const COPY_COSINE_ANY_TITLE = 0.99;

interface Candidate {
  filePath: string;
  title: string;
  repository?: string;
}

/** A title as copies compare it: case and spacing aside. */
export const titleKey = (t: string) => t.trim().replace(/\s+/g, ' ').toLowerCase();
const sameTitle = (a: string, b: string) => titleKey(a) === titleKey(b);

/**
 * For each candidate, the index of the candidate it copies (its group's leader), or -1. A pair counts
 * when at least one of the two is another repository's and both means are known. This repository's
 * own document leads its group whatever the order (a copy under a name that sorts first is still the
 * copy); among others' documents, the first in the given order leads.
 */
export function copyLeaders(cands: Candidate[], means: Array<Float32Array | null>): number[] {
  const leader = cands.map(() => -1);
  const order = cands
    .map((_, i) => i)
    .sort((a, b) => Number(!!cands[a].repository) - Number(!!cands[b].repository) || a - b);
  for (let oj = 1; oj < order.length; oj++) {
    const j = order[oj];
    const mj = means[j];
    if (!mj) continue;
    for (let oi = 0; oi < oj; oi++) {
      const i = order[oi];
      const mi = means[i];
      if (leader[i] !== -1 || !mi || !(cands[i].repository || cands[j].repository)) continue;
      const cos = dot(mi, mj);
      if (cos >= COPY_COSINE_ANY_TITLE || (cos >= COPY_COSINE && sameTitle(cands[i].title, cands[j].title))) {
        leader[j] = i;
        break;
      }
    }
  }
  return leader;
}
