/**
 * The appended part of a generation (issue 46): work added since the generation's base was
 * written whole. An update that only adds new commits' work links the base files
 * (vectors.hnsw, meta.json, lexical.json, sources.json) into the new generation unchanged and
 * writes the new documents here, so its cost is the new work's and the delta's, not the
 * history's. Readers see base and delta as one index; an update that changes or removes
 * anything, or a delta grown past MAX_DELTA_SHARE of the base, writes a new base (build.ts).
 *
 *   delta.json   the appended documents, their chunks, lexical counts and source texts
 *   delta.hnsw   their vectors (labels from the base's nextLabel on)
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import path from 'node:path';
import { IndexUnavailableError } from '../../shared/errors.js';
import { BoundedReadError, readRegularFileSync } from '../../shared/fsutil/bounded-read.js';
import type { IndexMeta, Manifest, StoredChunk, StoredDoc } from './types.js';

export const DELTA_FILE = 'delta.json';
export const DELTA_VECTORS = 'delta.hnsw';
/** A generation holding a delta: an agentos that reads only whole generations refuses it rather than missing its documents. */
export const APPEND_FORMAT_VERSION = 2;
const DELTA_VERSION = 1;
/** The delta is folded into a new base when it holds more than this share of the base's chunks (and more than MIN_DELTA_CHUNKS). */
export const MAX_DELTA_SHARE = 0.05;
export const MIN_DELTA_CHUNKS = 64;

export interface DeltaJson {
  version: number;
  /** The appended documents, in the order they were added. */
  docs: StoredDoc[];
  /** [label, index into `docs`, section, excerpt]. */
  chunks: StoredChunk[];
  /** Each appended document's lexical counts: [path, content length, [term, count] pairs]. */
  lexical: Array<[string, number, Array<[string, number]>]>;
  /** Source documents' texts by key (git work: its text, for a later rebuild of the lexical index). */
  texts: Record<string, string>;
}

export const emptyDelta = (): DeltaJson => ({ version: DELTA_VERSION, docs: [], chunks: [], lexical: [], texts: {} });

/** Whether a delta of `deltaChunks` chunks beside a base of `baseChunks` is still small enough to append to. */
export const deltaFits = (deltaChunks: number, baseChunks: number): boolean =>
  deltaChunks <= Math.max(MIN_DELTA_CHUNKS, MAX_DELTA_SHARE * baseChunks);

/** The bytes of one of a generation's extra files, checked against the manifest (bounded by it). */
export function readChecked(dir: string, name: string, manifest: Manifest): Buffer {
  const want = manifest.integrity.extra?.[name];
  const file = path.join(dir, name);
  if (!want) throw new IndexUnavailableError(`index generation ${dir} lists no ${name}; run \`agentos index --full\``);
  let buf: Buffer;
  try {
    buf = readRegularFileSync(file, want.bytes + 1);
  } catch (e) {
    if (e instanceof BoundedReadError && e.problem === 'missing')
      throw Object.assign(new Error(e.message), { code: 'ENOENT' });
    throw new IndexUnavailableError(
      `index file ${file} is unusable (${e instanceof BoundedReadError ? e.reason : (e as Error).message}); run \`agentos index --full\``,
    );
  }
  if (buf.length !== want.bytes || createHash('sha256').update(buf).digest('hex') !== want.sha256) {
    throw new IndexUnavailableError(`index file ${file} is truncated or corrupt; run \`agentos index --full\``);
  }
  return buf;
}

/**
 * The last delta read, by its file's identity and the manifest's hash of it: a check opens the vectors and the
 * lexical index of one generation (and an evaluation its sources), and each read, hashed and parsed the whole
 * delta again. A file changed since (another size, time or inode) is read and checked anew.
 */
let lastDelta: { key: string; json: DeltaJson } | null = null;

/** A generation's delta, or null when it has none. Throws IndexUnavailableError when it is listed but damaged. */
export function readDelta(dir: string, manifest: Manifest): DeltaJson | null {
  if (!manifest.delta) return null;
  const key = deltaKey(dir, manifest);
  if (key !== null && lastDelta?.key === key) return lastDelta.json;
  const json = parseDelta(dir, manifest);
  if (key !== null) lastDelta = { key, json };
  return json;
}

function deltaKey(dir: string, manifest: Manifest): string | null {
  const sha = manifest.integrity.extra?.[DELTA_FILE]?.sha256;
  try {
    const st = statSync(path.join(dir, DELTA_FILE));
    return sha ? `${path.resolve(dir)}\0${sha}\0${st.size}\0${st.mtimeMs}\0${st.ino}` : null;
  } catch {
    return null; // missing: parseDelta says so
  }
}

function parseDelta(dir: string, manifest: Manifest): DeltaJson {
  let json: DeltaJson;
  try {
    json = JSON.parse(readChecked(dir, DELTA_FILE, manifest).toString('utf8')) as DeltaJson;
  } catch (e) {
    if (e instanceof IndexUnavailableError || (e as NodeJS.ErrnoException).code === 'ENOENT') throw e;
    throw new IndexUnavailableError(
      `index file ${path.join(dir, DELTA_FILE)} is corrupt (${(e as Error).message}); run \`agentos index --full\``,
    );
  }
  if (
    json.version !== DELTA_VERSION ||
    !Array.isArray(json.docs) ||
    !Array.isArray(json.chunks) ||
    !Array.isArray(json.lexical)
  ) {
    throw new IndexUnavailableError(
      `index file ${path.join(dir, DELTA_FILE)} is of another version; run \`agentos index --full\``,
    );
  }
  return json;
}

/** Base and delta as one: the delta's documents after the base's, its chunks pointing at them. */
export function mergeMeta(base: IndexMeta, delta: DeltaJson | null): IndexMeta {
  if (!delta || delta.docs.length === 0) return base;
  const offset = base.docs.length;
  return {
    docs: [...base.docs, ...delta.docs],
    chunks: [...base.chunks, ...delta.chunks.map(([l, i, s, e]): StoredChunk => [l, i + offset, s, e])],
  };
}
