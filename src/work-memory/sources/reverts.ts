/**
 * Work since undone (issue 46): a revert is found by its title (`Revert "…"`, `This reverts commit
 * <sha>`) and by what it did, its diff being the inverse of an earlier first-parent change. The newest
 * verdict on a piece of work stands; a revert of a revert puts it back.
 */
import type { DocStatus } from '../corpus/types.js';
import { blobSignatures, type GitCommit } from './git-log.js';
import { revertOf } from './git-work.js';
import type { SourceDoc } from './types.js';

/**
 * What the newest revert decided about a piece of work, by `sha:<sha>` or `title:<title>`:
 * undone (by which commit), or put back (null). Commits come newest first, so the first
 * verdict on a piece of work is the one that stands.
 */
export type Verdicts = Map<string, { sha: string; date: string } | null>;

export function recordRevert(verdicts: Verdicts, c: GitCommit, undoes: string | null): void {
  const r = revertOf(c);
  if (!r && !undoes) return;
  // A revert that a newer commit undid undoes nothing now.
  const cancelled =
    verdicts.get(`sha:${c.sha}`) ??
    [...verdicts].find(([k, v]) => v && k.length < 44 && k.startsWith('sha:') && c.sha.startsWith(k.slice(4)))?.[1];
  if (cancelled) return;
  if (undoes && !verdicts.has(`sha:${undoes}`)) verdicts.set(`sha:${undoes}`, { sha: c.sha, date: c.date });
  if (!r) return;
  if (r.sha && !verdicts.has(`sha:${r.sha}`)) verdicts.set(`sha:${r.sha}`, { sha: c.sha, date: c.date });
  if (r.title && !verdicts.has(`title:${r.title}`))
    verdicts.set(`title:${r.title}`, r.reapplies ? null : { sha: c.sha, date: c.date });
}

/** How far back, in first-parent commits, an update looks for the change a new commit undoes. */
const REVERT_LOOKBACK = 5000;

/**
 * The commits of `range` that undo an earlier first-parent commit, by what they did to their files
 * (git-log.ts blobSignatures): reverting sha -> reverted sha, the nearest older commit whose files it
 * put back exactly as they were before it. A change that is its own inverse undoes nothing. A revert
 * after the same files changed again in between is not seen this way (its blobs differ); its title
 * still says so when git wrote it.
 */
export async function inverseReverts(
  root: string,
  range: string,
  before: string | null,
  paths: string[],
): Promise<Map<string, string>> {
  // A full read walks the whole history (raw logs are cheap); an update, its new commits and then, from where the
  // last read stopped, as far back as the lookback: two walks that do not overlap.
  const recent = await blobSignatures(root, range, { paths });
  if (!recent.length) return new Map();
  const older = before ? await blobSignatures(root, before, { paths, maxCount: REVERT_LOOKBACK }) : [];
  return matchInverses([...recent, ...older], recent.length);
}

/** Of `history` (newest first), each of its first `count` commits that is the inverse of an older one: reverting sha -> reverted sha. */
function matchInverses(history: Awaited<ReturnType<typeof blobSignatures>>, count: number): Map<string, string> {
  const out = new Map<string, string>();
  const older = new Map<string, number[]>();
  history.forEach((c, i) => older.set(c.forward, [...(older.get(c.forward) ?? []), i]));
  history.slice(0, count).forEach((c, i) => {
    if (c.inverse === c.forward) return;
    const target = older.get(c.inverse)?.find((j) => j > i);
    if (target !== undefined) out.set(c.sha, history[target].sha);
  });
  return out;
}

export function markReverted(docs: SourceDoc[], verdicts: Verdicts): void {
  const short = [...verdicts.keys()].filter((k) => k.startsWith('sha:') && k.length < 44);
  const titled = new Set<string>();
  for (let i = 0; i < docs.length; i++) {
    const m = docs[i].metadata;
    const sha = m.origin.ref;
    let v = verdicts.get(`sha:${sha}`) ?? verdicts.get(short.find((k) => sha.startsWith(k.slice(4))) ?? '');
    // By title: the newest work of that title older than the revert (GitHub's revert button names no sha).
    const byTitle = verdicts.get(`title:${m.title}`);
    if (
      v === undefined &&
      byTitle !== undefined &&
      !titled.has(m.title) &&
      (byTitle === null || (m.origin.date ?? '') <= byTitle.date)
    ) {
      v = byTitle;
      titled.add(m.title);
    }
    if (v === undefined) continue;
    if (v === null) {
      // Put back by a later revert of the revert.
      if (m.status === 'superseded' && m.statusReason?.startsWith('Reverted in'))
        docs[i] = { ...docs[i], metadata: { ...m, status: 'done', statusReason: null } };
      continue;
    }
    const status: DocStatus = 'superseded';
    docs[i] = {
      ...docs[i],
      metadata: { ...m, status, statusReason: `Reverted in ${v.sha.slice(0, 7)} (${v.date.slice(0, 10)})` },
    };
  }
}
