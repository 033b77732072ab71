/**
 * Which commits of a history are work, and what each one says about itself: the
 * pull request it merged, the issues it closes, the commit it reverts. Pure: the
 * rules read a commit's subject, message and author, nothing else.
 */
import type { GitCommit } from './git-log.js';

export interface GitRules {
  /** Extra subject patterns (regular expressions, case-insensitive) that are not work. */
  excludeSubjects: string[];
  /** Extra author name or e-mail patterns whose commits are not work. */
  excludeAuthors: string[];
}

/** Why a commit is not work (counted and shown by `status`), or null when it is. */
export type NotWork = 'release' | 'dependencies' | 'merge-of-branch' | 'bot' | 'revert' | 'configured' | 'empty';

// A release or version bump: "Release 21.0.1", "v1.2.3", "chore(release): 1.2.3", "Bump version to 2.0".
const RELEASE =
  /^(?:release\b.{0,20}\d+\.\d+|v?\d+\.\d+\.\d+(?:[-+][\w.]+)?\s*$|chore\(release\)|(?:bump|update|set) (?:the )?version\b|version bump|publish(?:ed)? v?\d+\.\d+|prepare (?:for )?release|\[release\])/i;
// A dependency update with nothing else in its subject.
const DEPENDENCIES =
  /^(?:(?:chore|build|fix)\((?:deps|deps-dev|dependencies|package)\)|(?:update|upgrade|bump)(?: all)? (?:the )?(?:deps|dependencies|dev ?dependencies|devdeps|lockfile|package-lock(?:\.json)?)\s*$|bump \S+ from \S+ to \S+|update dependency \S+ to|chore: bump \S+|update \S+ to version \S+\s*$)/i;
// Bringing the default branch into a branch, or a branch merged without a pull request's title.
const MERGE_OF_BRANCH = /^merge (?:(?:remote-tracking )?branch '[^']*'(?: of \S+)?(?: into \S+)?|tag '[^']*')\s*$/i;
const BOT =
  /\[bot\]|^(?:dependabot|renovate|greenkeeper|github-actions|snyk-bot|semantic-release-bot|mergify|imgbot|allcontributors)\b/i;

