/**
 * Completed work from git: one document per pull request (a merge commit, or a
 * squash commit with `(#N)` in its subject) or else per commit of the default
 * branch's first-parent history. Incremental: when the branch only moved forward,
 * only the new commits are read; a rewritten history is read again in full.
 */
import { relatedOf } from '../corpus/relations.js';
import { realpathSync } from 'node:fs';
import { sha256 } from '../corpus/read.js';
import type { DocStatus } from '../corpus/types.js';
import { git, readLog, type GitCommit } from './git-log.js';
import { compileRules, describeWork, notWork, revertOf, type GitRules, type NotWork } from './git-work.js';
import { commitUrl, pullRequestUrl, webRepo, type WebRepo } from './remote.js';
import type { SourceDoc, SourcesState } from './types.js';

/** Paths kept per document (the text names fewer; `fileCount` says how many in all). */
export const MAX_ORIGIN_FILES = 50;
const FILES_IN_TEXT = 12;
/** A squash commit may carry every commit message of its branch: the opening part describes the work. */
const MAX_BODY_CHARS = 1500;

export interface GitSourceOptions {
  root: string;
  /** The branch to read; null: the remote's default branch, else main/master, else HEAD. */
  branch: string | null;
  rules: GitRules;
  previous: { state: NonNullable<SourcesState['git']>; docs: SourceDoc[] } | null;
}

export interface GitSourceResult {
  docs: SourceDoc[];
  state: NonNullable<SourcesState['git']>;
  /** How the history was read: unchanged, the new commits only, or in full (and why). */
  read: { mode: 'unchanged' | 'incremental' | 'full'; commits: number; reason: string | null };
}

/** Whether `root` is inside a git work tree with at least one commit. */
export async function hasGitHistory(root: string): Promise<boolean> {
  try {
    return (await git(root, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { allowFail: true })).code === 0;
  } catch {
    return false;
  }
}

const CANDIDATES = ['refs/remotes/origin/HEAD', 'refs/heads/main', 'refs/heads/master', 'refs/heads/trunk'];

/**
 * The ref whose history is the project's completed work, and the commit it points at now
 * ('' without commits): the configured branch, else the remote's default branch, else
 * main/master/trunk, else HEAD. One `git for-each-ref` in the usual case: it runs before
 * every check.
 */
export async function resolveRef(root: string, branch: string | null): Promise<{ ref: string; head: string }> {
  if (branch) return { ref: branch, head: await headOf(root, branch) };
  const listed = await git(root, ['for-each-ref', '--format=%(refname)%00%(symref)%00%(objectname)', ...CANDIDATES], { allowFail: true });
  const found = new Map<string, { symref: string; sha: string }>();
  for (const line of listed.code === 0 ? listed.stdout.split('\n') : []) {
    const [name, symref, sha] = line.split('\0');
    if (name && sha) found.set(name, { symref, sha });
  }
  for (const name of CANDIDATES) {
    const f = found.get(name);
    // origin/HEAD names the remote's default branch: that branch is the ref recorded.
    if (f) return { ref: name === CANDIDATES[0] && f.symref ? f.symref : name, head: f.sha };
  }
  return { ref: 'HEAD', head: await headOf(root, 'HEAD') };
}

/** The commit `ref` points at now ('' when none). */
async function headOf(root: string, ref: string): Promise<string> {
  const r = await git(root, ['rev-parse', '--verify', '-q', `${ref}^{commit}`], { allowFail: true });
  return r.code === 0 ? r.stdout : '';
}

export async function readGitSource(o: GitSourceOptions): Promise<GitSourceResult> {
  const { ref, head } = await resolveRef(o.root, o.branch);
  const rulesKey = JSON.stringify([o.rules.excludeSubjects, o.rules.excludeAuthors]);
  // The recorded head is our own file's, but it becomes a revision range: only a sha is taken.
  // Documents chosen by other exclusion rules are not these rules' documents: read again.
  const sameRules = o.previous?.state.rules === rulesKey;
  const prev = o.previous && sameRules && /^[0-9a-f]{40,64}$/.test(o.previous.state.head) ? o.previous : null;
  if (prev && prev.state.ref === ref && prev.state.head === head) {
    return { docs: prev.docs, state: prev.state, read: { mode: 'unchanged', commits: 0, reason: null } };
  }
  const skipped: Record<string, number> = {};
  if (!head) return { docs: [], state: { ref, head, documents: 0, skipped, rules: rulesKey }, read: { mode: 'full', commits: 0, reason: 'no commits' } };
  const remote = await git(o.root, ['remote', 'get-url', 'origin'], { allowFail: true });
  const repo = remote.code === 0 ? webRepo(remote.stdout) : null;
  const rules = compileRules(o.rules);

  let incremental = false;
  let reason: string | null = prev ? null : o.previous && !sameRules ? 'the exclusion rules changed' : 'first read';
  if (prev && prev.state.ref === ref && prev.state.head) {
    const ancestor = await git(o.root, ['merge-base', '--is-ancestor', prev.state.head, head], { allowFail: true });
    incremental = ancestor.code === 0;
    if (!incremental) reason = `${ref} was rewritten (${prev.state.head.slice(0, 7)} is no longer in its history)`;
  } else if (prev) {
    reason = `the branch changed (${prev.state.ref} -> ${ref})`;
  }

  const verdicts: Verdicts = new Map();
  const fresh: SourceDoc[] = [];
  let commits = 0;
  // A project in a folder of a larger repository remembers the work that touched its folder.
  const prefix = (await git(o.root, ['rev-parse', '--show-prefix'])).stdout;
  for await (const c of readLog(o.root, incremental ? `${prev!.state.head}..${head}` : head, { paths: prefix ? [`:(top,literal)${prefix}`] : [] })) {
    commits++;
    recordRevert(verdicts, c);
    const why: NotWork | null = notWork(c, rules);
    if (why) {
      skipped[why] = (skipped[why] ?? 0) + 1;
      continue;
    }
    fresh.push(toDoc(c, repo));
  }
  if (incremental) for (const [k, v] of Object.entries(prev!.state.skipped)) skipped[k] = (skipped[k] ?? 0) + v;
  // Newest first, as git gives them; a revert marks the work it undid.
  const docs = incremental ? [...fresh, ...prev!.docs] : fresh;
  if (verdicts.size) markReverted(docs, verdicts);
  return { docs, state: { ref, head, documents: docs.length, skipped, rules: rulesKey }, read: { mode: incremental ? 'incremental' : 'full', commits, reason } };
}

