/**
 * The registry: the program, its global options, and every command's definition, each in its
 * own folder (commands/<name>/define.ts: flags, help, examples, exit codes), which loads its run
 * function only when it runs, so `--help` never loads the model or hnswlib.
 */
import { Command, CommanderError } from 'commander';
import { errorMessage, ExitCode } from '../shared/errors.js';
import { oneLine } from '../shared/sanitize.js';
import { debugLine, processIO, type IO } from '../shared/io.js';
import { guardActionsLog } from '../shared/actions-log.js';
import { jsonErrorLine, reportError } from './report-error.js';
import { EXIT_CODES_HELP, examples, packageVersion } from './define.js';
import type { GlobalOptions } from './globals.js';
import { createContext, type CommandContext, type ContextOverrides } from './context.js';
import { define as indexCommand } from './commands/index/define.js';
import { define as issueStartCommand } from './commands/issue-start/define.js';
import { define as searchCommand } from './commands/search/define.js';
import { define as contextCommand } from './commands/context/define.js';
import { define as initCommand } from './commands/init/define.js';
import { define as statusCommand } from './commands/status/define.js';
import { define as evalCommand } from './commands/eval/define.js';
import { define as calibrateCommand } from './commands/calibrate/define.js';
import { define as modelCommand } from './commands/model/define.js';
import { define as runCommand } from './commands/run/define.js';
import { define as attemptCommand } from './commands/attempt/define.js';
import { define as forgetCommand } from './commands/forget/define.js';
import { define as storeCommand } from './commands/store/define.js';
import { define as ciCommand } from './commands/ci/define.js';
import { define as mcpCommand } from './commands/mcp/define.js';
import { define as recallCommand } from './commands/recall/define.js';
import { define as workedOnCommand } from './commands/worked-on/define.js';
import { define as hooksCommand } from './commands/hooks/define.js';

/** For bin/agentos.js, which hands `main` the inference worker it started (ContextOverrides.inferenceWorker). */
export { StartedWorker } from '../work-memory/embeddings/worker-runner.js';
export type { GlobalOptions } from './globals.js';
export { EXIT_CODES_HELP, exitCodesHelp } from './define.js';

/** Every command, in the order `--help` and the README's synopsis list them. */
const COMMANDS = [
  indexCommand,
  issueStartCommand,
  searchCommand,
  contextCommand,
  initCommand,
  statusCommand,
  evalCommand,
  calibrateCommand,
  modelCommand,
  runCommand,
  attemptCommand,
  forgetCommand,
  storeCommand,
  ciCommand,
  mcpCommand,
  recallCommand,
  workedOnCommand,
  hooksCommand,
];

export function buildProgram(
  io: IO,
  setCode: (code: number) => void,
  overrides: ContextOverrides = {},
  onContext?: (ctx: CommandContext) => void,
): Command {
  const program = new Command('agentos')
    .description(
      'Institutional memory for a software project: catch duplicate work and surface past decisions when new work starts.',
    )
    .version(packageVersion())
    .option('-C, --cwd <dir>', 'project root (default: nearest folder with .agentos/ or .git)')
    .option('-q, --quiet', 'only results and errors: no progress, notes or summaries on stderr')
    .option('-v, --verbose', 'debug lines and timings on stderr')
    .configureHelp({ showGlobalOptions: true })
    .addHelpText(
      'after',
      examples(
        'agentos index --include-history',
        'agentos issue start brief.md',
        'agentos search "docker build cache"',
        'agentos help issue start',
      ),
    )
    .addHelpText('after', EXIT_CODES_HELP)
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');

  const globals = () => program.opts<GlobalOptions>();
  // One context per run, built when the command's action starts (the global options are parsed by then).
  let built: CommandContext | null = null;
  const context = () => {
    if (!built) {
      built = createContext(io, globals(), overrides);
      onContext?.(built);
    }
    return built;
  };

  // The registry: each command's definition lives in its folder (commands/<name>/define.ts), in the order help lists them.
  const deps = { context, setCode, io };
  for (const define of COMMANDS) define(program, deps);

  return program;
}