const PULL_REQUEST_MERGE = /^Merge pull request #(\d+) from \S+/;
const SQUASH_NUMBER = /\(#(\d+)\)\s*$/;
const GITLAB_MERGE = /^Merge branch '[^']*' into '[^']*'/;
const GITLAB_MR = /See merge request [\w./-]*!(\d+)/;
// "Fixes #12", "resolve #12", "closes owner/repo#12" counts only for this repository.
const CLOSES = /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+((?:#\d+(?:\s*(?:,|and)\s*)?)+)/gi;
const REVERTS = /This reverts commit ([0-9a-f]{7,64})/;
const TRAILER = /^(?:signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|change-id|cc):/i;

export interface WorkCommit {
  commit: GitCommit;
  /** The pull (merge) request number, when the commit is one. */
  pullRequest: string | null;
  /** Issue numbers the commit says it closes. */
  closes: string[];
  title: string;
  /** The message without its subject, merge boilerplate and trailers. */
  body: string;
}

export function compileRules(r: GitRules): { subjects: RegExp[]; authors: RegExp[] } {
  return {
    subjects: r.excludeSubjects.map((s) => new RegExp(s, 'i')),
    authors: r.excludeAuthors.map((s) => new RegExp(s, 'i')),
  };
}

// A pull request merged from a dependency bot's branch ("Merge pull request #12 from o/dependabot/npm_and_yarn/x").
const BOT_BRANCH = /^Merge pull request #\d+ from \S*\b(?:(?:dependabot|renovate|greenkeeper|imgbot)\/|snyk-fix-)/i;

/** Why `c` is not work, or null. A merge is judged by its pull request's title (the body's first line) as well as its subject. */
export function notWork(c: GitCommit, rules: ReturnType<typeof compileRules>): NotWork | null {
  const subject = subjectOf(c.message);
  if (!subject) return 'empty';
  const title = describeWork(c).title;
  const either = (re: RegExp) => re.test(subject) || re.test(title);
  if (rules.subjects.some(either)) return 'configured';
  if (rules.authors.some((re) => re.test(c.author) || re.test(c.email))) return 'configured';
  if (BOT.test(c.author) || BOT.test(c.email) || BOT_BRANCH.test(subject)) return 'bot';
  if (either(RELEASE)) return 'release';
  if (either(DEPENDENCIES)) return 'dependencies';
  if (MERGE_OF_BRANCH.test(subject) && !GITLAB_MR.test(c.message)) return 'merge-of-branch';
  if (revertOf(c)) return 'revert';
  return null;
}

/** Why a tracker's pull request is not work, from its title and author alone (the commit rules, shared). */
export function notWorkTitle(title: string, author: string | null): NotWork | null {
  if (author && BOT.test(author.replace(/^app\//, ''))) return 'bot';
  if (RELEASE.test(title)) return 'release';
  if (DEPENDENCIES.test(title)) return 'dependencies';
  return null;
}

/** What a revert undoes: a commit by sha (`This reverts commit …`), work by title, or a revert (then the work is back). */
export interface Revert {
  sha: string | null;
  /** The title of the work it undoes (or puts back), its `(#N)` dropped. */
  title: string | null;
  /** A revert of a revert, or git's `Reapply "…"`: the work stands again. */
  reapplies: boolean;
}

const QUOTED = /^(Revert|Reapply) "(.*)"\s*$/;

/**
 * A revert, as `git revert` writes it (`Revert "X"` … `This reverts commit <sha>.`) or as
 * GitHub's revert button merges it (a pull request titled `Revert "X"`); null for other commits.
 */
export function revertOf(c: GitCommit): Revert | null {
  const title = describeWork(c).title;
  const q = QUOTED.exec(title);
  const sha = /^(revert|reapply)\b/i.test(title) ? (REVERTS.exec(c.message)?.[1] ?? null) : null;
  if (!q && !sha) return null;
  let inner = q ? q[2] : null;
  let reapplies = q?.[1] === 'Reapply';
  const nested = inner ? QUOTED.exec(inner) : null;
  if (nested && nested[1] === 'Revert') {
    inner = nested[2];
    reapplies = !reapplies;
  }
  return { sha, title: inner ? inner.replace(SQUASH_NUMBER, '').trim() : null, reapplies };
}

/** A commit read as a piece of work: its pull request, what it closes, a title without the number. */
export function describeWork(c: GitCommit): WorkCommit {
  const lines = c.message.replace(/\r\n?/g, '\n').split('\n');
  const subject = lines[0].trim();
  let rest = lines.slice(1);
  let title = subject;
  let pullRequest: string | null = null;
  const merge = PULL_REQUEST_MERGE.exec(subject);
  if (merge) {
    // "Merge pull request #12 from a/b" + the pull request's title as the body's first line.
    pullRequest = merge[1];
    const first = rest.findIndex((l) => l.trim() !== '');
    title = first >= 0 ? rest[first].trim() : subject;
    if (first >= 0) rest = rest.slice(first + 1);
  } else if (GITLAB_MERGE.test(subject) && GITLAB_MR.test(c.message)) {
    pullRequest = GITLAB_MR.exec(c.message)![1];
    const first = rest.findIndex((l) => l.trim() !== '');
    title = first >= 0 ? rest[first].trim() : subject;
    if (first >= 0) rest = rest.slice(first + 1);
  } else {
    const squash = SQUASH_NUMBER.exec(subject);
    if (squash) {
      pullRequest = squash[1];
      title = subject.slice(0, squash.index).trim();
    }
  }
  const body = rest
    .filter((l) => !TRAILER.test(l.trim()) && !GITLAB_MR.test(l))
    .join('\n')
    .trim();
  const closes = new Set<string>();
  for (const m of c.message.matchAll(CLOSES))
    for (const n of m[1].matchAll(/#(\d+)/g)) if (n[1] !== pullRequest) closes.add(n[1]);
  return { commit: c, pullRequest, closes: [...closes], title: title || subject, body };
}

export function subjectOf(message: string): string {
  return message.split('\n', 1)[0].trim();
}
