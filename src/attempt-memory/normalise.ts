/**
 * Normalised command tokens: what makes two commands "the same attempt".
 * Versions, temp paths, hashes, UUIDs, timestamps and long numbers vary
 * between runs of the same thing and must not make two commands different.
 */

const TMP_PATH = /(?:\/private)?\/(?:tmp|var\/tmp|var\/folders\/[^\s/]+\/[^\s/]+\/T)(?:\/[^\s/]*)?/g;
const WIN_TMP = /[A-Za-z]:\\[^\s]*\\Temp\\[^\s\\]*/gi;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const HEX_HASH = /\b(?=[0-9a-f]{0,64}[a-f])(?=[0-9a-f]{0,64}\d)[0-9a-f]{7,64}\b/gi;
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g;
/** `1.2.3`, `v1.2`, `^1.2.3-beta.1`, `~2.0`, `>=3.1`; also after `@` or `==`. */
const VERSION = /(^|[@=\s:<>~^v])v?\d+(?:\.(?:\d+|x|\*)){1,3}(?:[-+][0-9A-Za-z.-]{1,40})?\b/g;
/** A major-only version or a dist-tag after a package: `redis-node@4`, `pkg@latest`, `requests==2`. */
const PACKAGE_TAG = /(@|==)v?(?:\d+|latest|next|beta|alpha|canary|rc)\b(?![.\d])/g;
const LONG_NUMBER = /\b\d{5,}\b/g;

/** Common spellings of the same sub-command. */
const ALIASES: Record<string, string> = {
  i: 'install',
  add: 'install',
  in: 'install',
  isntall: 'install',
  rm: 'remove',
  uninstall: 'remove',
  un: 'remove',
  t: 'test',
  tst: 'test',
  ci: 'install',
  r: 'run',
};
const ALIASED_TOOLS = new Set([
  'npm',
  'pnpm',
  'yarn',
  'bun',
  'pip',
  'pip3',
  'uv',
  'poetry',
  'cargo',
  'go',
  'gem',
  'composer',
]);

/** The command with run-specific parts replaced by placeholders. */
export function normaliseCommand(command: string): string {
  return command
    .replace(TMP_PATH, '<tmp>')
    .replace(WIN_TMP, '<tmp>')
    .replace(UUID, '<uuid>')
    .replace(ISO_TIME, '<time>')
    .replace(HEX_HASH, '<hash>')
    .replace(VERSION, '$1<v>')
    .replace(PACKAGE_TAG, '$1<v>')
    .replace(LONG_NUMBER, '<n>')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Shell-ish words of a normalised command: quotes dropped, `&&`/`|`/`;` as separators. */
export function commandTokens(command: string): string[] {
  const words = normaliseCommand(command)
    .replace(/["']/g, ' ')
    .split(/\s+|&&|\|\||[|;]/)
    .map((w) => w.trim())
    .filter((w) => w !== '' && w !== '\\')
    // `redis-node@1.2.3`, `requests==2.0`: the package is what matters, not its version.
    .map((w) => (w.length > 3 ? w.replace(/(?:@|==|>=|<=|~=|=|:)<v>$/, '') : w));
  // The program without its folder (`./node_modules/.bin/jest` = `jest`), aliases expanded.
  if (words.length > 0) words[0] = programName(words[0]);
  if (words.length > 1 && ALIASED_TOOLS.has(words[0]) && ALIASES[words[1]]) words[1] = ALIASES[words[1]];
  return words;
}

export function programName(word: string): string {
  const base = word.split(/[\\/]/).pop() ?? word;
  return base.replace(/\.(exe|cmd|bat)$/i, '').toLowerCase();
}

/** Lower-case words of free text (context), without stop words. */
export function textWords(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9][a-z0-9+#.-]*/g) ?? [])
    .map((w) => w.replace(/[.-]+$/, ''))
    .filter((w) => w.length > 1 && !STOP.has(w));
}

const STOP = new Set(
  'a an and are as at be but by do does for from has have how i if in into is it its of on or our so that the their then this to up us was we were what when which while will with without you your add adding fix fixing make making use using get try trying'.split(
    ' ',
  ),
);

/** Tool names that mean "a shell command" (agentos run, Claude Code's and Codex's Bash, Cursor's Shell, Gemini CLI's run_shell_command, PRD's run_command). */
// `runInTerminal`: VS Code's agent names its terminal tool so in hook payloads (code.visualstudio.com agent hooks).
const SHELL_TOOLS = new Set([
  'shell',
  'bash',
  'sh',
  'zsh',
  'run_command',
  'run_shell_command',
  'run_in_terminal',
  'runinterminal',
  'runterminalcommand',
  'terminal',
  'exec',
  'command',
]);

/** The family a tool belongs to, so that a hook's `Bash` and `agentos run`'s `shell` compare equal. */
export function toolFamily(tool: string): string {
  const t = tool.trim().toLowerCase();
  return SHELL_TOOLS.has(t) ? 'shell' : t;
}
