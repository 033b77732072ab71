import { createHash } from 'node:crypto';
import { copyFile, link, mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { headSha } from './hnsw-index.js';
import type { HnswGraph } from './hnswlib.js';
import { indexPaths } from './layout.js';
import type { IndexMeta, Manifest } from './types.js';

async function fsyncPath(p: string, dir = false): Promise<void> {
  const fh = await open(p, dir ? 'r' : 'r+');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Write a complete new generation and swap it in. Order matters: every file is
 * written and fsynced inside a temp folder, the folder is renamed into place,
 * and only then is CURRENT replaced by rename. A crash before the last rename
 * leaves the old generation live; after it, the new one is complete.
 */
export async function writeGeneration(
  root: string,
  manifest: Omit<Manifest, 'integrity'>,
  meta: IndexMeta,
  vectors: { graph: HnswGraph } | { linkFrom: string },
  /** Further files of the generation (the lexical index), written and fsynced with the rest. */
  extra: Record<string, Buffer> = {},
): Promise<string> {
  const paths = indexPaths(root);
  await mkdir(paths.dir, { recursive: true });
  const name = `gen-${Date.now().toString(36)}-${process.pid}`;
  const tmp = path.join(paths.dir, `.tmp-${name}`);
  await mkdir(tmp);
  const vecFile = path.join(tmp, 'vectors.hnsw');
  if ('graph' in vectors) vectors.graph.writeIndexSync(vecFile);
  else await link(vectors.linkFrom, vecFile);
  const metaBuf = Buffer.from(JSON.stringify(meta));
  await writeFile(path.join(tmp, 'meta.json'), metaBuf);
  const extraIntegrity: Record<string, { bytes: number; sha256: string }> = {};
  for (const [file, buf] of Object.entries(extra)) {
    await writeFile(path.join(tmp, file), buf);
    extraIntegrity[file] = { bytes: buf.length, sha256: createHash('sha256').update(buf).digest('hex') };
  }
  const { size } = await stat(vecFile);
  const full: Manifest = {
    ...manifest,
    integrity: {
      vectorsBytes: size,
      vectorsHeadSha256: headSha(vecFile),
      metaBytes: metaBuf.length,
      metaSha256: createHash('sha256').update(metaBuf).digest('hex'),
      ...(Object.keys(extraIntegrity).length ? { extra: extraIntegrity } : {}),
    },
  };
  await writeFile(path.join(tmp, 'manifest.json'), JSON.stringify(full, null, 1));
  for (const f of ['vectors.hnsw', 'meta.json', ...Object.keys(extra), 'manifest.json'])
    await fsyncPath(path.join(tmp, f));
  await swapIn(root, tmp, name);
  return name;
}

/** The complete temp folder `tmp` renamed into place as generation `name`, then CURRENT pointed at it (both by rename). */
async function swapIn(root: string, tmp: string, name: string): Promise<void> {
  const paths = indexPaths(root);
  await rename(tmp, paths.generation(name).dir);
  const currentTmp = `${paths.current}.tmp-${process.pid}`;
  await writeFile(currentTmp, name + '\n');
  await fsyncPath(currentTmp);
  await rename(currentTmp, paths.current);
  await fsyncPath(paths.dir, true).catch(() => undefined);
}

/**
 * A generation that appends to `previous` (delta.ts): every file of `previous` but its manifest
 * is linked unchanged (its bytes, sizes and hashes are the manifest's already), `files` are
 * written beside them and listed in the manifest's integrity, and the swap is writeGeneration's.
 */
export async function appendGeneration(
  root: string,
  previous: string,
  manifest: Manifest,
  files: Record<string, Buffer>,
): Promise<string> {
  const paths = indexPaths(root);
  const name = `gen-${Date.now().toString(36)}-${process.pid}`;
  const tmp = path.join(paths.dir, `.tmp-${name}`);
  await mkdir(tmp);
  const from = paths.generation(previous).dir;
  for (const f of await readdir(from))
    if (f !== 'manifest.json' && !(f in files)) await linkOrCopy(path.join(from, f), path.join(tmp, f));
  const extra = { ...(manifest.integrity.extra ?? {}) };
  for (const [file, buf] of Object.entries(files)) {
    await writeFile(path.join(tmp, file), buf);
    await fsyncPath(path.join(tmp, file));
    extra[file] = { bytes: buf.length, sha256: createHash('sha256').update(buf).digest('hex') };
  }
  await writeFile(
    path.join(tmp, 'manifest.json'),
    JSON.stringify({ ...manifest, integrity: { ...manifest.integrity, extra } }, null, 1),
  );
  await fsyncPath(path.join(tmp, 'manifest.json'));
  await swapIn(root, tmp, name);
  return name;
}

/** A file of the previous generation in the new one: linked (no bytes written), copied where the filesystem cannot link. */
async function linkOrCopy(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch {
    await copyFile(from, to);
    await fsyncPath(to);
  }
}

/** Move a damaged CURRENT (a folder, a symlink to a device) out of the way; pruning deletes it. Call while holding the lock. */
export async function setAsideCurrent(root: string): Promise<void> {
  const paths = indexPaths(root);
  await rename(paths.current, path.join(paths.dir, `.tmp-damaged-CURRENT-${process.pid}-${Date.now().toString(36)}`));
}

/**
 * Remove generations other than the live one and the one before it (a reader
 * may still be opening that), and temp folders of crashed writers. Call only
 * while holding the index lock.
 */
export async function pruneGenerations(root: string, opts: { keep: string[] } | { tempOnly: true }): Promise<void> {
  const keep = 'keep' in opts ? opts.keep : null;
  const { dir } = indexPaths(root);
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return;
  }
  for (const e of entries) {
    const stale =
      (keep !== null && e.startsWith('gen-') && !keep.includes(e)) || e.startsWith('.tmp-') || /^CURRENT\.tmp-/.test(e);
    if (stale) await rm(path.join(dir, e), { recursive: true, force: true });
  }
}
