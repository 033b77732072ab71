export type CorpusType = 'standard' | 'history';
export type DocumentType = 'issue' | 'lld' | 'standard' | 'adr';
export type DocStatus = 'done' | 'accepted' | 'rejected' | 'superseded' | 'deprecated' | 'proposed' | 'open';

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
}
