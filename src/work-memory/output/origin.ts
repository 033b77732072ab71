/**
 * What a person needs to act on work read from git or a tracker: which pull
 * request or commit it was, when it was done and by whom, where to see it, the
 * files it touched. One wording for the terminal, the brief and `--json`.
 */
import type { WorkOrigin } from '../corpus/types.js';

/** The origin fields of a match in `--json` (a file's match says `source: "file"`). */
export function originJson(o: WorkOrigin | undefined) {
  // The same keys for every match: a file's say what it is not.
  if (!o)
    return {
      source: 'file' as const,
      ref: null,
      kind: null,
      pullRequest: null,
      closes: [] as string[],
      url: null,
      files: [] as string[],
      fileCount: 0,
      date: null,
      author: null,
      mergedBy: null,
    };
  return {
    source: o.source,
    ref: o.ref,
    kind: o.kind,
    pullRequest: o.pullRequest,
    closes: o.closes,
    url: o.url,
    files: o.files,
    fileCount: o.fileCount,
    date: o.date,
    author: o.author,
    mergedBy: o.mergedBy ?? null,
  };
}

/** An id as shown: only the characters ids are made of, so it is safe in a terminal and in markdown wherever it comes from. */
const id = (s: string) => s.replace(/[^\w.#/-]/g, '').slice(0, 64);

/** "pull request #1324", "commit 1a2b3c4", "issue #12", "PROJ-12". */
export function originRef(o: WorkOrigin): string {
  if (o.pullRequest)
    return `${o.source === 'git' || o.source === 'github' ? 'pull request' : 'change'} #${id(o.pullRequest)}`;
  if (o.source === 'git') return `commit ${id(o.ref).slice(0, 7)}`;
  return o.source === 'github' ? `issue #${id(o.ref)}` : id(o.ref);
}

/** "merged 2026-07-15 by Chris Gash, closes #1300". */
export function originDone(o: WorkOrigin): string {
  const verb = o.kind === 'issue' ? 'closed' : o.pullRequest ? 'merged' : 'committed';
  // The work's author; who merged it said apart ("merged 2026-07-15, by Ada (merged by Mona)").
  const by = o.author ? `${o.mergedBy ? ',' : ''} by ${o.author}${o.mergedBy ? ` (merged by ${o.mergedBy})` : ''}` : '';
  const parts = [`${verb}${o.date ? ` ${o.date.slice(0, 10)}` : ''}${by}`];
  if (o.closes.length) parts.push(`closes ${o.closes.map((n) => `#${id(n)}`).join(', ')}`);
  return parts.join(', ');
}

/** A document key as a person reads it: `github:issue/12` is "issue #12", `git:<sha>` "commit 1a2b3c4"; a file path stays. */
export function keyLabel(key: string): string {
  const m = /^(git|github|tracker):(.*)$/.exec(key);
  if (!m) return key;
  if (m[1] === 'git') return `commit ${m[2].slice(0, 7)}`;
  if (m[1] === 'github') return m[2].replace(/^issue\//, 'issue #').replace(/^pull\//, 'pull request #');
  return m[2];
}

/** The first few files it touched, and how many more. */
export function originFiles(o: WorkOrigin, max = 5): string | null {
  if (!o.files.length) return null;
  const shown = o.files.slice(0, max).join(', ');
  return o.fileCount > max ? `${shown} and ${o.fileCount - max} more` : shown;
}
