export type CorpusType = 'standard' | 'history';
export type DocumentType = 'issue' | 'lld' | 'standard' | 'adr';
export type DocStatus = 'done' | 'accepted' | 'rejected' | 'superseded' | 'deprecated' | 'proposed' | 'open';

/** A standard that no longer stands (superseded, deprecated, rejected): shown as such wherever it is listed, never as a rule to follow. */
export const standsNoLonger = (status: string | null | undefined): boolean =>
  status === 'superseded' || status === 'deprecated' || status === 'rejected';

/** How every output marks a standard that no longer stands (`SUPERSEDED`), or null when it stands. */
export const noLongerStandingWord = (status: string | null | undefined): string | null =>
  standsNoLonger(status) ? status!.toUpperCase() : null;

/** A file the corpus globs selected, not yet read. */
export interface CorpusFile {
  /** Repo-relative, "/"-separated. */
  relPath: string;
  absPath: string;
  types: CorpusType[];
  size: number;
  mtimeMs: number;
}

export interface SkippedFile {
  relPath: string;
  reason: string;
}

/** What we know about one document, stored in the index beside its chunks. */
export interface DocMetadata {
  filePath: string;
  types: CorpusType[];
  documentType: DocumentType;
  issueId: string | null;
  title: string;
  summary: string;
  status: DocStatus | null;
  /** Why it was rejected / what superseded it, when the text says. */
  statusReason: string | null;
  contentHash: string;
  /** Issue ids the text names as other work (related, prerequisite, followed up): never the same work (corpus/relations.ts). Absent when none. */
  related?: string[];
  /** The issue a file states it is the work of (frontmatter, a header field, an `#N` H1; corpus/metadata.ts statedIssueId). Absent when only a file or folder number gives its id. */
  ownIssue?: string;
  /** Work read from git or a tracker (src/work-memory/sources): absent for a file. */
  origin?: WorkOrigin;
}

export type WorkSource = 'git' | 'github' | 'tracker';

/** Where a piece of work read from git or a tracker comes from, and what a person needs to act on it. */
export interface WorkOrigin {
  source: WorkSource;
  kind: 'commit' | 'pull-request' | 'issue';
  /** The commit sha (git), or the issue / pull request number or id. */
  ref: string;
  /** The pull request a git commit merged, when known. */
  pullRequest: string | null;
  /** Issue numbers it closes. */
  closes: string[];
  url: string | null;
  /** Paths it touched (git), at most MAX_ORIGIN_FILES. */
  files: string[];
  /** How many paths it touched in all. */
  fileCount: number;
  /** When it was merged, committed or closed (ISO 8601). */
  date: string | null;
  /** Who did the work (for a merge: the merged branch's author, or the pull request's). */
  author: string | null;
  /** Who merged it, when someone else did (absent otherwise, and in older indexes). */
  mergedBy?: string | null;
}
