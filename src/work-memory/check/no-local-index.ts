/**
 * A project with no index of its own can still be checked against the team store
 * (`--scope org`, issue 30): its local side is an empty index, so the organisation's
 * documents and statistics are all there is. Nothing here is ever written.
 */
import type { LexicalData } from '../lexical/file.js';
import { Bm25Index } from '../lexical/bm25.js';
import { INDEX_FORMAT_VERSION, type Manifest, type VectorIndex } from '../index/types.js';

export function emptyLocalIndex(identity: {
  modelId: string;
  modelFingerprint: string;
  dimensions: number;
  maxTokens: number;
}): { index: VectorIndex; lexical: LexicalData } {
  const manifest = {
    formatVersion: INDEX_FORMAT_VERSION,
    ...identity,
    chunkingVersion: 0,
    includeHistory: true,
    createdAt: new Date(0).toISOString(),
    chunkCount: 0,
    nextLabel: 0,
    deletedCount: 0,
    files: {},
    coverage: { standard: 0, history: 0 },
  } as unknown as Manifest;
  const index: VectorIndex = {
    manifest,
    count: () => 0,
    search: () => [],
    scoreDoc: () => null,
    doc: () => undefined,
    docCount: () => 0,
    docMean: () => null,
  };
  return {
    index: index,
    lexical: {
      bm25: new Bm25Index([]),
      templates: { shingle: 0, minDocs: Infinity, docs: 0, hashes: new Set(), examples: [] },
    },
  };
}
