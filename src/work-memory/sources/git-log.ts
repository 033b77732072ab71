/**
 * Git's history read through its own plumbing, streamed: `git log -z` with a
 * NUL-separated format (a commit message cannot hold a NUL: git refuses one), so
 * a history of any length is parsed record by record and never held as one string.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { UsageError } from '../../shared/errors.js';

export interface GitCommit {
  sha: string;
  parents: string[];
  author: string;
  email: string;
  /** Author date, ISO 8601 with the author's offset. */
  date: string;
  /** The whole message (%B): subject, blank line, body. */
  message: string;
  /** Paths the commit touched against its first parent, with their status letter. */
  files: Array<{ status: string; path: string }>;
}

/** Every field a header token can hold; `\x1e` + sha opens a commit (a status token never starts so). */
const FORMAT = '%x1e%H%x00%P%x00%aN%x00%aE%x00%aI%x00%B';
const STATUS = /^[ACDMRTUXB][0-9]{0,3}$/;
const COMMIT = /^\x1e[0-9a-f]{40,64}$/;

/** Git could not read the history `sources.git` asks for: bad input for this project's setup (exit 2), said in one line. */
export class GitError extends UsageError {
  constructor(problem: string) {
    super(`sources.git: ${problem}`);
  }
}

/** Run git in `cwd` and return its trimmed stdout (small outputs only), or throw GitError with its first stderr line. */
export function git(
  cwd: string,
  args: string[],
  opts: { allowFail?: boolean } = {},
): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', gitArgs(args), { cwd, env: gitEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let errText = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (errText += d.length + errText.length < 4096 ? d : ''));
    child.on('error', (e) =>
      reject(new GitError(`git could not run (${(e as NodeJS.ErrnoException).code ?? e.message})`)),
    );
    child.on('close', (code) => {
      if (code !== 0 && !opts.allowFail)
        reject(new GitError(`git ${args[0]}: ${firstLine(errText) || `exit ${code}`}`));
      else resolve({ code: code ?? 1, stdout: out.trim() });
    });
  });
}

/**
 * The first-parent history of `range` (a ref, or `old..new`), newest first, one commit at a
 * time. First-parent: on the default branch a merge stands for its pull request, and its
 * files are the pull request's (`--diff-merges=first-parent`).
 */
export async function* readLog(
  cwd: string,
  range: string,
  opts: { maxCount?: number; paths?: string[] } = {},
): AsyncGenerator<GitCommit> {
  const args = [
    'log',
    '-z',
    '--first-parent',
    await mergeDiffFlag(cwd),
    '--name-status',
    '--no-renames',
    '--no-color',
    '--encoding=UTF-8',
    `--format=${FORMAT}`,
  ];
  if (opts.maxCount) args.push(`--max-count=${opts.maxCount}`);
  args.push(range, '--', ...(opts.paths ?? []));
  const parser = new LogParser();
  for await (const text of gitText(cwd, args, { what: `log ${range}` })) for (const c of parser.push(text)) yield c;
  for (const c of parser.end()) yield c;
}

/**
 * A git command's output as decoded text, streamed (a character cut between two reads decoded
 * whole); the process is ended if the reader stops early. A failed command throws GitError naming
 * it (`what`) with git's first stderr line, unless `allowFail` (then what it printed is all there is).
 */
async function* gitText(
  cwd: string,
  args: string[],
  opts: { allowFail?: boolean; what?: string } = {},
): AsyncGenerator<string> {
  const child = spawn('git', gitArgs(args), { cwd, env: gitEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let errText = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (errText = (errText + d).slice(0, 4096)));
  const closed = new Promise<number>((resolve, reject) => {
    child.on('error', (e) =>
      reject(new GitError(`git could not run (${(e as NodeJS.ErrnoException).code ?? e.message})`)),
    );
    child.on('close', (code) => resolve(code ?? 1));
  });
  closed.catch(() => undefined); // awaited below; a spawn error must not surface first as an unhandled rejection
  const decoder = new TextDecoder('utf-8');
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) yield decoder.decode(chunk, { stream: true });
    const rest = decoder.decode();
    if (rest) yield rest;
  } finally {
    if (child.exitCode === null) child.kill();
  }
  const code = await closed;
  if (code !== 0 && !opts.allowFail)
    throw new GitError(`git ${opts.what ?? args[0]}: ${firstLine(errText) || `exit ${code}`}`);
}

/**
 * The author of each commit in `shas` (one `git log --no-walk --stdin`): for a merge, its second
 * parent's author is who wrote the work it merged; the merge's own author is who merged it.
 */
