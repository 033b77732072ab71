/**
 * Done, or done and since changed? For work read from git: which of the files it
 * touched have changed on the branch after it, and the last change. A bug brief that
 * matches such work may be a regression of it rather than the same work again.
 */
import type { WorkOrigin } from '../corpus/types.js';
import { readLog } from './git-log.js';
import { compileRules, describeWork, notWork, type GitRules } from './git-work.js';

export interface ChangedSince {
  /** Files of the work changed after it (of `of` it touched, at most MAX_ORIGIN_FILES looked at). */
  changed: number;
  of: number;
  /** The newest change to one of them. */
  last: { date: string; ref: string } | null;
}

/**
 * Files that record a change rather than make one (a changelog, a version, a lockfile): a
 * release touching them says nothing about whether the work still stands.
 */
const BOOKKEEPING =
  /(?:^|\/)(?:CHANGELOG|CHANGES|HISTORY|RELEASE[-_]?NOTES)(?:\.(?:md|markdown|txt|rst|adoc))?$|(?:^|\/)(?:package(?:-lock)?\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|bun\.lockb?|Cargo\.lock|go\.sum|poetry\.lock|Gemfile\.lock|composer\.lock|VERSION)$/i;

/**
 * Null when the origin is not a commit of `ref`'s history or git cannot say. Only work
 * counts as a change (the commits the index keeps: not releases, dependency updates, bots,
 * reverts), and only on the files that carry the work (not changelogs, versions, lockfiles).
 */
export async function changedSince(
  root: string,
  origin: WorkOrigin,
  ref: string,
  rules: GitRules = NO_RULES,
): Promise<ChangedSince | null> {
  if (origin.source !== 'git' || !/^[0-9a-f]{40,64}$/.test(origin.ref)) return null;
  const files = origin.files.filter((f) => !BOOKKEEPING.test(f));
  if (files.length === 0) return null;
  const compiled = compileRules(rules);
  const wanted = new Set(files);
  const touched = new Set<string>();
  let last: ChangedSince['last'] = null;
  try {
    for await (const c of readLog(root, `${origin.ref}..${ref}`, { paths: files.map((f) => `:(top,literal)${f}`) })) {
      if (notWork(c, compiled)) continue;
      const hit = c.files.filter((f) => wanted.has(f.path));
      if (hit.length === 0) continue;
      for (const f of hit) touched.add(f.path);
      if (!last) {
        const w = describeWork(c);
        last = { date: c.date, ref: w.pullRequest ? `#${w.pullRequest}` : c.sha.slice(0, 7) };
      }
    }
  } catch {
    return null; // the commit is not in this history (rewritten since the index): nothing to say
  }
  return { changed: touched.size, of: files.length, last };
}

const NO_RULES: GitRules = { excludeSubjects: [], excludeAuthors: [] };

/** "3 of its 6 files changed since, last 2026-09-02 in #815". */
export function describeChangedSince(c: ChangedSince): string {
  const last = c.last ? `, last ${c.last.date.slice(0, 10)} in ${c.last.ref}` : '';
  if (c.of === 1) return c.changed ? `its file changed since${last}` : 'its file has not changed since';
  if (c.changed === 0) return `none of its ${c.of} files changed since`;
  return `${c.changed} of its ${c.of} files changed since${last}`;
}

const BUG =
  /\b(bug|broken|breaks?|regress(?:ion|ed)?|fails?|failing|failure|errors?|crash(?:es|ed)?|exception|no longer|stopped working|does(?:n't| not) work|wrong)\b/i;

/** A brief that reports something broken (its title or opening paragraph says so). */
export function isBugBrief(text: string): boolean {
  const opening = text
    .split(/\n\s*\n/)
    .slice(0, 2)
    .join('\n');
  return BUG.test(opening);
}

/** `changedSince` for each match from git (at most the few a check shows), by path. */
export async function changedSinceFor(
  root: string,
  matches: Array<{ filePath: string; origin?: WorkOrigin }>,
  ref: string | null,
  rules?: GitRules,
): Promise<Map<string, ChangedSince>> {
  const out = new Map<string, ChangedSince>();
  if (!ref) return out;
  for (const m of matches) {
    if (!m.origin) continue;
    const c = await changedSince(root, m.origin, ref, rules).catch(() => null);
    if (c) out.set(m.filePath, c);
  }
  return out;
}

/** The "Since" line under a match from git, and "Regression?" when the brief reports a bug in work changed since. */
export function sinceNotes(since: Map<string, ChangedSince>, regressions: Array<{ filePath: string }>) {
  return (m: { filePath: string }, safe: (s: string) => string): Array<{ label: string; text: string }> => {
    const c = since.get(m.filePath);
    if (!c) return [];
    const line = { label: 'Since', text: safe(describeChangedSince(c)) };
    return regressions.some((r) => r.filePath === m.filePath)
      ? [
          line,
          {
            label: 'Regression?',
            text: 'a bug in work whose files changed after it: a possible regression, not a duplicate',
          },
        ]
      : [line];
  };
}

const FIX =
  /^\W*(?:fix(?:e[sd])?|bug ?fix|hotfix|repair|resolve[sd]?|correct(?:s|ed)?|handle|prevent|avoid|don'?t|do not)\b|\b(?:regression|crash(?:es|ed)?|bug)\b/i;

/**
 * Whether a match may be a regression: the brief reports something broken, the past work
 * was itself a fix (a feature asked for again is the same work, whatever words the brief
 * uses), and the files it touched changed after it.
 */
export function possibleRegression(briefText: string, m: { title: string }, since: ChangedSince | undefined): boolean {
  return (since?.changed ?? 0) > 0 && FIX.test(m.title) && isBugBrief(briefText);
}
