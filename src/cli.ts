import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ExitCode, ExitError, errorMessage } from './errors.js';
import { processIO, type IO } from './io.js';

export const EXIT_CODES_HELP = `
Exit codes:
  0    proceed (clear, related context, linked, ignored, or history check failed open)
  1    unexpected error
  2    usage error or bad input (flags, brief, config)
  3    aborted as a duplicate of past work
  4    index unavailable (index, search, context; \`issue start --strict\`)
  130  cancelled at a prompt (Ctrl-C)`;

export interface GlobalOptions {
  cwd?: string;
  quiet?: boolean;
}

/**
 * The command registry. Each command lives in `commands/<name>/` and is
 * imported only when it runs, so `--help` never loads the model or hnswlib.
 */
export function buildProgram(io: IO, setCode: (code: number) => void): Command {
  const program = new Command('agentos')
    .description('Institutional memory for a software project: catch duplicate work and surface past decisions when new work starts.')
    .version('0.1.0')
    .option('-C, --cwd <dir>', 'project root (default: nearest folder with .agentos/ or .git)')
    .option('-q, --quiet', 'no progress output on stderr')
    .addHelpText('after', EXIT_CODES_HELP)
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');

  const globals = () => program.opts<GlobalOptions>();

  program
    .command('index')
    .description('embed the standards (and with --include-history, completed work) into the local index')
    .option('--include-history', 'also index completed issues and designs (type: history)')
    .option('--full', 'ignore the incremental cache and rebuild everything')
    .option('--json', 'print the summary as JSON on stdout')
    .addOption(new Option('--wait <seconds>', 'wait this long for another index run to finish').default('30').argParser(parseSeconds))
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (opts) => {
      const { runIndex } = await import('./commands/index/index.js');
      setCode(await runIndex(io, globals(), opts));
    });

  const issue = program.command('issue').description('work on issues');
  issue
    .command('start')
    .description('check a new brief against past work and standards, then write the brief to use')
    .argument('<brief>', 'the brief (markdown file; "-" reads stdin)')
    .option('--non-interactive', 'never prompt (also when stdin is not a TTY or CI is set)')
    .addOption(new Option('--on-duplicate <action>', 'what to do with a duplicate when not prompting').choices(['abort', 'link', 'ignore']).default('link'))
    .option('-o, --out <file>', 'where to write the brief to use (default .agentos/issues/<slug>/brief.md)')
    .option('--print', 'write the brief to use on stdout')
    .option('--json', 'print the result as JSON on stdout')
    .option('--strict', 'exit non-zero when the history check fails instead of proceeding')
    .option('--context <file>', 'attach this document as context (repeatable; wins over retrieved ones)', collect, [])
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (brief, opts) => {
      const { runIssueStart } = await import('./commands/issue-start/index.js');
      setCode(await runIssueStart(io, globals(), brief, opts));
    });

  program
    .command('search')
    .description('semantic search over the index: "have we worked on X?"')
    .argument('<query...>', 'what to look for')
    .addOption(new Option('--type <type>', 'only this kind of document').choices(['history', 'standard']))
    .addOption(new Option('-k, --limit <n>', 'number of results').default('5').argParser(parsePositiveInt))
    .option('--json', 'print results as JSON on stdout')
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (query: string[], opts) => {
      const { runSearch } = await import('./commands/search/index.js');
      setCode(await runSearch(io, globals(), query.join(' '), opts));
    });

  program
    .command('context')
    .description('print the standards that govern a brief (for other tools)')
    .argument('<brief>', 'the brief (markdown file; "-" reads stdin)')
    .option('--json', 'print as JSON on stdout')
    .option('--context <file>', 'manual context document (repeatable)', collect, [])
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (brief, opts) => {
      const { runContext } = await import('./commands/context/index.js');
      setCode(await runContext(io, globals(), brief, opts));
    });

  // Issue 11: measuring the check (eval) and choosing thresholds from it (calibrate).
  program
    .command('eval')
    .description("measure the duplicate check: on the project's own linked history, or on a labelled --pairs file")
    .option('--pairs <file>', 'labelled reports (JSONL: id, title, body, duplicate_of) to build a scratch project from')
    .option('--work <dir>', 'scratch folder for --pairs (default .agentos/eval/<file>)')
    .addOption(new Option('--limit <n>', 'ask at most n queries (deterministic sample; 0 = all)').default(0).argParser(parseCount))
    .addOption(new Option('--subset <share>', 'use this share of the duplicate clusters of --pairs (deterministic)').default(1).argParser(parseShare))
    .addOption(new Option('--method <method>', 'scoring method for this run').choices(['hybrid', 'cosine']))
    .option('--save <file>', 'also write per-query results (input of `agentos calibrate --results`)')
    .option('--json', 'print the report as JSON on stdout')
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (opts) => {
      const { runEval } = await import('./commands/eval/index.js');
      setCode(await runEval(io, globals(), opts));
    });

  program
    .command('calibrate')
    .description('propose duplicate/related thresholds from an evaluation and show the trade-off')
    .option('--pairs <file>', 'evaluate this labelled file (else the project history)')
    .option('--results <file>', 'use the results of an earlier `agentos eval --save`')
    .addOption(new Option('--subset <share>', 'share of the duplicate clusters of --pairs').default(1).argParser(parseShare))
    .addOption(new Option('--target-precision <p>', 'alert precision wanted at a 10% duplicate rate').default(0.8).argParser(parseShare))
    .addOption(new Option('--target-noise <n>', 'largest share of non-duplicates allowed to get related context').default(0.25).argParser(parseShare))
    .option('--write', 'write the proposed thresholds to .agentos/config.yaml')
    .option('--json', 'print the proposal and table as JSON on stdout')
    .addHelpText('after', EXIT_CODES_HELP)
    .action(async (opts) => {
      const { runCalibrate } = await import('./commands/calibrate/index.js');
      setCode(await runCalibrate(io, globals(), opts));
    });

  return program;
}

function parseShare(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || n > 1) throw new InvalidArgumentError('expected a share above 0 and at most 1');
  return n;
}

function parseCount(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number >= 0');
  return n;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parsePositiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new InvalidArgumentError('expected a whole number from 1 to 1000');
  return n;
}

function parseSeconds(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number of seconds (>= 0)');
  return n;
}

/** Run the CLI; returns the exit code instead of exiting, so tests can call it in-process. */
export async function main(argv: string[], io: IO = processIO()): Promise<number> {
  let code: number = ExitCode.Ok;
  const program = buildProgram(io, (c) => (code = c));
  try {
    await program.parseAsync(argv);
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      // `agentos issue` (no subcommand) shows help as an error (exitCode 1): a usage error, exit 2.
      if (e.code === 'commander.help' && e.exitCode !== 0) return ExitCode.Usage;
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return ExitCode.Ok;
      return ExitCode.Usage; // commander already printed the message
    }
    if (e instanceof ExitError) {
      for (const line of e.message.split('\n')) io.stderr.write(`agentos: ${line}\n`);
      return e.code;
    }
    io.stderr.write(`agentos: unexpected error: ${errorMessage(e)}\n`);
    if (io.env.AGENTOS_DEBUG) io.stderr.write(`${(e as Error).stack}\n`);
    else io.stderr.write('agentos: set AGENTOS_DEBUG=1 for the stack trace\n');
    return ExitCode.Unexpected;
  }
}
