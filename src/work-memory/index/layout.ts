import path from 'node:path';

/**
 * `.agentos/index/CURRENT` names the live generation folder. A writer builds a
 * new generation beside it and swaps CURRENT with an atomic rename, so a crash
 * at any point leaves the previous generation intact and readers never see a
 * half-written index.
 */
export function indexPaths(root: string) {
  const dir = path.join(root, '.agentos', 'index');
  return {
    dir,
    current: path.join(dir, 'CURRENT'),
    lock: path.join(root, '.agentos', 'index.lock'),
    generation: (name: string) => ({
      dir: path.join(dir, name),
      manifest: path.join(dir, name, 'manifest.json'),
      vectors: path.join(dir, name, 'vectors.hnsw'),
      meta: path.join(dir, name, 'meta.json'),
    }),
  };
}
