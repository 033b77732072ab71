/**
 * What an index update must do, decided before any model loads: which documents
 * are kept as they are, which must be embedded, which are gone. The same stat
 * comparison serves the freshness scan before a check (freshness.ts) and the
 * build (build.ts): a file whose size and mtime match the manifest is unchanged;
 * the build alone then reads the others' content hash to tell a touched file from
 * a changed one.
 */
import type { CorpusFile } from '../corpus/types.js';
import { readTextFile } from '../corpus/read.js';
import { compareText } from '../../shared/text/compare.js';
import type { HnswIndex } from './hnsw-index.js';
import type { Manifest, StoredDoc } from './types.js';

export interface StatDiff<F> {
  /** In the manifest with the same size and mtime. */
  same: F[];
  /** In the manifest with another size or mtime (maybe only touched). */
  changed: F[];
  /** Not in the manifest (nor skipped unchanged by the last build). */
  added: F[];
  /** Skipped by the last build (binary, too large, no text) and unchanged since. */
  skippedSame: F[];
  /** In the manifest, no longer on disk. */
  removed: string[];
}

/** The pure stat comparison of a scan with the manifest. */
export function statDiff<F extends Pick<CorpusFile, 'relPath' | 'size' | 'mtimeMs'>>(
  manifest: Pick<Manifest, 'files' | 'skipped'>,
  files: F[],
): StatDiff<F> {
  const d: StatDiff<F> = { same: [], changed: [], added: [], skippedSame: [], removed: [] };
  const seen = new Set<string>();
  for (const f of files) {
    seen.add(f.relPath);
    const prev = manifest.files[f.relPath];
    if (prev) {
      (prev.size === f.size && prev.mtimeMs === f.mtimeMs ? d.same : d.changed).push(f);
      continue;
    }
    const skipped = manifest.skipped?.[f.relPath];
    (skipped && skipped.size === f.size && skipped.mtimeMs === f.mtimeMs ? d.skippedSame : d.added).push(f);
  }
  d.removed = Object.keys(manifest.files)
    .filter((p) => !seen.has(p))
    .sort(compareText);
  return d;
}

export type FileRead = Awaited<ReturnType<typeof readTextFile>>;

export interface UpdatePlan {
  /** Documents kept as indexed (their types refreshed). */
  keep: StoredDoc[];
  /** Files to read, chunk and embed (new, changed, or skipped before: a skip is re-examined). */
  toEmbed: CorpusFile[];
  /** Files already read for their hash: not read again to be embedded. */
  reads: Map<string, FileRead>;
  /** The stat pair and hash the manifest will record for each kept file. */
  statUpdates: Record<string, { hash: string; size: number; mtimeMs: number }>;
  unchanged: number;
  /** Indexed documents no longer in the corpus. */
  removed: StoredDoc[];
  /** Nothing to embed may still mean a manifest to rewrite (touched files, new types). */
  metaOnlyChange: boolean;
}

/** The plan for `files` against the live generation (`existing`, null for a first or full build). */
export async function planUpdate(
  existing: HnswIndex | null,
  files: CorpusFile[],
  maxFileBytes: number,
): Promise<UpdatePlan> {
  const oldDocs = new Map((existing?.meta.docs ?? []).map((d) => [d.filePath, d]));
  const manifest: Pick<Manifest, 'files' | 'skipped'> = existing?.manifest ?? { files: {} };
  const plan: UpdatePlan = {
    keep: [],
    toEmbed: [],
    reads: new Map(),
    statUpdates: {},
    unchanged: 0,
    removed: [],
    metaOnlyChange: false,
  };
  const keep = (f: CorpusFile, prevDoc: StoredDoc, hash: string) => {
    const types = [...f.types].sort();
    if (types.join() !== prevDoc.types.join()) plan.metaOnlyChange = true;
    plan.keep.push({ ...prevDoc, types });
    plan.statUpdates[f.relPath] = { hash, size: f.size, mtimeMs: f.mtimeMs };
    plan.unchanged++;
  };
  const diff = statDiff(manifest, files);
  const kind = new Map<string, 'same' | 'changed' | 'new'>();
  for (const f of diff.same) kind.set(f.relPath, 'same');
  for (const f of diff.changed) kind.set(f.relPath, 'changed');
  for (const f of [...diff.added, ...diff.skippedSame]) kind.set(f.relPath, 'new');
  // In scan order, as the build always went (the report's lists follow it).
  for (const f of files) {
    const prev = manifest.files[f.relPath];
    const prevDoc = oldDocs.get(f.relPath);
    if (kind.get(f.relPath) === 'new' || !prev || !prevDoc) {
      plan.toEmbed.push(f);
      continue;
    }
    if (kind.get(f.relPath) === 'same') {
      keep(f, prevDoc, prev.hash);
      continue;
    }
    // Another size or mtime: the content decides (a `touch` or a checkout is not a change).
    const read = await readTextFile(f.absPath, maxFileBytes);
    if (read.ok && read.hash === prev.hash) {
      plan.metaOnlyChange = true;
      keep(f, prevDoc, prev.hash);
    } else {
      plan.reads.set(f.relPath, read);
      plan.toEmbed.push(f);
    }
  }
  const scanned = new Set(files.map((f) => f.relPath));
  plan.removed = [...oldDocs.values()].filter((d) => !scanned.has(d.filePath));
  return plan;
}
