/**
 * Topics without a taxonomy: average-linkage agglomerative clustering of
 * document vectors (unit length, cosine = dot). Merging stops when the best
 * pair of clusters is less similar than a cut derived from the data itself
 * (mean + one standard deviation of the pairwise similarities, clamped), so a
 * corpus of tight topics and a corpus of loose ones both split sensibly.
 * Each topic is labelled by its most central member (highest mean similarity
 * to the others). Deterministic: ties go to the lower index.
 */
import { dot } from '../work-memory/embeddings/embedder.js';

export interface Cluster {
  /** Indices into the input, in input order. */
  members: number[];
  /** The most central member (its title labels the topic). */
  central: number;
  /** Mean pairwise similarity inside the topic (1 for a singleton). */
  cohesion: number;
}

export function normalize(v: Float64Array): Float64Array {
  const n = Math.sqrt(dot(v, v));
  if (n > 0) for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}

/** The merge cut for these similarities: mean + 1 sd, within [0.3, 0.8]. */
export function autoThreshold(sim: Float64Array[], n: number): number {
  if (n < 2) return 1;
  let sum = 0;
  let sq = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      sum += sim[i][j];
      sq += sim[i][j] * sim[i][j];
      count++;
    }
  }
  const mean = sum / count;
  const sd = Math.sqrt(Math.max(0, sq / count - mean * mean));
  return Math.min(0.8, Math.max(0.3, mean + sd));
}

export function clusterVectors(
  vectors: ArrayLike<number>[],
  threshold?: number,
): { clusters: Cluster[]; threshold: number } {
  const n = vectors.length;
  if (n === 0) return { clusters: [], threshold: threshold ?? 1 };
  const sim: Float64Array[] = [];
  for (let i = 0; i < n; i++) sim.push(new Float64Array(n));
  for (let i = 0; i < n; i++) {
    sim[i][i] = 1;
    for (let j = i + 1; j < n; j++) sim[i][j] = sim[j][i] = dot(vectors[i], vectors[j]);
  }
  const cut = threshold ?? autoThreshold(sim, n);

  // Average linkage via Lance–Williams on a working copy; each row caches its best partner.
  const link = sim.map((row) => Float64Array.from(row));
  const size = new Array<number>(n).fill(1);
  const alive = new Array<boolean>(n).fill(true);
  const members: number[][] = Array.from({ length: n }, (_, i) => [i]);
  const best = new Array<number>(n).fill(-1);
  const bestOf = (i: number) => {
    let b = -1;
    for (let j = 0; j < n; j++) if (j !== i && alive[j] && (b < 0 || link[i][j] > link[i][b])) b = j;
    return b;
  };
  for (let i = 0; i < n; i++) best[i] = bestOf(i);

  for (;;) {
    let a = -1;
    for (let i = 0; i < n; i++) if (alive[i] && best[i] >= 0 && (a < 0 || link[i][best[i]] > link[a][best[a]])) a = i;
    if (a < 0 || link[a][best[a]] < cut) break;
    const b = best[a];
    const [keep, drop] = a < b ? [a, b] : [b, a];
    for (let k = 0; k < n; k++) {
      if (!alive[k] || k === keep || k === drop) continue;
      const v = (link[keep][k] * size[keep] + link[drop][k] * size[drop]) / (size[keep] + size[drop]);
      link[keep][k] = link[k][keep] = v;
    }
    size[keep] += size[drop];
    members[keep] = [...members[keep], ...members[drop]].sort((x, y) => x - y);
    alive[drop] = false;
    for (let k = 0; k < n; k++) {
      if (!alive[k]) continue;
      if (k === keep || best[k] === drop || best[k] === keep) best[k] = bestOf(k);
      else if (link[k][keep] > link[k][best[k]]) best[k] = keep;
    }
  }

  const clusters: Cluster[] = [];
  for (let i = 0; i < n; i++) {
    if (!alive[i]) continue;
    const m = members[i];
    let central = m[0];
    let bestMean = -Infinity;
    let total = 0;
    for (const x of m) {
      let s = 0;
      for (const y of m) if (y !== x) s += sim[x][y];
      const mean = m.length > 1 ? s / (m.length - 1) : 1;
      total += s;
      if (mean > bestMean) {
        bestMean = mean;
        central = x;
      }
    }
    clusters.push({ members: m, central, cohesion: m.length > 1 ? total / (m.length * (m.length - 1)) : 1 });
  }
  // Biggest topics first; then by first member for a stable order.
  clusters.sort((x, y) => y.members.length - x.members.length || x.members[0] - y.members[0]);
  return { clusters, threshold: cut };
}
