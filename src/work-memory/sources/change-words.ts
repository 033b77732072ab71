/**
 * What a change says about itself, beyond its subject line (issue 46): the lines it adds to
 * user-facing docs (README, docs/, CHANGELOG and release notes, man pages) and the names of
 * what it adds (command-line flags, declared functions and types, the messages and test names
 * in its strings). A user describes merged work in the words its docs use ("stage the publish
 * for later approval"), rarely in its subject's (`Add --stage flag`).
 *
 * Read with git's own plumbing, streamed: one `git log -p -U0` over the same first-parent
 * range as the history, only added lines kept, bounded per commit, lockfiles and generated
 * files left out by pathspec.
 */
import { git, GitError, gitLines, mergeDiffFlag } from './git-log.js';
import { cutAtWord } from '../../shared/text/linear.js';
import { cleanDocLine, FLAG, namedIn, namesIn, WORDS } from './change-names.js';

/** What one change says, bounded. */
export interface ChangeWords {
  /** Lines it added to user-facing docs, cleaned of markup, joined. */
  docs: string;
  /** Flags, declared names (split into words) and messages it added. */
  names: string[];
}

/** Bounds per commit: what fits one retrieval chunk beside its title. */
export const MAX_DOC_CHARS = 600;
export const MAX_NAMES = 24;
/** A line longer than this is data (a minified file, a base64 blob), not words. */
const MAX_LINE_CHARS = 400;
/** Beyond this the rest of a diff line is not even held in memory. */
const MAX_CARRY = 64 * 1024;

/** Files whose added lines are no one's words: lockfiles, minified and generated output, snapshots, build output, vendored code. */
export const NOT_WORDS_PATHSPEC = [
  ':(exclude,glob)**/package-lock.json',
  ':(exclude,glob)**/npm-shrinkwrap.json',
  ':(exclude,glob)**/yarn.lock',
  ':(exclude,glob)**/pnpm-lock.yaml',
  ':(exclude,glob)**/bun.lock*',
  ':(exclude,glob)**/go.sum',
  ':(exclude,glob)**/Cargo.lock',
  ':(exclude,glob)**/poetry.lock',
  ':(exclude,glob)**/composer.lock',
  ':(exclude,glob)**/Gemfile.lock',
  ':(exclude,glob)**/*.min.*',
  ':(exclude,glob)**/*.map',
  ':(exclude,glob)**/*.snap',
  ':(exclude,glob)**/*.svg',
  // Build output and vendored code committed beside the source: another program's words, and most of a diff's bytes.
  ':(exclude,glob)**/dist/**',
  ':(exclude,glob)**/vendor/**',
  ':(exclude,glob)**/node_modules/**',
  ':(exclude,glob)**/coverage/**',
];

// README, CHANGELOG, release notes, changesets, anything under a docs folder, man pages, and markdown-like files.
const DOC_FILE =
  /(?:^|\/)(?:readme|changelog|changes|history|news|release[-_ ]?notes)[^/]*$|(?:^|\/)(?:docs?|documentation|man|\.changeset)\/|\.(?:md|mdx|markdown|rst|adoc|txt|[1-9])$/i;