/**
 * `agentos help issue start` shows the help of `issue start` (commander's own
 * help command stops at the first word).
 */
function helpArgv(argv: string[]): string[] {
  const [node, bin, ...rest] = argv;
  const i = rest.indexOf('help');
  const before = rest.slice(0, i);
  if (i < 0 || before.some((a) => !a.startsWith('-')) || rest.length - i < 3) return argv;
  return [node, bin, ...before, ...rest.slice(i + 1), '--help'];
}

/** The words of an `agentos [globals] <command> …` line from its command on: past the global options (-C/--cwd take a value). */
function commandWords(argv: string[]): string[] {
  const rest = argv.slice(2);
  let i = 0;
  while (i < rest.length && rest[i].startsWith('-') && rest[i] !== '--')
    i += rest[i] === '-C' || rest[i] === '--cwd' ? 2 : 1;
  return rest.slice(i);
}

/** The event of an `agentos [globals] hooks run <event> …` line (`?` when it names none), else null. */
function hookRunEvent(argv: string[]): string | null {
  const words = commandWords(argv);
  return words[0] === 'hooks' && words[1] === 'run'
    ? (words[2] ?? '?').replace(/[^\w-]/g, '').slice(0, 40) || '?'
    : null;
}

/**
 * In a GitHub Actions job the streams are the job log, which runs workflow commands (shared/actions-log.ts).
 * Not for `mcp` and `hooks`: their stdout is an agent's protocol, not the log.
 */
function logIO(argv: string[], io: IO): IO {
  const word = commandWords(argv)[0];
  return word === 'mcp' || word === 'hooks' ? io : guardActionsLog(io);
}

/** `--json` anywhere before `--`: errors then also go to stdout as a JSON object. */
function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}

/** Run the CLI; returns the exit code instead of exiting, so tests can call it in-process. */
export async function main(argv: string[], given: IO = processIO(), overrides: ContextOverrides = {}): Promise<number> {
  const io = logIO(argv, given);
  let code: number = ExitCode.Ok;
  const started = performance.now();
  let ctx: CommandContext | null = null;
  const program = buildProgram(
    io,
    (c) => (code = c),
    overrides,
    (c) => (ctx = c),
  );
  const json = wantsJson(argv);
  const jsonError = (c: number, message: string, kind: string) => jsonErrorLine(io, json, c, message, kind);
  try {
    await program.parseAsync(helpArgv(argv));
    return code;
  } catch (e) {
    const hook = hookRunEvent(argv);
    if (
      hook !== null &&
      !(e instanceof CommanderError && (e.code === 'commander.helpDisplayed' || e.code === 'commander.help'))
    ) {
      // An agent reads exit 2 as "block the tool": a hook line this version cannot read (another version's
      // flag, a typo in a committed settings file) must not stop every command. It fails open, as run.ts does.
      io.stderr.write(
        `agentos: hook ${hook} skipped (fail open): ${oneLine(errorMessage(e).replace(/^error: /, ''), 300)}\n`,
      );
      return ExitCode.Ok;
    }
    if (e instanceof CommanderError) {
      // `agentos issue` (no subcommand) shows help as an error (exitCode 1): a usage error, exit 2.
      if (e.code === 'commander.help' && e.exitCode !== 0) return ExitCode.Usage;
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help')
        return ExitCode.Ok;
      // commander already printed the message on stderr
      return jsonError(ExitCode.Usage, e.message.replace(/^error: /, ''), 'usage');
    }
    return reportError(io, e, { json, verbose: Boolean(program.opts<GlobalOptions>().verbose) });
  } finally {
    (ctx as CommandContext | null)?.close();
    debugLine(
      io,
      program.opts<GlobalOptions>(),
      `${argv.slice(2).join(' ')}: ${Math.round(performance.now() - started)} ms`,
    );
  }
}
