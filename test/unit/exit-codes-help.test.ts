/**
 * Each command's `--help` lists the exit codes it can return, derived from what the
 * command's own code returns and throws (issue 22 §5): every `ExitCode.X` and every
 * error class with a fixed code found in src/cli/commands/<folder>/ must be listed in
 * its help. A command that starts returning a new code without documenting it fails
 * here. Modules of src/cli/ a command reaches count as its code (codeFiles below).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import ts from 'typescript';
import { buildProgram } from '../../src/cli/cli.js';
import { ExitCode } from '../../src/shared/errors.js';
import { makeIO } from '../helpers/fakes.js';
import { REPO } from '../helpers/paths.js';

const CLI = path.join(REPO, 'src', 'cli');

/** Error classes whose code is fixed (src/shared/errors.ts). */
const THROWN: Record<string, number> = {
  UsageError: ExitCode.Usage,
  IndexUnavailableError: ExitCode.IndexUnavailable,
  ModelUnavailableError: ExitCode.ModelUnavailable,
  TeamStoreUnavailableError: ExitCode.TeamStoreUnavailable,
};

/** The relative modules a file imports (TypeScript's own scanner: static, type and dynamic imports). */
function importsOf(file: string): string[] {
  return ts
    .preProcessFile(readFileSync(file, 'utf8'), true, true)
    .importedFiles.map((i) => i.fileName)
    .filter((n) => n.startsWith('.'))
    .map((n) => path.resolve(path.dirname(file), n).replace(/\.js$/, '.ts'));
}

/**
 * A command's or a subcommand's folder (store/sync), and
 * every module of src/cli/ it reaches: what two commands share (brief-check.ts,
 * team-store.ts, ui/) returns and throws on their behalf. Lower layers are left out: nearly
 * every command reaches nearly all of them, so their codes are listed by hand (and checked
 * by the explicit table in cli.test.ts).
 */
function codeFiles(folder: string): string[] {
  const at = path.join(CLI, 'commands', folder);
  const own = readdirSync(at)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(at, f));
  // A subcommand's folder (store/init) may read what its command shares (store/…); never another command's.
  const home = path.join(CLI, 'commands', folder.split('/')[0]) + path.sep;
  const seen = new Set<string>();
  const todo = [...own];
  while (todo.length) {
    const file = todo.pop()!;
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    for (const t of importsOf(file)) {
      // The registry and the context build every command; another command's folder is never imported (check-layers).
      if (!t.startsWith(CLI + path.sep) || t === path.join(CLI, 'cli.ts') || t === path.join(CLI, 'context.ts'))
        continue;
      if (t.startsWith(path.join(CLI, 'commands') + path.sep) && !t.startsWith(home)) continue;
      todo.push(t);
    }
  }
  return [...seen];
}

function codesIn(folder: string): Set<number> {
  const codes = new Set<number>([ExitCode.Ok, ExitCode.Unexpected]);
  for (const file of codeFiles(folder)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/ExitCode\.(\w+)/g)) codes.add(ExitCode[m[1] as keyof typeof ExitCode]);
    for (const [cls, code] of Object.entries(THROWN)) if (new RegExp(`new ${cls}\\(`).test(text)) codes.add(code);
  }
  return codes;
}

function listedIn(cmd: Command): Set<number> {
  let help = '';
  cmd.configureOutput({ writeOut: (s) => (help += s), writeErr: (s) => (help += s) });
  cmd.outputHelp();
  // `run` exits with the command's own status; its help names agentos' own codes in words ("2 usage, 6 not run").
  if (cmd.name() === 'run')
    return new Set([
      0,
      1,
      ...[...help.slice(help.indexOf('Exit status:')).matchAll(/\b(\d+) (?:usage|not run|Ctrl-C)/g)].map((m) =>
        Number(m[1]),
      ),
    ]);
  const at = help.indexOf('Exit codes:');
  if (at < 0) return new Set();
  return new Set([...help.slice(at).matchAll(/\n {2}(\d+) +\S/g)].map((m) => Number(m[1])));
}

const program = buildProgram(makeIO(REPO).io, () => undefined);
const leaves: Array<[string, Command]> = [];
const walk = (c: Command, names: string[]) => {
  if (c.commands.length === 0) leaves.push([names.join(' '), c]);
  for (const sub of c.commands) walk(sub, [...names, sub.name()]);
};
for (const c of program.commands) walk(c, [c.name()]);

/** The folder holding each command's code. */
const FOLDER: Record<string, string> = {
  'issue start': 'issue-start',
  'worked-on': 'worked-on',
  'attempt record': 'attempt/record',
  'attempt check': 'attempt/check',
  'attempt list': 'attempt/list',
  'hooks install': 'hooks/install',
  'hooks uninstall': 'hooks/uninstall',
  'model fetch': 'model',
  'store init': 'store/init',
  'store status': 'store/status',
  'store remove': 'store/remove',
  'ci github': 'ci',
  'store sync': 'store/sync',
};

test('every command with a folder of its own is checked', () => {
  const checked = leaves.filter(([name]) => name !== 'hooks run').map(([name]) => (FOLDER[name] ?? name).split('/')[0]);
  const folders = readdirSync(path.join(REPO, 'src', 'cli', 'commands'));
  for (const f of checked) expect(folders).toContain(f);
});

/**
 * Codes a command's code can meet but never ends with, each with where it is turned into
 * something else (read it before adding one).
 */
const CAUGHT: Record<string, number[]> = {
  // After a build, publishing to the team store (src/cli/publish.ts) fails as one warning: the local index stands.
  index: [ExitCode.TeamStoreUnavailable],
};

test.each(leaves.filter(([name]) => name !== 'hooks run'))(
  '%s --help lists every exit code its code returns or throws',
  (name, cmd) => {
    const listed = listedIn(cmd);
    const missing = [...codesIn(FOLDER[name] ?? name)].filter((c) => !listed.has(c) && !CAUGHT[name]?.includes(c));
    expect({ command: name, missing }).toEqual({ command: name, missing: [] });
  },
);

test('codes from what src/cli/ shares count for each command that reaches it, and nothing from another command', () => {
  // issue start's --strict exit 4 is thrown in src/cli/brief-check.ts, which ci github reaches too.
  expect(codeFiles('issue-start')).toContain(path.join(CLI, 'brief-check.ts'));
  expect(codeFiles('ci')).toContain(path.join(CLI, 'brief-check.ts'));
  expect(codesIn('issue-start')).toContain(ExitCode.IndexUnavailable);
  expect(codeFiles('index')).toContain(path.join(CLI, 'publish.ts'));
  // store status reaches the connection (exit 7), not publishing (which can also say 4).
  expect(codeFiles('store/status')).toContain(path.join(CLI, 'team-store.ts'));
  expect(codeFiles('store/status')).not.toContain(path.join(CLI, 'publish.ts'));
  expect(codeFiles('store/sync')).toContain(path.join(CLI, 'publish.ts'));
  // A subcommand reads what its command shares, never a sibling it does not import.
  expect(codeFiles('attempt/record')).toContain(path.join(CLI, 'commands', 'attempt', 'common.ts'));
  expect(codeFiles('attempt/record').some((f) => f.includes(`${path.sep}attempt${path.sep}list${path.sep}`))).toBe(
    false,
  );
  for (const folder of ['issue-start', 'ci', 'index', 'store'])
    expect(
      codeFiles(folder).filter(
        (f) =>
          f.includes(`${path.sep}commands${path.sep}`) &&
          !f.includes(`${path.sep}commands${path.sep}${folder}${path.sep}`),
      ),
    ).toEqual([]);
});