/** Where a name was found, best first: what a change declares and tests say what it does; locals, examples and fixtures say less. */
const enum Rank {
  Declared = 0,
  TestName = 1,
  Flag = 2,
  Message = 3,
  /** A function's local variable, or anything a test file declares (its mocks and fixtures). */
  Local = 4,
  Sample = 5,
}
/** Candidates kept per commit before the best MAX_NAMES are chosen. */
const MAX_CANDIDATES = 400;
/** Removed docs lines and names remembered per commit (a large deletion past this leaves the rest as new). */
const MAX_REMOVED = 4096;
const TEST_FILE = /(?:^|\/)(?:tests?|spec|__tests__)\/|[._-](?:test|spec)\.[\w]+$|_test\.go$/i;
const SAMPLE_FILE = /(?:^|\/)(?:examples?|samples?|fixtures?|demo|testdata)\//i;
const TEST_CALL = /\b(?:it|test|describe|context|specify)(?:\.\w+)?\s*\(\s*(["'`])/;
// A line of code shown in docs: calls with arguments, braces, statements, shell prompts (`.env()` named in prose is not code).
const CODE_LIKE = /[{};]|=>|\w\([^)\s][^)]*\)|^\s*(?:\$|>>>|\.\w|const |let |var |import |from |npm |npx |git |yarn )/;

/** Collects one commit's words within the bounds. */
class Collector {
  private docs: string[] = [];
  private docChars = 0;
  private names = new Map<string, Rank>();
  /** Docs lines it removed: a line both removed and added was moved or re-wrapped, not written. */
  private removed = new Set<string>();
  /** Names on code lines it removed: a name both removed and added was moved or its line edited, not introduced. */
  private removedNames = new Set<string>();
  /** It changed something besides docs: a docs-only change documents work done elsewhere. */
  private code = false;
  /** Inside a fenced block of the docs file being read (a code sample, not prose). */
  private fenced = false;
  private fencePath = '';

  remove(path: string, line: string): void {
    if (line.length > MAX_LINE_CHARS) return;
    if (DOC_FILE.test(path)) {
      if (this.removed.size < MAX_REMOVED) this.removed.add(cleanDocLine(line));
    } else if (this.removedNames.size < MAX_REMOVED) for (const n of namesIn(line)) this.removedNames.add(n);
  }

  private name(n: string, rank: Rank): void {
    // Removed earlier in this commit (a hunk's removed lines come before its added ones): moved, and no candidate.
    if (this.removedNames.has(n)) return;
    const had = this.names.get(n);
    if (had === undefined ? this.names.size < MAX_CANDIDATES : rank < had) this.names.set(n, rank);
  }

  add(path: string, line: string): void {
    if (line.length > MAX_LINE_CHARS) return;
    if (DOC_FILE.test(path)) {
      if (path !== this.fencePath) [this.fenced, this.fencePath] = [false, path];
      if (/^\s*(?:```|~~~)/.test(line)) {
        this.fenced = !this.fenced;
        return;
      }
      // Collected past the bound (moved lines are taken out at the end), within reason.
      if (!this.fenced && this.docChars < MAX_DOC_CHARS * 4) {
        const clean = cleanDocLine(line);
        if (
          !CODE_LIKE.test(clean) &&
          clean.length >= 12 &&
          (clean.match(WORDS)?.length ?? 0) >= 3 &&
          !this.docs.includes(clean)
        ) {
          this.docs.push(clean);
          this.docChars += clean.length + 1;
        }
      }
      // A flag a doc line documents is a name as well (`--stage  Stage the publish …`).
      for (const m of line.matchAll(FLAG)) this.name(m[0].toLowerCase(), Rank.Flag);
      return;
    }
    this.code = true;
    const sample = SAMPLE_FILE.test(path);
    const testFile = TEST_FILE.test(path);
    const test = testFile && TEST_CALL.test(line);
    for (const { name: n, kind } of namedIn(line)) {
      const rank = sample
        ? Rank.Sample
        : kind === 'flag'
          ? Rank.Flag
          : test
            ? Rank.TestName
            : kind === 'local' || testFile
              ? Rank.Local
              : kind === 'declared' || (/^[a-z ]+$/.test(n) && !/\s.*\s.*\s/.test(n))
                ? Rank.Declared
                : Rank.Message;
      this.name(n, rank);
    }
  }

  full(): boolean {
    return this.code && this.docChars >= MAX_DOC_CHARS * 4 && this.names.size >= MAX_CANDIDATES;
  }

  result(): ChangeWords | null {
    const written = this.code ? this.docs.filter((l) => !this.removed.has(l)) : [];
    // The best-ranked names, in the order the change gave them within a rank.
    const names = [...this.names]
      .filter(([n]) => !this.removedNames.has(n))
      .map(([n, rank], i) => ({ n, rank, i }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .slice(0, MAX_NAMES)
      .map((x) => x.n);
    if (!written.length && !names.length) return null;
    return { docs: cutAtWord(written.join(' '), MAX_DOC_CHARS), names };
  }
}

/** Parses `git log -p -U0 --format=%x1e%H` line by line (exported for the unit tests). */
export class PatchWords {
  readonly words = new Map<string, ChangeWords>();
  private sha: string | null = null;
  private collector: Collector | null = null;
  private path = '';
  private oldPath = '';
  private header = false;

  constructor(private readonly wanted: (sha: string) => boolean) {}

  line(l: string): void {
    if (l.startsWith('\x1e')) {
      this.flush();
      const sha = l.slice(1).trim();
      this.sha = /^[0-9a-f]{40,64}$/.test(sha) && this.wanted(sha) ? sha : null;
      this.collector = this.sha ? new Collector() : null;
      return;
    }
    if (!this.collector) return;
    if (l.startsWith('diff --git ')) {
      [this.path, this.oldPath, this.header] = ['', '', true];
      return;
    }
    // File names only in a file's header (before its first hunk): a removed `-- comment` reads `--- comment`.
    if (this.header) {
      // git ends a name holding a space with a tab (for patch(1)).
      const name = (p: string, prefix: string) => {
        const n = p === '/dev/null' ? '' : unquote(p.replace(/\t$/, ''));
        return n.startsWith(prefix) ? n.slice(prefix.length) : n;
      };
      if (l.startsWith('+++ ')) this.path = name(l.slice(4), 'b/');
      else if (l.startsWith('--- ')) this.oldPath = name(l.slice(4), 'a/');
      else if (l.startsWith('@@')) this.header = false;
      return;
    }
    if (l.startsWith('+') && this.path && !this.collector.full()) this.collector.add(this.path, l.slice(1));
    else if (l.startsWith('-') && !l.startsWith('--- ') && this.oldPath)
      this.collector.remove(this.oldPath, l.slice(1));
  }

  /** The commit being read when the patch stopped (git died on it): dropped unread, its sha returned. */
  abandon(): string | null {
    const sha = this.sha;
    [this.collector, this.sha] = [null, null];
    return sha;
  }

  flush(): void {
    const w = this.collector?.result();
    if (this.sha && w) this.words.set(this.sha, w);
    this.collector = null;
    this.sha = null;
  }
}

/** A path git quoted (`"b/a\tb"`): its C escapes read back, roughly (a name to classify, not to open). */
function unquote(p: string): string {
  if (!p.startsWith('"') || !p.endsWith('"')) return p;
  return p
    .slice(1, -1)
    .replace(/\\(["\\])/g, '$1')
    .replace(/\\t/g, '\t')
    .replace(/\\n/g, '\n');
}

/** Commits whose diff git could not read (a blob missing from a partial or damaged clone), skipped and read past, at most. */
const MAX_UNREADABLE = 20;

/** What a read of the change words gives: the words, and the commits whose diff could not be read (with git's reason). */
export interface ChangeWordsRead {
  words: Map<string, ChangeWords>;
  unreadable: { shas: string[]; reason: string } | null;
}

/**
 * The words of each wanted commit of `range`'s first-parent history (a merge: its pull request's
 * whole change, as `--diff-merges=first-parent` gives it). `paths` limits it as the history is limited.
 * A commit whose diff git cannot read (a blob a partial clone never fetched, a damaged object) is
 * left without words and the read goes on from its parent: its words are extra evidence, and the
 * history is indexed by subjects and files all the same.
 */
export async function readChangeWords(
  cwd: string,
  range: string,
  wanted: (sha: string) => boolean,
  paths: string[] = [],
): Promise<ChangeWordsRead> {
  const flags = [
    'log',
    '--first-parent',
    await mergeDiffFlag(cwd),
    '-p',
    '-U0',
    '--no-color',
    '--no-ext-diff',
    '--no-renames',
    '--no-textconv',
    // The prefixes the parser expects, whatever diff.noprefix or diff.srcPrefix the user set.
    '--src-prefix=a/',
    '--dst-prefix=b/',
    '--format=%x1e%H',
  ];
  const pathspec = ['--', ...(paths.length ? paths : ['.']), ...NOT_WORDS_PATHSPEC];
  const parser = new PatchWords(wanted);
  const lower = range.includes('..') ? range.slice(0, range.indexOf('..')) : null;
  const unreadable: string[] = [];
  let reason = '';
  let from = range;
  for (;;) {
    try {
      // A line past MAX_CARRY (a one-line 50 MB file) is no one's words: skipped to its end, never held.
      for await (const l of gitLines(cwd, [...flags, from, ...pathspec], {
        maxLine: MAX_CARRY,
        what: `log -p ${range}`,
      }))
        parser.line(l);
      parser.flush();
      break;
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      const failed = parser.abandon();
      reason ||= e.message.replace(/^(?:sources\.git: )?git log -p \S+: /, '');
      if (!failed || unreadable.length >= MAX_UNREADABLE) break;
      unreadable.push(failed);
      // On from its first parent (the history is first-parent): a root commit has none, and the read ends there.
      if (!(await hasParent(cwd, failed))) break;
      from = lower ? `${lower}..${failed}^` : `${failed}^`;
    }
  }
  return { words: parser.words, unreadable: reason ? { shas: unreadable, reason } : null };
}

async function hasParent(cwd: string, sha: string): Promise<boolean> {
  return (await git(cwd, ['rev-parse', '--verify', '-q', `${sha}^`], { allowFail: true })).code === 0;
}
