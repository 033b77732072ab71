/**
 * The index update's side for work read from git or a tracker (src/work-memory/sources):
 * which of those documents are kept as indexed, which must be embedded, which are
 * gone. Their texts are kept in the generation (`sources.json`) so a later update
 * rebuilds the lexical index, and reads only new commits, without reading history again.
 */
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { CollectedSources, PreviousSources } from '../sources/collect.js';
import { isSourceKey, type DuplicatePair, type SourceDoc } from '../sources/types.js';
import type { HnswIndex } from './hnsw-index.js';
import { indexPaths } from './layout.js';
import type { Manifest, StoredDoc } from './types.js';
import { readDelta } from './delta.js';

export const sourcesFile = 'sources.json';
const SOURCES_VERSION = 1;

interface SourcesJson {
  version: number;
  /** Each source document's indexed text, by key. */
  texts: Record<string, string>;
  duplicates: DuplicatePair[];
}

export interface SourcePlan {
  keep: StoredDoc[];
  toEmbed: SourceDoc[];
  removed: StoredDoc[];
  /** A kept document's metadata changed (a revert marked it, a tracker title edited). */
  metaOnlyChange: boolean;
}

export function planSources(existing: HnswIndex | null, sources: CollectedSources | null): SourcePlan {
  const plan: SourcePlan = { keep: [], toEmbed: [], removed: [], metaOnlyChange: false };
  const present = new Set<string>();
  const old = new Map(
    (existing?.meta.docs ?? []).filter((d) => d.origin || isSourceKey(d.filePath)).map((d) => [d.filePath, d]),
  );
  const newKeys = new Set((sources?.docs ?? []).map((d) => d.metadata.filePath));
  // A rebased or cherry-picked commit has a new sha but the same text: its vectors are reused.
  const movable = new Map<string, StoredDoc>();
  for (const [key, d] of old) if (!newKeys.has(key) && !movable.has(d.contentHash)) movable.set(d.contentHash, d);
  const claimed = new Set<StoredDoc>();
  for (const d of sources?.docs ?? []) {
    const key = d.metadata.filePath;
    if (present.has(key)) continue;
    present.add(key);
    const same = old.get(key);
    // The vectors are of the chunks' text and title: both must be the same to keep them.
    const fits = (p: StoredDoc | undefined) =>
      p !== undefined && p.contentHash === d.metadata.contentHash && p.title === d.metadata.title;
    const candidate = same ?? movable.get(d.metadata.contentHash);
    const prev = fits(candidate) ? candidate : undefined;
    if (prev && !claimed.has(prev)) {
      claimed.add(prev);
      const next: StoredDoc = { ...d.metadata, labels: prev.labels };
      if (prev !== same || JSON.stringify({ ...prev, labels: [] }) !== JSON.stringify({ ...next, labels: [] }))
        plan.metaOnlyChange = true;
      plan.keep.push(next);
    } else {
      plan.toEmbed.push(d);
    }
  }
  for (const [key, d] of old) if (!present.has(key) && !claimed.has(d)) plan.removed.push(d);
  return plan;
}

/**
 * A generation's `sources.json`, checked against the manifest's hash, with the texts of work appended
 * since (delta.ts); null when absent, damaged or of another version.
 */
async function readSourcesJson(root: string, generation: string, manifest: Manifest): Promise<SourcesJson | null> {
  const integrity = manifest.integrity.extra?.[sourcesFile];
  if (!integrity) return null;
  try {
    const dir = indexPaths(root).generation(generation).dir;
    const buf = await readFile(path.join(dir, sourcesFile));
    if (createHash('sha256').update(buf).digest('hex') !== integrity.sha256) return null;
    const json = JSON.parse(buf.toString('utf8')) as SourcesJson;
    if (json.version !== SOURCES_VERSION) return null;
    const delta = readDelta(dir, manifest);
    return delta ? { ...json, texts: { ...json.texts, ...delta.texts } } : json;
  } catch {
    return null;
  }
}

/** The previous generation's source documents (metadata and text) and state, or null when it has none (read the sources again in full). */
export async function readPreviousSources(
  existing: HnswIndex,
  generation: string,
  root: string,
): Promise<PreviousSources | null> {
  const state = existing.manifest.sources;
  const json = state ? await readSourcesJson(root, generation, existing.manifest) : null;
  if (!state || !json) return null;
  const docs: SourceDoc[] = [];
  for (const d of existing.meta.docs) {
    const text = json.texts[d.filePath];
    if (!d.origin || text === undefined) continue;
    const { labels: _labels, repository: _repository, ...metadata } = d;
    docs.push({ metadata: { ...metadata, origin: d.origin }, text });
  }
  return { state, docs };
}

/** The live generation's source texts and labelled pairs (empty when it holds none, or they cannot be read). */
export async function readLiveSources(
  root: string,
  generation: string,
  manifest: Manifest,
): Promise<{ texts: Map<string, string>; duplicates: DuplicatePair[] }> {
  const json = await readSourcesJson(root, generation, manifest);
  return {
    texts: new Map(Object.entries(json?.texts ?? {})),
    duplicates: Array.isArray(json?.duplicates) ? json.duplicates : [],
  };
}

export function sourcesBuffer(s: CollectedSources): Buffer {
  const json: SourcesJson = {
    version: SOURCES_VERSION,
    texts: Object.fromEntries(s.docs.map((d) => [d.metadata.filePath, d.text])),
    duplicates: s.duplicates,
  };
  return Buffer.from(JSON.stringify(json));
}
