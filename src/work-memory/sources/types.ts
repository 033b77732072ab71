import type { DocMetadata } from '../corpus/types.js';

/** A piece of completed work read from git or a tracker rather than from a file. */
export interface SourceDoc {
  /** Its metadata; `filePath` is its key (`git:<sha>`, `github:issue/12`, `tracker:<file>#<id>`), `origin` is set. */
  metadata: DocMetadata & { origin: NonNullable<DocMetadata['origin']> };
  /** The markdown text indexed (title, description, files). */
  text: string;
}

/** What the sources looked at, kept in the manifest so a freshness check needs no history read. */
export interface SourcesState {
  /** `rules`: the exclusion rules the documents were chosen by (a change reads the history again). */
  git?: { ref: string; head: string; documents: number; skipped: Record<string, number>; rules?: string };
  trackers?: Array<{ path: string; size: number; mtimeMs: number; documents: number }>;
}

/** A labelled pair a tracker gives for free: a report closed as the duplicate of another. */
export interface DuplicatePair {
  key: string;
  title: string;
  text: string;
  /** Key of the work it duplicates. */
  of: string;
}

export const isSourceKey = (key: string) => /^(?:git|github|tracker):/.test(key);
