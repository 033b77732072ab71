import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ExitCode, ExitError, errorMessage } from './errors.js';
import { debugLine, processIO, type IO } from './io.js';

/** Every exit code; each command's help lists only the ones it can return. */
const EXIT_CODE_LINES: Record<number, string> = {
  0: '0    success (for issue start: proceed — clear, related, linked, ignored, or failed open)',
  1: '1    unexpected error',
  2: '2    usage error or bad input (flags, brief, config)',
  3: '3    aborted as a duplicate of past work',
  4: '4    index unavailable (missing, corrupt, locked; issue start only with --strict)',
  5: '5    model unavailable (run `agentos model fetch`)',
  130: '130  cancelled at a prompt (Ctrl-C)',
};
export function exitCodesHelp(codes: number[]): string {
  return `\nExit codes:\n${codes.map((c) => `  ${EXIT_CODE_LINES[c]}`).join('\n')}`;
}
export const EXIT_CODES_HELP = exitCodesHelp([0, 1, 2, 3, 4, 5, 130]);

function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`;
}

/** The version of the installed package, not a copy that drifts. */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export interface GlobalOptions {
  cwd?: string;
  quiet?: boolean;
  /** Debug lines and timings on stderr. */
  verbose?: boolean;
}

/**
 * The command registry. Each command lives in `commands/<name>/` and is
 * imported only when it runs, so `--help` never loads the model or hnswlib.
 */
export function buildProgram(io: IO, setCode: (code: number) => void): Command {
  const program = new Command('agentos')
    .description('Institutional memory for a software project: catch duplicate work and surface past decisions when new work starts.')
    .version(packageVersion())
    .option('-C, --cwd <dir>', 'project root (default: nearest folder with .agentos/ or .git)')
    .option('-q, --quiet', 'only results and errors: no progress, notes or summaries on stderr')
    .option('-v, --verbose', 'debug lines and timings on stderr')
    .configureHelp({ showGlobalOptions: true })
    .addHelpText('after', examples('agentos index --include-history', 'agentos issue start brief.md', 'agentos search "docker build cache"', 'agentos help issue start'))
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
    .addHelpText('after', examples('agentos index --include-history', 'agentos index --full --json'))
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4, 5]))
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
    .addOption(new Option('--duplicate-threshold <score>', 'for this run: alert at or above this similarity (default: config thresholds.duplicate)').argParser(parseScore))
    .addOption(new Option('--related-threshold <score>', 'for this run: add related work at or above this similarity (default: config thresholds.related)').argParser(parseScore))
    .addHelpText('after', examples('agentos issue start docs/briefs/new-cache.md', 'agentos issue start brief.md --non-interactive --on-duplicate abort --json', 'cat brief.md | agentos issue start - --print > brief-to-use.md', 'agentos issue start brief.md --duplicate-threshold 0.9'))
    .addHelpText('after', exitCodesHelp([0, 1, 2, 3, 4, 130]))
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
    .addOption(new Option('--min-score <score>', 'list nothing scoring below this (default: config search.min_score, 0.3)').argParser(parseScore))
    .option('--json', 'print results as JSON on stdout')
    .addHelpText('after', examples('agentos search "flaky integration tests"', 'agentos search --type history -k 10 logging', 'agentos search --min-score 0 --json retries'))
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4, 5]))
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
    .addHelpText('after', examples('agentos context brief.md', 'agentos context brief.md --json'))
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (brief, opts) => {
      const { runContext } = await import('./commands/context/index.js');
      setCode(await runContext(io, globals(), brief, opts));
    });

  // ---- i8-cli: the model ----
  const model = program.command('model').description('the embedding model: get it once per user');
  model
    .command('fetch')
    .description('download the pinned model files into the user cache (SHA-256 checked), or copy them from a folder')
    .option('--from <dir>', 'copy from this folder (holding Xenova/all-MiniLM-L6-v2/, or the model folder itself) instead of downloading')
    .option('--to <dir>', 'put the model here (default: AGENTOS_MODEL_DIR or model.dir when set, else ~/.cache/agentos/models)')
    .option('--json', 'print what was fetched as JSON on stdout')
    .addHelpText('after', examples('agentos model fetch', 'agentos model fetch --from /mnt/usb/models', 'AGENTOS_HUB_URL=https://mirror.example agentos model fetch'))
    .addHelpText('after', exitCodesHelp([0, 1, 2, 5]))
    .action(async (opts) => {
      const { runModelFetch } = await import('./commands/model/index.js');
      setCode(await runModelFetch(io, globals(), opts));
    });

  return program;
}

function parseScore(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a score from 0 to 1');
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

/** `--json` anywhere before `--`: errors then also go to stdout as a JSON object. */
function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}

/** Run the CLI; returns the exit code instead of exiting, so tests can call it in-process. */
export async function main(argv: string[], io: IO = processIO()): Promise<number> {
  let code: number = ExitCode.Ok;
  const started = performance.now();
  const program = buildProgram(io, (c) => (code = c));
  const json = wantsJson(argv);
  const jsonError = (c: number, message: string, kind: string) => {
    if (json) io.stdout.write(JSON.stringify({ error: { code: c, kind, message } }, null, 2) + '\n');
    return c;
  };
  try {
    await program.parseAsync(helpArgv(argv));
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      // `agentos issue` (no subcommand) shows help as an error (exitCode 1): a usage error, exit 2.
      if (e.code === 'commander.help' && e.exitCode !== 0) return ExitCode.Usage;
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return ExitCode.Ok;
      // commander already printed the message on stderr
      return jsonError(ExitCode.Usage, e.message.replace(/^error: /, ''), 'usage');
    }
    if (e instanceof ExitError) {
      for (const line of e.message.split('\n')) io.stderr.write(`agentos: ${line}\n`);
      return jsonError(e.code, e.message, e.name);
    }
    io.stderr.write(`agentos: unexpected error: ${errorMessage(e)}\n`);
    if (io.env.AGENTOS_DEBUG || program.opts<GlobalOptions>().verbose) io.stderr.write(`${(e as Error).stack}\n`);
    else io.stderr.write('agentos: run with --verbose (or AGENTOS_DEBUG=1) for the stack trace\n');
    return jsonError(ExitCode.Unexpected, errorMessage(e), 'unexpected');
  } finally {
    debugLine(io, program.opts<GlobalOptions>(), `${argv.slice(2).join(' ')}: ${Math.round(performance.now() - started)} ms`);
  }
}
