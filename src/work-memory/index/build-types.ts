/** What an index build is asked to do and what it reports (build.ts, append.ts). */
import type { Config } from '../../shared/config/schema.js';
import type { SkippedFile } from '../corpus/types.js';
import type { Embedder } from '../embeddings/embedder.js';
import type { CollectedSources } from '../sources/collect.js';

export interface ModelIdentity {
  modelId: string;
  modelFingerprint: string;
  dimensions: number;
  maxTokens: number;
}

export type BuildProgress =
  | { phase: 'scan'; files: number }
  | { phase: 'model' }
  | { phase: 'embed'; done: number; total: number; tokens?: number; totalTokens?: number }
  | { phase: 'write' };

export interface BuildOptions {
  root: string;
  config: Config;
  includeHistory: boolean;
  full: boolean;
  /** What the embedder will be, known without loading it (a no-op run never loads the model). */
  model: ModelIdentity;
  loadEmbedder: () => Promise<Embedder>;
  lockWaitMs: number;
  onProgress?: (p: BuildProgress) => void;
  /** Fetch tracker exports from the network (`sources.github`): an explicit `agentos index` only. */
  fetchSources?: boolean;
  /** Refuse (IndexUnavailableError) instead of rebuilding in full: a refresh before a check must stay quick. */
  incrementalOnly?: boolean;
}

export interface BuildReport {
  scanned: number;
  added: string[];
  changed: string[];
  unchanged: number;
  removed: string[];
  skipped: SkippedFile[];
  warnings: string[];
  chunks: number;
  chunksEmbedded: number;
  tokensEmbedded: number;
  fullRebuildReason: string | null;
  /** Unchanged files whose metadata was read again (the index was read by older rules; refresh-metadata.ts). */
  metadataRefreshed?: number;
  /** No usable index existed before (none, or one holding no documents). */
  firstBuild: boolean;
  wrote: boolean;
  generation: string | null;
  /** What git and the tracker exports gave (null when no source besides files is configured or history is off). */
  sources: {
    documents: number;
    git:
      | (NonNullable<CollectedSources['git']> & { ref: string; documents: number; notWork: Record<string, number> })
      | null;
    trackers: Array<{ path: string; documents: number }>;
  } | null;
}
