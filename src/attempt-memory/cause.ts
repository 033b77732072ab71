/**
 * The cause of a failure, in one line, read the way each tool writes it
 * (issue 21 §3). A log's last line is usually a trailer ("A complete log of
 * this run can be found in …", "Node.js v20", "1 error", "make: *** Error 1"),
 * not the cause. Each rule knows one family of tools; the first that finds a
 * line wins; the fallback is the last line that says error, else the last line.
 * Samples of each tool's real output are in test/fixtures/tool-errors/.
 */

const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;
const MAX = 300;
/** Lines are cut to this before any rule reads them: stderr is untrusted, and no regex may see 64 KB of one line. */
const MAX_LINE = 2048;

/** Terminal colour codes removed (before redaction too: `\x1b[31mghp_…` hides the token from a word boundary). */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

type Rule = (lines: string[]) => string | null;

const first = (lines: string[], re: RegExp) => lines.find((l) => re.test(l)) ?? null;
const last = (lines: string[], re: RegExp) => [...lines].reverse().find((l) => re.test(l)) ?? null;

const RULES: Array<[string, Rule]> = [
  // npm / pnpm / yarn: the described error, not "code E404" nor the log-file trailer.
  [
    'npm',
    (ls) => {
      const npm = ls.filter((l) => /^(npm|pnpm|yarn)( ERR!| error|:? ERR_|\s+ERR)/i.test(l));
      if (!npm.length) return null;
      const said = npm.map((l) => l.replace(/^(npm|pnpm|yarn)( ERR!| error)?\s*/i, '').trim());
      const telling = said.find(
        (s) =>
          s &&
          !/^(code|errno|syscall|path|dest|A complete log|Log files were not written|\d{3}$|\d{3} (Note|tarball))/i.test(
            s,
          ),
      );
      return telling ?? said.find(Boolean) ?? null;
    },
  ],
  // pip: its ERROR lines, the last one names what failed.
  ['pip', (ls) => last(ls, /^ERROR: /)],
  // TypeScript, Rust, Java compilers: the first error line is the cause; later ones are often consequences.
  ['tsc', (ls) => first(ls, /error TS\d+:/)],
  ['rustc', (ls) => first(ls, /^error(\[E\d+\])?: (?!could not compile|aborting due)/)],
  ['javac', (ls) => first(ls, /\.java:\d+: error: /)],
  // Go: file:line:col: message, or a go command error.
  ['go', (ls) => first(ls, /^\S+\.go:\d+(:\d+)?: /) ?? first(ls, /^go: /)],
  // pytest: the short summary's FAILED line, else the E-prefixed assertion.
  ['pytest', (ls) => first(ls, /^(FAILED|ERROR) \S+/) ?? first(ls, /^E\s{2,}\S/)],
  // jest / vitest: the failed test's name and the matcher's message.
  [
    'jest',
    (ls) => {
      const i = ls.findIndex((l) => /^● |^ FAIL |^FAIL /.test(l.trim()) && /●/.test(l));
      if (i < 0) return null;
      const msg = ls.slice(i + 1).find((l) => l.trim() && !/^\s*at /.test(l));
      return `${ls[i].trim()}${msg ? `: ${msg.trim()}` : ''}`;
    },
  ],
  // Python and Node: the thrown error line (Python's comes last, Node's before its stack).
  [
    'python',
    (ls) =>
      ls.some((l) => /^Traceback \(most recent call last\)/.test(l))
        ? last(ls, /^[\w.]*(Error|Exception|Exit|Interrupt|Warning)\b[^:]*(: |$)/)
        : null,
  ],
  [
    'node',
    (ls) =>
      ls.some((l) => /^Node\.js v\d+/.test(l) || /^\s+at .+:\d+:\d+\)?$/.test(l))
        ? first(ls, /^(Uncaught )?[\w.]*(Error|Exception)\b[^:]*: /)
        : null,
  ],
  // docker, git, curl, make: their own prefixes.
  ['docker', (ls) => first(ls, /^(ERROR: |Error response from daemon: |Cannot connect to the Docker daemon)/)],
  ['git', (ls) => first(ls, /^(fatal|error): /)],
  ['curl', (ls) => first(ls, /^curl: \(\d+\) /)],
  // C/C++ compilers before make's own trailer: "fatal error:" / "error:" lines.
  ['cc', (ls) => (ls.some((l) => /^make(\[\d+\])?: \*\*\*/.test(l)) ? first(ls, /(^|: )(fatal )?error: /) : null)],
  ['make', (ls) => first(ls, /^make(\[\d+\])?: \*\*\* /)],
  // HTTP statuses in anything else.
  [
    'http',
    (ls) =>
      first(
        ls,
        /\b(HTTP\/\d(\.\d)? [45]\d\d|status(code)? [45]\d\d|[45]\d\d (Not Found|Forbidden|Unauthorized|Bad Gateway|Service Unavailable|Internal Server Error))\b/i,
      ),
  ],
];

function linesOf(text: string): string[] {
  return stripAnsi(text)
    .split(/\r?\n/)
    .map((l) => l.slice(0, MAX_LINE).trimEnd())
    .filter((l) => l !== '');
}

