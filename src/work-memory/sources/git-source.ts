/**
 * Completed work from git: one document per pull request (a merge commit, or a
 * squash commit with `(#N)` in its subject) or else per commit of the default
 * branch's first-parent history. Incremental: when the branch only moved forward,
 * only the new commits are read; a rewritten history is read again in full.
 */
import { relatedOf } from '../corpus/relations.js';
import { readFileSync, realpathSync } from 'node:fs';
import { cutAtWord } from '../../shared/text/linear.js';
import path from 'node:path';
import { sha256 } from '../corpus/read.js';
import { authorsOf, git, readLog, type GitCommit } from './git-log.js';
import { readChangeWords, type ChangeWords } from './change-words.js';
import { inverseReverts, markReverted, recordRevert, type Verdicts } from './reverts.js';
import { compileRules, describeWork, notWork, type GitRules, type NotWork } from './git-work.js';
import { commitUrl, pullRequestUrl, webRepo, type WebRepo } from './remote.js';
import { CHANGE_WORDS_SECTION, type SourceDoc, type SourcesState } from './types.js';

/** Paths kept per document (the text names fewer; `fileCount` says how many in all). */
export const MAX_ORIGIN_FILES = 50;
const FILES_IN_TEXT = 12;
/** A squash commit may carry every commit message of its branch: the opening part describes the work. */
const MAX_BODY_CHARS = 1500;
/** A subject is a line: one of 100 KB (seen on a real repository) made 117 chunks. */
const MAX_TITLE_CHARS = 300;
/**
 * How much of a commit is read into its text; a change re-reads the history in full. 2: the
 * lines its diff adds to docs and the names it adds (change-words.ts), subject and body capped.
 * 3: a name also on a removed line is not one it adds; locals and test fixtures rank last.
 */
export const GIT_READING_VERSION = 3;

export interface GitSourceOptions {
  root: string;
  /** The branch to read; null: the remote's default branch, else main/master, else HEAD. */
  branch: string | null;
  rules: GitRules;
  previous: { state: NonNullable<SourcesState['git']>; docs: SourceDoc[] } | null;
  /**
   * Only new work on top of `previous` is wanted (an update that appends, index/append.ts; its
   * `docs` are not read): the result holds the new commits' documents alone, or is null when the
   * history must be read otherwise (rewritten, other rules, a revert among the new commits).
   */
  appendOnly?: boolean;
}