export function authorsOf(cwd: string, shas: string[]): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    const out = new Map<string, string>();
    if (!shas.length) return resolve(out);
    const child = spawn('git', gitArgs(['log', '--no-walk=unsorted', '--stdin', '--format=%H%x00%aN']), {
      cwd,
      env: gitEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
    child.stderr.resume();
    child.on('error', (e) =>
      reject(new GitError(`git could not run (${(e as NodeJS.ErrnoException).code ?? e.message})`)),
    );
    child.on('close', () => {
      for (const line of text.split('\n')) {
        const [sha, author] = line.split('\0');
        if (sha && author) out.set(sha, author);
      }
      resolve(out);
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(shas.filter((s) => /^[0-9a-f]{40,64}$/.test(s)).join('\n') + '\n');
  });
}

/**
 * The lines of a git command's output (gitText). A line longer than `maxLine` (a one-line 50 MB
 * file in a patch) is skipped to its end, never held or re-split.
 */
export async function* gitLines(
  cwd: string,
  args: string[],
  opts: { maxLine?: number; allowFail?: boolean; what?: string } = {},
): AsyncGenerator<string> {
  const maxLine = opts.maxLine ?? Infinity;
  let carry = '';
  let skipping = false;
  for await (let text of gitText(cwd, args, opts)) {
    if (skipping) {
      const nl = text.indexOf('\n');
      if (nl < 0) continue;
      [text, skipping] = [text.slice(nl + 1), false];
    }
    const lines = (carry + text).split('\n');
    carry = lines.pop()!;
    yield* lines;
    if (carry.length > maxLine) [carry, skipping] = ['', true];
  }
  if (carry && !skipping) yield carry;
}

/**
 * What each first-parent commit of `range` did to its files, by blob (`git log --raw`: no diff is
 * computed, so a history of thousands of commits reads in a fraction of a second), newest first:
 * the sorted `path old-blob new-blob` of every file it changed. A commit whose signature with old
 * and new swapped is an earlier commit's signature put those files back as they were: it undid it.
 */
export async function blobSignatures(
  cwd: string,
  range: string,
  opts: { maxCount?: number; paths?: string[] } = {},
): Promise<Array<{ sha: string; forward: string; inverse: string }>> {
  const args = [
    'log',
    '--first-parent',
    await mergeDiffFlag(cwd),
    '--raw',
    '--no-abbrev',
    '--no-renames',
    '--no-color',
    '--format=%x1e%H',
  ];
  if (opts.maxCount) args.push(`--max-count=${opts.maxCount}`);
  args.push(range, '--', ...(opts.paths ?? []));
  const out: Array<{ sha: string; forward: string; inverse: string }> = [];
  let sha = '';
  let files: Array<[string, string, string]> = [];
  const flush = () => {
    if (sha && files.length) {
      // A digest, not the list: a merge of thousands of files must not be held per commit for the whole history.
      const sig = (swap: boolean) =>
        createHash('sha1')
          .update(
            files
              .map(([path, a, b]) => `${path}\0${swap ? b : a}\0${swap ? a : b}`)
              .sort()
              .join('\n'),
          )
          .digest('base64');
      out.push({ sha, forward: sig(false), inverse: sig(true) });
    }
    files = [];
  };
  // A git that fails here finds fewer reverts: the titles still say theirs.
  for await (const l of gitLines(cwd, args, { allowFail: true })) {
    if (l.startsWith('\x1e')) {
      flush();
      sha = l.slice(1).trim();
    } else if (l.startsWith(':')) {
      // ":100644 100644 <old> <new> M\tpath"
      const tab = l.indexOf('\t');
      const meta = l.slice(1, tab).split(' ');
      if (tab > 0 && meta.length >= 5) files.push([l.slice(tab + 1), meta[2], meta[3]]);
    }
  }
  flush();
  return out;
}

/** The token state machine of `readLog`'s output (exported for the unit tests). */
export class LogParser {
  private carry = '';
  private current: GitCommit | null = null;
  private header: string[] = [];
  private pendingStatus: string | null = null;

  push(text: string): GitCommit[] {
    const parts = (this.carry + text).split('\0');
    this.carry = parts.pop()!;
    const done: GitCommit[] = [];
    for (const token of parts) this.token(token, done);
    return done;
  }

  end(text = ''): GitCommit[] {
    const done = this.push(text);
    if (this.carry) this.token(this.carry, done);
    this.carry = '';
    // A header cut short (git stopped mid-record) is no commit.
    if (this.current) done.push(this.current);
    this.current = null;
    this.header = [];
    return done;
  }

  private token(raw: string, done: GitCommit[]): void {
    if (this.header.length > 0 && this.header.length < 6) {
      this.header.push(raw);
      if (this.header.length === 6) this.finishHeader();
      return;
    }
    // A path follows its status letter, whatever its bytes: a file named "\x1e…" is a path, not a commit.
    if (this.pendingStatus !== null) {
      this.current?.files.push({ status: this.pendingStatus, path: raw });
      this.pendingStatus = null;
      return;
    }
    const t = raw.startsWith('\n') ? raw.slice(1) : raw;
    if (COMMIT.test(t)) {
      if (this.current) done.push(this.current);
      this.current = null;
      this.header = [t.slice(1)];
      return;
    }
    if (this.current && STATUS.test(t)) this.pendingStatus = t[0];
  }

  private finishHeader(): void {
    const [sha, parents, author, email, date, message] = this.header;
    this.header = [];
    this.current = {
      sha,
      parents: parents ? parents.split(' ') : [],
      author,
      email,
      date,
      message: message ?? '',
      files: [],
    };
  }
}

/** How a first-parent log diffs a merge against its first parent: git before 2.31 has no --diff-merges, and there -m does it. */
export async function mergeDiffFlag(cwd: string): Promise<string> {
  return (await gitVersion(cwd)) >= 2.31 ? '--diff-merges=first-parent' : '-m';
}

let versionSeen: Promise<number> | null = null;

/** git's major.minor as a number (2.39 -> 2.39), read once per process; 0 when unknown. */
function gitVersion(cwd: string): Promise<number> {
  versionSeen ??= git(cwd, ['version'])
    .then((r) => {
      const m = /(\d+)\.(\d+)/.exec(r.stdout);
      return m ? Number(m[1]) + Number(m[2]) / 100 : 0;
    })
    .catch(() => 0);
  return versionSeen;
}

/** No pager, no colour, no prompt for credentials; the repository's own settings otherwise. */
function gitArgs(args: string[]): string[] {
  return ['--no-pager', '-c', 'core.quotePath=false', ...args];
}

function gitEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' };
}

const firstLine = (s: string) => s.trim().split('\n')[0]?.slice(0, 300) ?? '';
