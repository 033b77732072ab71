/**
 * Which piece of work an attempt was made for (issue 21 §5): the join between
 * the attempt memory and the work memory. When a check relates a new brief to
 * past work #27, the failures recorded while #27 was being done are shown
 * beside it. An attempt's work is, first that applies:
 *   1. given (`attempt record --work`, the MCP tool's `work`, a JSON record's "work");
 *   2. AGENTOS_WORK in the environment;
 *   3. the brief `agentos issue start` last began on this branch (.agentos/memory/work.json);
 *   4. an issue number in the branch name (`feat/27-build-cache`, `issue-27`, `gh-27`).
 * Ids are kept normalised ("#027" → "27"), the way the index keeps issue ids.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ensureMemoryDir } from '../shared/fsutil/memory-dir.js';
import { writeFileAtomic } from '../shared/fsutil/atomic-write.js';

export const WORK_FILE = path.join('.agentos', 'memory', 'work.json');
const MAX_WORK = 64;

/**
 * "#027" → "27", " PROJ-27 " → "proj-27"; null for nothing, or for anything that is not
 * an id (at most 64 letters, digits and . _ / - : no spaces, quotes or control
 * characters, so a work id never carries a sentence, a secret's context or an escape).
 * The index's issue ids read the same way.
 */
export function workId(id: string | null | undefined): string | null {
  const t = id?.trim().replace(/^#\s*/, '');
  if (!t || t.length > MAX_WORK || !/^[\p{L}\p{N}._/-]+$/u.test(t)) return null;
  const n = /^0*(\d+)$/.exec(t);
  return n ? n[1] : t.toLowerCase();
}

/** The branch checked out in `root` (a worktree's .git file followed), or null (detached, not git). */
export function currentBranch(root: string): string | null {
  // The project may be a folder of a larger repository: the nearest .git above it counts.
  for (let dir = path.resolve(root); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return branchAt(dir);
    if (path.dirname(dir) === dir) return null;
  }
}

function branchAt(root: string): string | null {
  try {
    let gitDir = path.join(root, '.git');
    let head: string;
    try {
      head = readFileSync(path.join(gitDir, 'HEAD'), 'utf8');
    } catch (e) {
      // A worktree or submodule: .git is a file naming the real folder.
      if ((e as NodeJS.ErrnoException).code !== 'ENOTDIR') throw e;
      const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(gitDir, 'utf8'));
      if (!pointer) return null;
      gitDir = path.resolve(root, pointer[1].trim());
      head = readFileSync(path.join(gitDir, 'HEAD'), 'utf8');
    }
    const ref = /^ref:\s*refs\/heads\/(.+)$/m.exec(head);
    return ref ? ref[1].trim().slice(0, 200) : null;
  } catch {
    return null;
  }
}

/** The issue number a branch name carries: `27-cache`, `feat/27-cache`, `issue-27`, `gh-27_x`, `user/issue27`. */
export function issueFromBranch(branch: string | null): string | null {
  if (!branch) return null;
  const last = branch.split('/').pop() ?? '';
  // A date (`release/2024-10`, `hotfix/2025-01-15`) is not an issue number.
  if (/^(?:19|20)\d\d[-_.]\d{1,2}(?:$|[-_.])/.test(last)) return null;
  // A version (`2.3`, `node-20.x`) is not an issue: a number must end the name or be followed by - or _.
  const m =
    /^(?:(?:issue|issues|gh|bug|fix|feat|feature|task|ticket)[-_]?)?#?0*(\d{1,9})(?:[-_]|$)/i.exec(last) ??
    /(?:^|[-_])(?:issue|gh|bug)[-_]?0*(\d{1,9})(?:[-_]|$)/i.exec(last);
  return m ? m[1] : null;
}

interface WorkFile {
  work: string;
  branch: string | null;
  title?: string;
  at: string;
}

/** What `issue start` began on this branch; null when it began nothing here or on another branch. */
export function startedWork(root: string, branch: string | null): string | null {
  try {
    const w = JSON.parse(readFileSync(path.join(root, WORK_FILE), 'utf8')) as Partial<WorkFile>;
    if (typeof w.work !== 'string' || (w.branch ?? null) !== branch) return null;
    return workId(w.work);
  } catch {
    return null;
  }
}

/** `issue start` records the work it began (replaced atomically; the last one started wins). */
export async function noteStartedWork(
  root: string,
  work: string,
  title: string,
  branch: string | null,
  now = new Date(),
): Promise<void> {
  ensureMemoryDir(root);
  const record: WorkFile = { work, branch, title: title.slice(0, 300), at: now.toISOString() };
  await writeFileAtomic(path.join(root, WORK_FILE), JSON.stringify(record, null, 2) + '\n');
}

/** The work and branch an attempt recorded now belongs to (the rules at the top of this file). */
export function workOf(
  root: string,
  given: string | null | undefined,
  env: NodeJS.ProcessEnv,
  clean: (s: string) => string = (s) => s,
): { work: string | null; branch: string | null } {
  const raw = currentBranch(root);
  // Redacted before anything else reads it: a secret is never cut or lower-cased out of its shape first.
  const branch = raw === null ? null : clean(raw);
  const from = (v: string | null | undefined) => (v ? workId(clean(v)) : null);
  const work = from(given) ?? from(env.AGENTOS_WORK) ?? startedWork(root, raw) ?? issueFromBranch(branch);
  return { work, branch };
}
