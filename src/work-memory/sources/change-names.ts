/**
 * The names a line of a change introduces (issue 46): command-line flags as written, declared
 * functions, types and methods as words (`parseArgs` → `parse args`, what a brief would write),
 * and the messages and test names in its strings. change-words.ts reads a commit's diff with them.
 */

/** A message or test name longer than this is cut. */
const MAX_NAME_CHARS = 80;

export const FLAG = /(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*/gi;
// A declaration (`function alias(`, `def alias`, `class Alias`), a prototype method (`Command.prototype.alias = `),
// a method of a class (`  alias(name) {`, `async parseArgs(argv) {`) or a Go method (`func (c *Cmd) Alias(`).
const DECLARED =
  /\b(?:function|def|func|fn|class|interface|type|enum|struct|trait|const|let|var|val)\s+\*?([A-Za-z_$][\w$]{2,60})|\.prototype\.([A-Za-z_$][\w$]{2,60})\s*=|^\s*(?:(?:public|private|protected|static|async|override|get|set)\s+)*([A-Za-z_$][\w$]{2,60})\s*\([^()]*\)\s*(?::\s*[\w<>[\], |.]+)?\s*\{\s*$|\bfunc\s+\([^)]*\)\s+([A-Za-z_]\w{2,60})\s*\(/g;
/** Names that say nothing of what a change does. */
const NAMELESS = new Set([
  'constructor',
  'function',
  'return',
  'default',
  'value',
  'values',
  'result',
  'options',
  'error',
  'index',
  'main',
  'test',
  'tests',
  'init',
  'setup',
  'helper',
  'data',
  'args',
  'name',
  'type',
  'this',
  'self',
  'then',
  'else',
  'while',
  'switch',
  'catch',
  'if',
  'for',
  'get',
  'set',
  'new',
  'key',
  'val',
  'obj',
  'arr',
  'str',
  'num',
  'res',
  'req',
  'err',
  'ctx',
  'opts',
  'cfg',
  'tmp',
  'foo',
  'bar',
  'baz',
  'url',
  'uri',
  'path',
  'file',
  'dir',
]);
const QUOTED = /(["'`])((?:(?!\1)[^\\\n]){8,160})\1/g;
export const WORDS = /\p{L}[\p{L}'-]*/gu;

/** `fooBarBaz`, `foo_bar`, `foo-bar` → `foo bar baz` (what a brief would write). */
export function splitIdentifier(id: string): string {
  return id
    .replace(/[$_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .trim()
    .toLowerCase();
}

/** An added docs line as words: no markup, links as their text, no URLs, images or HTML. */
export function cleanDocLine(line: string): string {
  const t = line.trim();
  if (!t || t.startsWith('```') || t.startsWith('~~~') || /^[-=|:\s*#>]+$/.test(t) || /^<!--|^!\[/.test(t)) return '';
  return t
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]{1,200}>/g, ' ')
    .replace(/\bhttps?:\/\/\S+/g, ' ')
    .replace(/^(?:#{1,6}|[-*+]|>|\d+[.)])\s+/, '')
    .replace(/[`*_|]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** What kind of name a line gives: a flag, a declaration, a local variable (`  const mock = …`), a message or test name. */
export type NameKind = 'flag' | 'declared' | 'local' | 'message';

/** The names a code line introduces, with their kind: flags as written, declarations as words, messages and test names. */
export function namedIn(line: string): Array<{ name: string; kind: NameKind }> {
  const out: Array<{ name: string; kind: NameKind }> = [];
  for (const m of line.matchAll(FLAG)) out.push({ name: m[0].toLowerCase(), kind: 'flag' });
  // An indented variable is a function's local (a mock, a fixture, a loop's total): it names no part of what the change offers.
  const indented = /^\s/.test(line);
  for (const m of line.matchAll(DECLARED)) {
    const id = m[1] ?? m[2] ?? m[3] ?? m[4];
    const words = splitIdentifier(id);
    if (words.length < 3 || NAMELESS.has(words)) continue;
    const variable = m[1] !== undefined && /^(?:const|let|var|val)\s/.test(m[0]);
    out.push({ name: words, kind: variable && indented ? 'local' : 'declared' });
  }
  for (const m of line.matchAll(QUOTED)) {
    const s = m[2].trim();
    if (isMessage(s)) out.push({ name: s.slice(0, MAX_NAME_CHARS), kind: 'message' });
  }
  return out;
}

/** The names alone (what the tests read). */
export const namesIn = (line: string): string[] => namedIn(line).map((n) => n.name);

/**
 * A message or a test's name: words with spaces, mostly letters; not a path, URL, format,
 * selector, flag spec (`-f, --foo`) or code (`cmd._aliases[0]`).
 */
function isMessage(s: string): boolean {
  if (
    !/\s/.test(s) ||
    /^[-+]/.test(s) ||
    /[/\\]\S*[/\\]|:\/\/|[{}<>=;()[\]]|[A-Za-z_]\.[A-Za-z_]|^[.#]?[\w-]+(?:\s+[.#][\w-]+)+$/.test(s)
  )
    return false;
  const letters = s.replace(/[^\p{L}\s]/gu, '').length;
  return letters >= s.length * 0.75 && (s.match(WORDS)?.length ?? 0) >= 2;
}