/** One line that says why the command failed; null for empty text. */
export function errorCause(text: string | null | undefined): string | null {
  if (!text) return null;
  const lines = linesOf(text);
  if (!lines.length) return null;
  for (const [, rule] of RULES) {
    const hit = rule(lines);
    if (hit && hit.trim()) return bound(hit.trim());
  }
  const telling =
    last(lines, /error|fatal|exception|failed|not found|denied|cannot|unable/i) ?? lines[lines.length - 1];
  return bound(telling.trim());
}

function bound(s: string): string {
  return s.length <= MAX ? s : `${s.slice(0, MAX - 1)}…`;
}

/**
 * For output whose exit status nobody gave (Codex's PostToolUse), the rules that read a failure
 * in a tool's own words, each with the commands that run that tool: a rule answers only for a
 * command that runs its tool (a `cat` of a log that says "fatal:" has not failed), and only on
 * lines that tool prints when it fails — not the fallbacks, nor lines it also prints on success
 * (jest's "● Console", go's "go: downloading", pip's resolver ERROR on an install that worked).
 */
const PM = String.raw`npm|pnpm|yarn|npx|bun|bunx`;
const runs = (words: string) => new RegExp(String.raw`(^|[\s;&|(/'"])(${words})(?=$|[\s;&|)'"])`);
const FAILURE_WORDS: Array<[tool: string, runsIt: RegExp, rule: Rule]> = [
  [
    'npm',
    runs(PM),
    (ls) =>
      first(
        ls,
        /^(npm|pnpm|yarn) (ERR!|error) (?!code |errno |syscall |path |dest |A complete log|Log files were not written)\S/,
      ) ?? first(ls, /^ ?ERR_PNPM_\S+|^error Command failed with exit code \d+/),
  ],
  ['pip', runs(String.raw`pip|pip3|python|python3|uv`), (ls) => last(ls, /^ERROR: (?!pip's dependency resolver)/)],
  [
    'tsc',
    runs(String.raw`tsc|${PM}|vue-tsc`),
    (ls) => first(ls, /^\S+\(\d+,\d+\): error TS\d+:|^\S+:\d+:\d+ - error TS\d+:|^error TS\d+:/),
  ],
  ['rustc', runs(String.raw`cargo|rustc`), (ls) => first(ls, /^error(\[E\d+\])?: (?!could not compile|aborting due)/)],
  ['javac', runs(String.raw`javac|mvn|mvnw|gradle|gradlew`), (ls) => first(ls, /\.java:\d+: error: /)],
  ['go', runs('go'), (ls) => first(ls, /^\S+\.go:\d+:\d+: /) ?? first(ls, /^--- FAIL: /) ?? first(ls, /^FAIL\s/)],
  ['pytest', runs(String.raw`pytest|py\.test|tox|python|python3`), (ls) => first(ls, /^(FAILED|ERROR) \S+/)],
  [
    'jest',
    runs(String.raw`jest|vitest|${PM}`),
    // A failed run says FAIL (or "Tests: N failed"); then the failed test's ● line names it ("● Console" is a passing run's log).
    (ls) =>
      ls.some((l) => /^\s*FAIL\s+\S/.test(l) || /^Tests:.*\b\d+ failed\b/.test(l))
        ? (first(ls, /^\s*● (?!Console)/) ?? first(ls, /^\s*FAIL\s+\S/))
        : null,
  ],
  [
    'python',
    runs(String.raw`python|python3|pytest|uv|poetry`),
    (ls) =>
      ls.some((l) => /^Traceback \(most recent call last\)/.test(l))
        ? last(ls, /^[\w.]*(Error|Exception)\b[^:]*(: |$)/)
        : null,
  ],
  [
    'node',
    runs(String.raw`node|tsx|ts-node|${PM}`),
    (ls) =>
      ls.some((l) => /^Node\.js v\d+/.test(l)) ? first(ls, /^(Uncaught )?[\w.]*(Error|Exception)\b[^:]*: /) : null,
  ],
  [
    'docker',
    runs(String.raw`docker|podman`),
    (ls) => first(ls, /^(ERROR: |Error response from daemon: |Cannot connect to the Docker daemon)/),
  ],
  ['git', runs('git'), (ls) => first(ls, /^fatal: /)],
  ['curl', runs('curl'), (ls) => first(ls, /^curl: \(\d+\) /)],
  [
    'make',
    runs(String.raw`make|gmake|cmake|gcc|g\+\+|cc|clang`),
    (ls) => first(ls, /(^|: )(fatal )?error: /) ?? first(ls, /^make(\[\d+\])?: \*\*\* /),
  ],
];

/** At most this much of each end of an output is read for a failure (the payload may be megabytes). */
const MAX_SCAN = 64 * 1024;

/**
 * The tool that said `command` failed, and its line; null when no tool it runs did.
 * No fallback: "error" in a log is not a failure.
 */
export function failureSaidIn(text: string | null | undefined, command: string): { tool: string; line: string } | null {
  if (!text) return null;
  const scanned = text.length <= 2 * MAX_SCAN ? text : `${text.slice(0, MAX_SCAN)}\n${text.slice(-MAX_SCAN)}`;
  const lines = linesOf(scanned);
  for (const [tool, runsIt, rule] of FAILURE_WORDS) {
    if (!runsIt.test(command)) continue;
    const hit = rule(lines);
    if (hit && hit.trim()) return { tool, line: bound(hit.trim()) };
  }
  return null;
}