export interface GitSourceResult {
  docs: SourceDoc[];
  state: NonNullable<SourcesState['git']>;
  /**
   * How the history was read: unchanged, the new commits only, or in full (and why); `shallow`, on
   * a shallow clone, the date before which the history is not there (null on a whole one).
   */
  read: {
    mode: 'unchanged' | 'incremental' | 'full';
    commits: number;
    reason: string | null;
    shallow?: string | null;
    /** Commits whose diff git could not read (change-words.ts): indexed without their words; git's reason. */
    unreadable?: { commits: number; reason: string } | null;
  };
}

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
async function shallowBoundary(root: string): Promise<string[]> {
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

export async function readGitSource(o: GitSourceOptions & { appendOnly?: false }): Promise<GitSourceResult>;
export async function readGitSource(o: GitSourceOptions): Promise<GitSourceResult | null>;
export async function readGitSource(o: GitSourceOptions): Promise<GitSourceResult | null> {
  const { ref, head } = await resolveRef(o.root, o.branch);
  const rulesKey = JSON.stringify([o.rules.excludeSubjects, o.rules.excludeAuthors]);
  // The recorded head is our own file's, but it becomes a revision range: only a sha is taken.
  // Documents chosen by other exclusion rules, or read for less of their text, are not these: read again.
  const sameRules = o.previous?.state.rules === rulesKey;
  const sameReading = (o.previous?.state.reading ?? 0) === GIT_READING_VERSION;
  // A clone deepened (or made shallow) since: the history below the old boundary is new, and the boundary commits' file lists change.
  const boundary = await shallowBoundary(o.root);
  const shallowKey = boundary.length ? sha256(boundary.join('\n')).slice(0, 16) : undefined;
  const sameDepth = o.previous?.state.shallow === shallowKey;
  const prev =
    o.previous && sameRules && sameReading && sameDepth && /^[0-9a-f]{40,64}$/.test(o.previous.state.head)
      ? o.previous
      : null;
  const shallowNote = boundary.length ? await shallowSince(o.root, boundary) : null;
  if (prev && prev.state.ref === ref && prev.state.head === head) {
    return {
      docs: prev.docs,
      state: prev.state,
      read: { mode: 'unchanged', commits: 0, reason: null, shallow: shallowNote },
    };
  }
  const skipped: Record<string, number> = {};
  // A branch that no longer resolves is not new work: the whole update says so and drops its documents.
  if (o.appendOnly && !head) return null;
  if (!head)
    return {
      docs: [],
      state: { ref, head, documents: 0, skipped, rules: rulesKey, reading: GIT_READING_VERSION, shallow: shallowKey },
      read: { mode: 'full', commits: 0, reason: 'no commits' },
    };
  const remote = await git(o.root, ['remote', 'get-url', 'origin'], { allowFail: true });
  const repo = remote.code === 0 ? webRepo(remote.stdout) : null;
  const rules = compileRules(o.rules);

  let incremental = false;
  let reason: string | null = prev
    ? null
    : o.previous && !sameRules
      ? 'the exclusion rules changed'
      : o.previous && !sameReading
        ? 'commits are now read for what they add to docs and the names they add'
        : o.previous && !sameDepth
          ? o.previous.state.shallow && !shallowKey
            ? 'the clone was deepened to its whole history'
            : 'the clone was deepened or made shallow'
          : 'first read';
  if (prev && prev.state.ref === ref && prev.state.head) {
    const ancestor = await git(o.root, ['merge-base', '--is-ancestor', prev.state.head, head], { allowFail: true });
    incremental = ancestor.code === 0;
    if (!incremental) reason = `${ref} was rewritten (${prev.state.head.slice(0, 7)} is no longer in its history)`;
  } else if (prev) {
    reason = `the branch changed (${prev.state.ref} -> ${ref})`;
  }

  if (o.appendOnly && !incremental) return null;
  const verdicts: Verdicts = new Map();
  const work: GitCommit[] = [];
  let commits = 0;
  // A project in a folder of a larger repository remembers the work that touched its folder.
  const prefix = (await git(o.root, ['rev-parse', '--show-prefix'])).stdout;
  const range = incremental ? `${prev!.state.head}..${head}` : head;
  const paths = prefix ? [`:(top,literal)${prefix}`] : [];
  // Reverts by what they do: a commit that puts an earlier one's files back as they were undoes it, whatever its title.
  const undoes = await inverseReverts(o.root, range, incremental ? prev!.state.head : null, paths);
  for await (const c of readLog(o.root, range, { paths })) {
    commits++;
    const why: NotWork | null = notWork(c, rules);
    // A branch merged into another (`Merge branch 'main' into x`) can diff as anything: it undoes nothing by its diff.
    recordRevert(verdicts, c, why === 'merge-of-branch' ? null : (undoes.get(c.sha) ?? null));
    if (why) {
      skipped[why] = (skipped[why] ?? 0) + 1;
      continue;
    }
    work.push(c);
  }
  // A shallow clone's boundary commit "adds" its whole tree: no file list, no words of its own.
  const cut = new Set(boundary);
  for (const c of work) if (cut.has(c.sha)) c.files = [];
  // What each piece of work says about itself in its diff: a second streamed pass over the same range.
  const shas = new Set(work.filter((c) => !cut.has(c.sha)).map((c) => c.sha));
  const said = shas.size ? await readChangeWords(o.root, range, (sha) => shas.has(sha), paths) : null;
  const words = said?.words ?? new Map<string, ChangeWords>();
  const unreadable = said?.unreadable ? { commits: said.unreadable.shas.length, reason: said.unreadable.reason } : null;
  // A merge's author merged it; its branch's author wrote it (the second parent's author).
  const merges = work.filter((c) => c.parents.length > 1);
  const branchAuthors = await authorsOf(
    o.root,
    merges.map((c) => c.parents[1]),
  );
  const fresh = work.map((c) =>
    toDoc(c, repo, words.get(c.sha) ?? null, c.parents.length > 1 ? (branchAuthors.get(c.parents[1]) ?? null) : null),
  );
  if (incremental) for (const [k, v] of Object.entries(prev!.state.skipped)) skipped[k] = (skipped[k] ?? 0) + v;
  // Appending: the new work alone, unless a revert among it changes work already indexed.
  if (o.appendOnly) {
    if (verdicts.size) return null;
    const state = {
      ref,
      head,
      documents: prev!.state.documents + fresh.length,
      skipped,
      rules: rulesKey,
      reading: GIT_READING_VERSION,
      shallow: shallowKey,
    };
    return { docs: fresh, state, read: { mode: 'incremental', commits, reason, shallow: shallowNote, unreadable } };
  }
  // Newest first, as git gives them; a revert marks the work it undid.
  const docs = incremental ? [...fresh, ...prev!.docs] : fresh;
  if (verdicts.size) markReverted(docs, verdicts);
  return {
    docs,
    state: {
      ref,
      head,
      documents: docs.length,
      skipped,
      rules: rulesKey,
      reading: GIT_READING_VERSION,
      shallow: shallowKey,
    },
    read: { mode: incremental ? 'incremental' : 'full', commits, reason, shallow: shallowNote, unreadable },
  };
}

function toDoc(c: GitCommit, repo: WebRepo | null, words: ChangeWords | null, branchAuthor: string | null): SourceDoc {
  const w = describeWork(c);
  const paths = c.files.map((f) => f.path);
  const title = cutAtWord(w.title, MAX_TITLE_CHARS);
  const body = cutAtWord(w.body, MAX_BODY_CHARS);
  const shown =
    paths.slice(0, FILES_IN_TEXT).join(', ') +
    (paths.length > FILES_IN_TEXT ? `, and ${paths.length - FILES_IN_TEXT} more` : '');
  const said = words
    ? [`## ${CHANGE_WORDS_SECTION}`, words.docs, words.names.length ? `Names: ${words.names.join(', ')}` : '']
    : [];
  const text = [`# ${title}`, body, paths.length ? `Files: ${shown}` : '', ...said].filter(Boolean).join('\n\n') + '\n';
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
        author: branchAuthor || c.author || null,
        // Who merged it, when that was someone else (GitHub's merge button: the maintainer).
        ...(branchAuthor && c.author && branchAuthor !== c.author ? { mergedBy: c.author } : {}),
      },
    },
  };
}

/** "history before 2026-03-01 is not in this shallow clone": the oldest boundary commit's date. */
async function shallowSince(root: string, boundary: string[]): Promise<string> {
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