/**
 * What the newest revert decided about a piece of work, by `sha:<sha>` or `title:<title>`:
 * undone (by which commit), or put back (null). Commits come newest first, so the first
 * verdict on a piece of work is the one that stands.
 */
type Verdicts = Map<string, { sha: string; date: string } | null>;

function recordRevert(verdicts: Verdicts, c: GitCommit): void {
  const r = revertOf(c);
  if (!r) return;
  // A revert that a newer commit undid undoes nothing now.
  const cancelled = verdicts.get(`sha:${c.sha}`) ?? [...verdicts].find(([k, v]) => v && k.length < 44 && k.startsWith('sha:') && c.sha.startsWith(k.slice(4)))?.[1];
  if (cancelled) return;
  if (r.sha && !verdicts.has(`sha:${r.sha}`)) verdicts.set(`sha:${r.sha}`, { sha: c.sha, date: c.date });
  if (r.title && !verdicts.has(`title:${r.title}`)) verdicts.set(`title:${r.title}`, r.reapplies ? null : { sha: c.sha, date: c.date });
}

function markReverted(docs: SourceDoc[], verdicts: Verdicts): void {
  const short = [...verdicts.keys()].filter((k) => k.startsWith('sha:') && k.length < 44);
  const titled = new Set<string>();
  for (let i = 0; i < docs.length; i++) {
    const m = docs[i].metadata;
    const sha = m.origin.ref;
    let v = verdicts.get(`sha:${sha}`) ?? verdicts.get(short.find((k) => sha.startsWith(k.slice(4))) ?? '');
    // By title: the newest work of that title older than the revert (GitHub's revert button names no sha).
    const byTitle = verdicts.get(`title:${m.title}`);
    if (v === undefined && byTitle !== undefined && !titled.has(m.title) && (byTitle === null || (m.origin.date ?? '') <= byTitle.date)) {
      v = byTitle;
      titled.add(m.title);
    }
    if (v === undefined) continue;
    if (v === null) {
      // Put back by a later revert of the revert.
      if (m.status === 'superseded' && m.statusReason?.startsWith('Reverted in')) docs[i] = { ...docs[i], metadata: { ...m, status: 'done', statusReason: null } };
      continue;
    }
    const status: DocStatus = 'superseded';
    docs[i] = { ...docs[i], metadata: { ...m, status, statusReason: `Reverted in ${v.sha.slice(0, 7)} (${v.date.slice(0, 10)})` } };
  }
}

function toDoc(c: GitCommit, repo: WebRepo | null): SourceDoc {
  const w = describeWork(c);
  const paths = c.files.map((f) => f.path);
  const body = w.body.length > MAX_BODY_CHARS ? `${w.body.slice(0, MAX_BODY_CHARS).replace(/\s+\S*$/, '')} …` : w.body;
  const shown = paths.slice(0, FILES_IN_TEXT).join(', ') + (paths.length > FILES_IN_TEXT ? `, and ${paths.length - FILES_IN_TEXT} more` : '');
  const text = [`# ${w.title}`, body, paths.length ? `Files: ${shown}` : ''].filter(Boolean).join('\n\n') + '\n';
  const summary = (body || w.title).replace(/\s+/g, ' ').slice(0, 300);
  return {
    text,
    metadata: {
      filePath: `git:${c.sha}`,
      types: ['history'],
      documentType: 'issue',
      issueId: w.closes[0] ?? w.pullRequest,
      title: w.title.slice(0, 200),
      summary,
      status: 'done',
      statusReason: null,
      contentHash: sha256(text),
      ...relatedOf(body, w.closes[0] ?? w.pullRequest),
      origin: {
        source: 'git',
        kind: w.pullRequest ? 'pull-request' : 'commit',
        ref: c.sha,
        pullRequest: w.pullRequest,
        closes: w.closes,
        url: w.pullRequest ? pullRequestUrl(repo, w.pullRequest) : commitUrl(repo, c.sha),
        files: paths.slice(0, MAX_ORIGIN_FILES),
        fileCount: paths.length,
        date: c.date || null,
        author: c.author || null,
      },
    },
  };
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
