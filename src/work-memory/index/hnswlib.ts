import { createRequire } from 'node:module';

/** hnswlib-node is a native addon: load it only when an index is touched. */
export interface HnswGraph {
  initIndex(
    maxElements: number,
    m?: number,
    efConstruction?: number,
    randomSeed?: number,
    allowReplaceDeleted?: boolean,
  ): void;
  readIndexSync(filename: string, allowReplaceDeleted?: boolean): void;
  writeIndexSync(filename: string): void;
  resizeIndex(n: number): void;
  addPoint(point: number[] | Float32Array, label: number, replaceDeleted?: boolean): void;
  markDelete(label: number): void;
  searchKnn(
    q: number[] | Float32Array,
    k: number,
    filter?: (label: number) => boolean,
  ): { distances: number[]; neighbors: number[] };
  getIdsList(): number[];
  getPoint(label: number): number[];
  getCurrentCount(): number;
  getMaxElements(): number;
  setEf(ef: number): void;
}

export interface Hnswlib {
  HierarchicalNSW: new (space: 'ip' | 'l2' | 'cosine', dims: number) => HnswGraph;
}

/**
 * Required, not imported: the package is CommonJS, and import() would take it through the ES
 * module loader's CommonJS translation (~5 ms of a cold `issue start` against ~3 ms required).
 */
export function loadHnswlib(): Promise<Hnswlib> {
  try {
    const mod = createRequire(import.meta.url)('hnswlib-node') as { default?: Hnswlib } & Hnswlib;
    return Promise.resolve(mod.default ?? mod);
  } catch (e) {
    return Promise.reject(e instanceof Error ? e : new Error(String(e)));
  }
}

export const HNSW_M = 16;
export const HNSW_EF_CONSTRUCTION = 200;
