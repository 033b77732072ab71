import type { DocMetadata, WorkOrigin } from '../corpus/types.js';

/** A piece of completed work read from git or a tracker rather than from a file. */
export interface SourceDoc {
  /** Its metadata; `filePath` is its key (`git:<sha>`, `github:issue/12`, `tracker:<id>`: ids of two exports share one namespace), `origin` is set. */
  metadata: DocMetadata & { origin: NonNullable<DocMetadata['origin']> };
  /** The markdown text indexed (title, description, files). */
  text: string;
}

/** What the sources looked at, kept in the manifest so a freshness check needs no history read. */
export interface SourcesState {
  /** `rules`: the exclusion rules the documents were chosen by (a change reads the history again). */
  /** `reading`: how much of each commit was read into its text (git-source.ts GIT_READING_VERSION; absent: 1); `shallow`: a shallow clone's boundary, as a key (absent: a whole history). */
  git?: {
    ref: string;
    head: string;
    documents: number;
    skipped: Record<string, number>;
    rules?: string;
    reading?: number;
    shallow?: string;
  };
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

/** The section of a commit's text that holds what its diff adds (docs lines and names, change-words.ts): a chunk of its own. */
export const CHANGE_WORDS_SECTION = 'What the change adds';

export const isSourceKey = (key: string) => /^(?:git|github|tracker):/.test(key);

/**
 * An origin read back from outside the index (the team store's metadata): kept only when
 * every field has its shape, so a forged row cannot break a check that renders it.
 */
export function checkedOrigin(v: unknown): WorkOrigin | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const str = (x: unknown, max = 2048) => typeof x === 'string' && x.length <= max;
  const strs = (x: unknown) => Array.isArray(x) && x.length <= 1000 && x.every((s) => str(s));
  const nullable = (x: unknown) => x === null || str(x);
  const ident = (x: unknown) => typeof x === 'string' && /^[\w.#/-]{1,64}$/.test(x);
  const ok =
    ['git', 'github', 'tracker'].includes(o.source as string) &&
    ['commit', 'pull-request', 'issue'].includes(o.kind as string) &&
    ident(o.ref) &&
    (o.pullRequest === null || ident(o.pullRequest)) &&
    Array.isArray(o.closes) &&
    o.closes.length <= 100 &&
    o.closes.every(ident) &&
    (o.url === null || (str(o.url) && /^https?:\/\//.test(o.url as string))) &&
    strs(o.files) &&
    Number.isSafeInteger(o.fileCount) &&
    nullable(o.date) &&
    nullable(o.author) &&
    (o.mergedBy === undefined || nullable(o.mergedBy));
  return ok ? (o as unknown as WorkOrigin) : undefined;
}
