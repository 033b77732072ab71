/**
 * Which line of a repository's history is its own: the default branch (origin/HEAD, else the
 * configured one, init.defaultBranch, main, master, trunk, develop, or the branch HEAD shares most
 * recently), and a shallow clone's boundary. git-source.ts reads the history of the branch found here.
 */
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { git } from './git-log.js';
import { webRepo } from './remote.js';

/** Whether `root` is inside a git work tree with at least one commit. */
export async function hasGitHistory(root: string): Promise<boolean> {
  try {
    return (await git(root, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { allowFail: true })).code === 0;
  } catch {
    return false;
  }
}

const ORIGIN_HEAD = 'refs/remotes/origin/HEAD';
/** The names a default branch goes by, in the order a tie is broken. */
const LOCAL_DEFAULTS = ['main', 'master', 'trunk', 'develop', 'development'];

/**
 * The ref whose history is the project's completed work, and the commit it points at now
 * ('' without commits): the configured branch, else the remote's default branch, else the
 * repository's own default among its local branches (init.defaultBranch, main, master, trunk,
 * develop), else HEAD. With several of those, the one whose history HEAD shares most recently:
 * a feature branch off `develop` is not measured against a stale `master`, and a feature
 * branch's own commits (work in progress) are never read as done. One `git for-each-ref` in
 * the usual case: it runs before every check.
 */
export async function resolveRef(root: string, branch: string | null): Promise<{ ref: string; head: string }> {
  if (branch) return { ref: branch, head: await headOf(root, branch) };
  const names = LOCAL_DEFAULTS.map((n) => `refs/heads/${n}`);
  const listed = await git(
    root,
    ['for-each-ref', '--format=%(refname)%00%(symref)%00%(objectname)', ORIGIN_HEAD, ...names],
    { allowFail: true },
  );
  const found = new Map<string, { symref: string; sha: string }>();
  for (const line of listed.code === 0 ? listed.stdout.split('\n') : []) {
    const [name, symref, sha] = line.split('\0');
    if (name && sha) found.set(name, { symref, sha });
  }
  // origin/HEAD names the remote's default branch: that branch is the ref recorded.
  const origin = found.get(ORIGIN_HEAD);
  if (origin) return { ref: origin.symref || ORIGIN_HEAD, head: origin.sha };
  // No remote to say: the repository's own setting names it first, when it is a branch here.
  const configured = await git(root, ['config', '--get', 'init.defaultBranch'], { allowFail: true });
  if (
    configured.code === 0 &&
    /^[\w./-]{1,100}$/.test(configured.stdout) &&
    !LOCAL_DEFAULTS.includes(configured.stdout)
  ) {
    const own = `refs/heads/${configured.stdout}`;
    const sha = await headOf(root, own);
    if (sha) {
      names.unshift(own);
      found.set(own, { symref: '', sha });
    }
  }
  const local = names.filter((n) => found.has(n));
  if (local.length === 1) return { ref: local[0], head: found.get(local[0])!.sha };
  if (local.length > 1)
    return sharedMostRecently(
      root,
      local.map((ref) => ({ ref, head: found.get(ref)!.sha })),
    );
  return { ref: 'HEAD', head: await headOf(root, 'HEAD') };
}

/**
 * Of several default-looking branches, the one HEAD's history shares most recently: its merge base
 * with HEAD descends from the others' (ancestry, not dates: commits made in one second tie; no
 * history walk, as this runs before every check).
 */
async function sharedMostRecently(
  root: string,
  branches: Array<{ ref: string; head: string }>,
): Promise<{ ref: string; head: string }> {
  let best: { ref: string; head: string; base: string } | null = null;
  for (const b of branches) {
    const r = await git(root, ['merge-base', 'HEAD', b.head], { allowFail: true });
    const base = r.code === 0 ? r.stdout.split('\n')[0] : '';
    if (!base) continue;
    if (
      !best ||
      (base !== best.base &&
        (await git(root, ['merge-base', '--is-ancestor', best.base, base], { allowFail: true })).code === 0)
    )
      best = { ...b, base };
  }
  return best ? { ref: best.ref, head: best.head } : branches[0];
}

/**
 * The commits where a shallow clone's history stops (their parents are not there), or [] for
 * a whole history. A boundary commit diffs against nothing: git lists every file of the tree.
 */
export async function shallowBoundary(root: string): Promise<string[]> {
  const r = await git(root, ['rev-parse', '--is-shallow-repository', '--git-path', 'shallow'], { allowFail: true });
  const [shallow, file] = r.stdout.split('\n');
  if (r.code !== 0 || shallow !== 'true' || !file) return [];
  try {
    const text = readFileSync(path.resolve(root, file), 'utf8');
    return text
      .split('\n')
      .filter((l) => /^[0-9a-f]{40,64}$/.test(l))
      .sort();
  } catch {
    return [];
  }
}

/** The commit `ref` points at now ('' when none). */
async function headOf(root: string, ref: string): Promise<string> {
  const r = await git(root, ['rev-parse', '--verify', '-q', `${ref}^{commit}`], { allowFail: true });
  return r.code === 0 ? r.stdout : '';
}

/** "history before 2026-03-01 is not in this shallow clone": the oldest boundary commit's date. */
export async function shallowSince(root: string, boundary: string[]): Promise<string> {
  const dates = await git(root, ['show', '-s', '--format=%cI', ...boundary.slice(0, 50)], { allowFail: true });
  const oldest = dates.stdout.split('\n').filter(Boolean).sort()[0];
  return oldest
    ? `a shallow clone: history before ${oldest.slice(0, 10)} is not there (git fetch --unshallow reads the rest)`
    : 'a shallow clone: older history is not there';
}

/**
 * What `init` proposes: the default branch and its first-parent commit count, when
 * `root` is the top of a git work tree with history (a project folder inside another
 * repository is not offered that repository's history).
 */
export async function detectGitHistory(root: string): Promise<{ ref: string; commits: number } | null> {
  try {
    const top = await git(root, ['rev-parse', '--show-toplevel'], { allowFail: true });
    if (top.code !== 0 || realpathSync(top.stdout) !== realpathSync(root)) return null;
    if (!(await hasGitHistory(root))) return null;
    const { ref } = await resolveRef(root, null);
    const count = await git(root, ['rev-list', '--first-parent', '--count', ref]);
    return { ref, commits: Number(count.stdout) || 0 };
  } catch {
    return null;
  }
}

/** Whether the `origin` remote is on GitHub (what the GitHub CLI would fetch from). */
export async function githubRemote(root: string): Promise<boolean> {
  const r = await git(root, ['remote', 'get-url', 'origin'], { allowFail: true }).catch(() => null);
  return r?.code === 0 && webRepo(r.stdout)?.host === 'github';
}
