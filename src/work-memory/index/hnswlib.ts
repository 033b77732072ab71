/** hnswlib-node is a native addon: load it only when an index is touched. */
export interface HnswGraph {
  initIndex(maxElements: number, m?: number, efConstruction?: number, randomSeed?: number, allowReplaceDeleted?: boolean): void;
  readIndexSync(filename: string, allowReplaceDeleted?: boolean): void;
  writeIndexSync(filename: string): void;
  resizeIndex(n: number): void;
  addPoint(point: number[] | Float32Array, label: number, replaceDeleted?: boolean): void;
  markDelete(label: number): void;
  searchKnn(q: number[] | Float32Array, k: number, filter?: (label: number) => boolean): { distances: number[]; neighbors: number[] };
  getIdsList(): number[];
  getPoint(label: number): number[];
  getCurrentCount(): number;
  getMaxElements(): number;
  setEf(ef: number): void;
}

export interface Hnswlib {
  HierarchicalNSW: new (space: 'ip' | 'l2' | 'cosine', dims: number) => HnswGraph;
}

export async function loadHnswlib(): Promise<Hnswlib> {
  const mod = (await import('hnswlib-node')) as unknown as { default?: Hnswlib } & Hnswlib;
  return mod.default ?? mod;
}

export const HNSW_M = 16;
export const HNSW_EF_CONSTRUCTION = 200;
