import type { CorpusFile } from './types.js';

/** `001-issue.md`, `001-brief.md`, `003-draft.md`: the sequence files of an issue folder. */
const SEQUENCE = /^(\d+)-(issue|brief|draft)\.md$/i;

function rank(name: string): number | null {
  const m = SEQUENCE.exec(name);
  if (!m) return null;
  const kind = m[2].toLowerCase();
  // The filed issue wins; else the last draft (the text that was filed); else the brief.
  if (kind === 'issue') return 1e9;
  if (kind === 'draft') return 1e6 + Number(m[1]);
  return Number(m[1]);
}

/**
 * History layouts that keep each issue as a folder of revisions
 * (`docs/audit/done/<N>-<slug>/001-brief.md`, `NNN-draft.md`, `001-issue.md`)
 * describe ONE piece of work: keep one history document per folder, so the
 * drafts of an issue never match each other or count as separate history.
 * Files that are also standards are never dropped.
 */
export function oneDocumentPerIssueFolder(files: CorpusFile[]): CorpusFile[] {
  const best = new Map<string, { file: CorpusFile; rank: number }>();
  for (const f of files) {
    if (f.types.includes('standard') || !f.types.includes('history')) continue;
    const slash = f.relPath.lastIndexOf('/');
    const r = rank(f.relPath.slice(slash + 1));
    if (r === null) continue;
    const folder = f.relPath.slice(0, slash);
    const prev = best.get(folder);
    if (!prev || r > prev.rank) best.set(folder, { file: f, rank: r });
  }
  return files.filter((f) => {
    if (f.types.includes('standard') || !f.types.includes('history')) return true;
    const slash = f.relPath.lastIndexOf('/');
    if (rank(f.relPath.slice(slash + 1)) === null) return true;
    return best.get(f.relPath.slice(0, slash))?.file === f;
  });
}
