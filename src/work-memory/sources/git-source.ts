/**
 * Completed work from git: one document per pull request (a merge commit, or a
 * squash commit with `(#N)` in its subject) or else per commit of the default
 * branch's first-parent history. Incremental: when the branch only moved forward,
 * only the new commits are read; a rewritten history is read again in full.
 */
import { relatedOf } from '../corpus/relations.js';
import { cutAtWord } from '../../shared/text/linear.js';
import { sha256 } from '../corpus/read.js';
import { authorsOf, git, readLog, type GitCommit } from './git-log.js';
import { readChangeWords, type ChangeWords } from './change-words.js';
import { inverseReverts, markReverted, recordRevert, type Verdicts } from './reverts.js';
import { resolveRef, shallowBoundary, shallowSince } from './git-branch.js';
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

export async function readGitSource(o: GitSourceOptions & { appendOnly?: false }): Promise<GitSourceResult>;
export async function readGitSource(o: GitSourceOptions): Promise<GitSourceResult | null>;
export async function readGitSource(o: GitSourceOptions): Promise<GitSourceResult | null> {
  const { ref, head } = await resolveRef(o.root, o.branch);
  const before = await whatWasRead(o);
  const { prev, rulesKey, shallowKey, shallowNote } = before;
  if (prev && prev.state.ref === ref && prev.state.head === head) {
    return {
      docs: prev.docs,
      state: prev.state,
      read: { mode: 'unchanged', commits: 0, reason: null, shallow: shallowNote },
    };
  }
  // A branch that no longer resolves is not new work: the whole update says so and drops its documents.
  if (o.appendOnly && !head) return null;
  if (!head)
    return {
      docs: [],
      state: {
        ref,
        head,
        documents: 0,
        skipped: {},
        rules: rulesKey,
        reading: GIT_READING_VERSION,
        shallow: shallowKey,
      },
      read: { mode: 'full', commits: 0, reason: 'no commits' },
    };
  const { incremental, reason } = await howToRead(o, before, ref, head);
  if (o.appendOnly && !incremental) return null;
  // A project in a folder of a larger repository remembers the work that touched its folder.
  const prefix = (await git(o.root, ['rev-parse', '--show-prefix'])).stdout;
  const range = incremental ? `${prev!.state.head}..${head}` : head;
  const paths = prefix ? [`:(top,literal)${prefix}`] : [];
  const { work, commits, skipped, verdicts } = await readWork(o, range, incremental ? prev!.state.head : null, paths);
  const { fresh, unreadable } = await documentsOf(o, work, before.boundary, range, paths);
  if (incremental) for (const [k, v] of Object.entries(prev!.state.skipped)) skipped[k] = (skipped[k] ?? 0) + v;
  const state = (documents: number) => ({
    ref,
    head,
    documents,
    skipped,
    rules: rulesKey,
    reading: GIT_READING_VERSION,
    shallow: shallowKey,
  });
  // Appending: the new work alone, unless a revert among it changes work already indexed.
  if (o.appendOnly) {
    if (verdicts.size) return null;
    const read = { mode: 'incremental' as const, commits, reason, shallow: shallowNote, unreadable };
    return { docs: fresh, state: state(prev!.state.documents + fresh.length), read };
  }
  // Newest first, as git gives them; a revert marks the work it undid.
  const docs = incremental ? [...fresh, ...prev!.docs] : fresh;
  if (verdicts.size) markReverted(docs, verdicts);
  return {
    docs,
    state: state(docs.length),
    read: { mode: incremental ? 'incremental' : 'full', commits, reason, shallow: shallowNote, unreadable },
  };
}

/**
 * The previous read, when this one can go on from it: the same exclusion rules, the same way of reading
 * a commit and the same depth of clone (a clone deepened or made shallow since changes the history below the
 * old boundary and the boundary commits' file lists). The recorded head is our own file's, but it becomes a
 * revision range: only a sha is taken.
 */
async function whatWasRead(o: GitSourceOptions) {
  const rulesKey = JSON.stringify([o.rules.excludeSubjects, o.rules.excludeAuthors]);
  const sameRules = o.previous?.state.rules === rulesKey;
  const sameReading = (o.previous?.state.reading ?? 0) === GIT_READING_VERSION;
  const boundary = await shallowBoundary(o.root);
  const shallowKey = boundary.length ? sha256(boundary.join('\n')).slice(0, 16) : undefined;
  const sameDepth = o.previous?.state.shallow === shallowKey;
  const prev =
    o.previous && sameRules && sameReading && sameDepth && /^[0-9a-f]{40,64}$/.test(o.previous.state.head)
      ? o.previous
      : null;
  const shallowNote = boundary.length ? await shallowSince(o.root, boundary) : null;
  return { prev, rulesKey, sameRules, sameReading, sameDepth, boundary, shallowKey, shallowNote };
}

/** Whether only the new commits are read (the branch moved forward), and why the whole history is read when not. */
async function howToRead(
  o: GitSourceOptions,
  before: Awaited<ReturnType<typeof whatWasRead>>,
  ref: string,
  head: string,
): Promise<{ incremental: boolean; reason: string | null }> {
  const { prev } = before;
  if (prev && prev.state.ref === ref && prev.state.head) {
    const ancestor = await git(o.root, ['merge-base', '--is-ancestor', prev.state.head, head], { allowFail: true });
    if (ancestor.code === 0) return { incremental: true, reason: null };
    return {
      incremental: false,
      reason: `${ref} was rewritten (${prev.state.head.slice(0, 7)} is no longer in its history)`,
    };
  }
  if (prev) return { incremental: false, reason: `the branch changed (${prev.state.ref} -> ${ref})` };
  const reason = !o.previous
    ? 'first read'
    : !before.sameRules
      ? 'the exclusion rules changed'
      : !before.sameReading
        ? 'commits are now read for what they add to docs and the names they add'
        : !before.sameDepth
          ? o.previous.state.shallow && !before.shallowKey
            ? 'the clone was deepened to its whole history'
            : 'the clone was deepened or made shallow'
          : 'first read';
  return { incremental: false, reason };
}

/** The commits of `range` that are work (the not-work rules counted by kind), and what the reverts among them undid. */
async function readWork(o: GitSourceOptions, range: string, before: string | null, paths: string[]) {
  const rules = compileRules(o.rules);
  const verdicts: Verdicts = new Map();
  const work: GitCommit[] = [];
  const skipped: Record<string, number> = {};
  let commits = 0;
  // Reverts by what they do: a commit that puts an earlier one's files back as they were undoes it, whatever its title.
  const undoes = await inverseReverts(o.root, range, before, paths);
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
  return { work, commits, skipped, verdicts };
}

/** Each piece of work as a document: its message, what its diff says about itself, and who wrote it. */
async function documentsOf(o: GitSourceOptions, work: GitCommit[], boundary: string[], range: string, paths: string[]) {
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
  const remote = await git(o.root, ['remote', 'get-url', 'origin'], { allowFail: true });
  const repo = remote.code === 0 ? webRepo(remote.stdout) : null;
  const fresh = work.map((c) =>
    toDoc(c, repo, words.get(c.sha) ?? null, c.parents.length > 1 ? (branchAuthors.get(c.parents[1]) ?? null) : null),
  );
  return { fresh, unreadable };
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
