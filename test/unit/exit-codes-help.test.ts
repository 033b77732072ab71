/**
 * Each command's `--help` lists the exit codes it can return, derived from what the
 * command's own code returns and throws (issue 22 §5): every `ExitCode.X` and every
 * error class with a fixed code found in src/cli/commands/<folder>/ must be listed in
 * its help. A command that starts returning a new code without documenting it fails
 * here. (Codes reached only through lower layers, such as the index's exit 4, are
 * listed by hand and checked by the explicit table in cli.test.ts.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/cli.js';
import { ExitCode } from '../../src/shared/errors.js';
import { makeIO } from '../helpers/fakes.js';
import { REPO } from '../helpers/paths.js';

/** Error classes whose code is fixed (src/shared/errors.ts). */
const THROWN: Record<string, number> = {
  UsageError: ExitCode.Usage,
  IndexUnavailableError: ExitCode.IndexUnavailable,
  ModelUnavailableError: ExitCode.ModelUnavailable,
  StoreUnavailableError: ExitCode.StoreUnavailable,
};

/** A command's folder, or one file of a folder several commands share (store/sync.ts). */
function codesIn(folder: string): Set<number> {
  const at = path.join(REPO, 'src', 'cli', 'commands', folder);
  const files = folder.endsWith('.ts')
    ? [at]
    : readdirSync(at)
        .filter((f) => f.endsWith('.ts'))
        .map((f) => path.join(at, f));
  const codes = new Set<number>([ExitCode.Ok, ExitCode.Unexpected]);
  for (const file of files) {
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
  if (cmd.name() === 'run') return new Set([0, 1, ...[...help.slice(help.indexOf('Exit status:')).matchAll(/\b(\d+) (?:usage|not run|Ctrl-C)/g)].map((m) => Number(m[1]))]);
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
  'attempt record': 'attempt',
  'attempt check': 'attempt',
  'attempt list': 'attempt',
  'hooks install': 'hooks',
  'hooks uninstall': 'hooks',
  'model fetch': 'model',
  'store init': 'store/index.ts',
  'store status': 'store/index.ts',
  'store remove': 'store/index.ts',
  'ci github': 'ci',
  'store sync': 'store/sync.ts',
};

test('every command with a folder of its own is checked', () => {
  const checked = leaves.filter(([name]) => name !== 'hooks run').map(([name]) => (FOLDER[name] ?? name).split('/')[0]);
  const folders = readdirSync(path.join(REPO, 'src', 'cli', 'commands'));
  for (const f of checked) expect(folders).toContain(f);
});

test.each(leaves.filter(([name]) => name !== 'hooks run'))('%s --help lists every exit code its code returns or throws', (name, cmd) => {
  const listed = listedIn(cmd);
  const missing = [...codesIn(FOLDER[name] ?? name)].filter((c) => !listed.has(c));
  expect({ command: name, missing }).toEqual({ command: name, missing: [] });
});
