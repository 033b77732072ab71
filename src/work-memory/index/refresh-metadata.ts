import { extractMetadata, METADATA_VERSION } from '../corpus/metadata.js';
import { readTextFile } from '../corpus/read.js';
import type { CorpusFile } from '../corpus/types.js';
import type { Manifest, StoredDoc } from './types.js';

/** Was this index's metadata (issue ids, titles, relations) read by older rules than this agentos has? */
export function metadataOutdated(m: Pick<Manifest, 'metadataVersion'>): boolean {
  return (m.metadataVersion ?? 1) !== METADATA_VERSION;
}

/**
 * Read again the metadata of files kept unchanged from an index whose metadata rules
 * were older (their vectors stay: the text did not change). A file that changed or
 * cannot be read since the plan keeps what it had. Returns the texts read, for the
 * lexical index, and how many documents were refreshed.
 */
export async function refreshKeptMetadata(
  keep: StoredDoc[],
  files: CorpusFile[],
  hashOf: (relPath: string) => string | undefined,
  maxFileBytes: number,
): Promise<{ refreshed: number; texts: Map<string, string> }> {
  const byPath = new Map(files.map((f) => [f.relPath, f]));
  const texts = new Map<string, string>();
  let refreshed = 0;
  for (let i = 0; i < keep.length; i++) {
    const doc = keep[i];
    const file = doc.origin ? undefined : byPath.get(doc.filePath);
    if (!file) continue;
    const read = await readTextFile(file.absPath, maxFileBytes);
    if (!read.ok || read.hash !== hashOf(doc.filePath)) continue;
    const { metadata } = extractMetadata(doc.filePath, read.text, doc.types, read.hash);
    // Labels (the vectors) and the repository stay; everything read from the text is read again.
    keep[i] = {
      ...metadata,
      types: doc.types,
      labels: doc.labels,
      ...(doc.repository ? { repository: doc.repository } : {}),
    };
    texts.set(doc.filePath, read.text);
    refreshed++;
  }
  return { refreshed, texts };
}
