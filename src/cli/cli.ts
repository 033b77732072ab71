import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ExitCode } from '../shared/errors.js';
import { packageRoot } from '../shared/package-root.js';
import { debugLine, processIO, type IO } from '../shared/io.js';
import { jsonErrorLine, reportError } from './report-error.js';
import { addTags, HOOK_ON_REPEAT } from '../shared/option-values.js';
import { OUTCOMES } from '../attempt-memory/types.js';
import { isCalendarDate } from '../shared/text/calendar.js';

/** For bin/agentos.js, which ends the inference worker it started before the process exits. */
export { endWorker as endInferenceWorker } from '../work-memory/embeddings/worker-runner.js';

/** Every exit code; each command's help lists only the ones it can return. */
const EXIT_CODE_LINES: Record<number, string> = {
  0: '0    success (for issue start: proceed — clear, related, linked, ignored, or failed open)',
  1: '1    unexpected error',
  2: '2    usage error or bad input (flags, brief, config)',
  3: '3    aborted as a duplicate of past work',
  4: '4    index unavailable (missing, corrupt, locked; issue start only with --strict)',
  5: '5    model unavailable (run `agentos model fetch`)',
  6: '6    run: not run, it repeats a recent failure (declined, or --on-repeat block)',
  7: '7    shared store unavailable (unreachable, credentials refused, no pgvector, another schema)',
  8: '8    ci github: GitHub refused a call or could not be reached (token permissions, rate limit)',
  130: '130  cancelled at a prompt (Ctrl-C)',
};
export function exitCodesHelp(codes: number[]): string {
  return `\nExit codes:\n${codes.map((c) => `  ${EXIT_CODE_LINES[c]}`).join('\n')}`;
}
export const EXIT_CODES_HELP = exitCodesHelp([0, 1, 2, 3, 4, 5, 6, 7, 8, 130]);

function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`;
}

/** The version of the installed package, not a copy that drifts. */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export type { GlobalOptions } from './globals.js';
import type { GlobalOptions } from './globals.js';
import { createContext, type CommandContext, type ContextOverrides } from './context.js';
import { ATTEMPT_CHECK, HOOKS_RUN, RUN, type HotCommand } from './hot-specs.js';

/**
 * The command registry. Each command lives in `commands/<name>/` and is
 * imported only when it runs, so `--help` never loads the model or hnswlib.
 */
export function buildProgram(io: IO, setCode: (code: number) => void, overrides: ContextOverrides = {}, onContext?: (ctx: CommandContext) => void): Command {
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
  // One context per run, built when the command's action starts (the global options are parsed by then).
  let built: CommandContext | null = null;
  const context = () => {
    if (!built) {
      built = createContext(io, globals(), overrides);
      onContext?.(built);
    }
    return built;
  };

  program
    .command('index')
    .description('embed the standards (and with --include-history, completed work) into the local index')
    .option('--include-history', 'also index completed work: finished issues and designs, and the git history and tracker exports sources: names (type: history)')
    .option('--no-history', 'drop completed work from the index (once indexed, history is kept by later runs)')
    .option('--full', 'ignore the incremental cache and rebuild everything')
    .option('--json', 'print the summary as JSON on stdout')
    .addOption(new Option('--wait <seconds>', 'wait this long for another index run to finish').default('30').argParser(parseSeconds))
    .addHelpText('after', examples('agentos index --include-history', 'agentos index --full --json'))
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4, 5]))
    .action(async (opts) => {
      const { runIndex } = await import('./commands/index/index.js');
      setCode(await runIndex(context(), opts));
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
    .option('--json', 'print the result as JSON on stdout (= --format json)')
    .addOption(new Option('--format <format>', 'the result on stdout: json, markdown (a comment body), github (annotations and a job summary; docs/ci.md)').choices(['json', 'markdown', 'github']))
    .option('--strict', 'exit non-zero when the history check fails instead of proceeding')
    .option('--context <file>', 'attach this document as context (repeatable; wins over retrieved ones)', collect, [])
    .option('--no-refresh', 'do not bring a stale index up to date first (warns which files it misses)')
    .addOption(new Option('--duplicate-threshold <score>', 'for this run: alert at or above this similarity (default: config thresholds.duplicate)').argParser(parseScore))
    .addOption(new Option('--related-threshold <score>', 'for this run: add related work at or above this similarity (default: config thresholds.related)').argParser(parseScore))
    .addOption(new Option('--scope <scope>', 'compare with this repository, or every repository in the shared store (default: config store.scope, repo)').choices(['repo', 'org']))
    .addHelpText(
      'after',
      examples(
        'agentos issue start docs/briefs/new-cache.md',
        'agentos issue start brief.md --scope org',
        'agentos issue start brief.md --non-interactive --on-duplicate abort --json',
        'agentos issue start brief.md --non-interactive --format github',
        'cat brief.md | agentos issue start - --print > brief-to-use.md',
        'agentos issue start brief.md --duplicate-threshold 0.9',
      ),
    )
    .addHelpText('after', exitCodesHelp([0, 1, 2, 3, 4, 130]))
    .action(async (brief, opts) => {
      const { runIssueStart } = await import('./commands/issue-start/index.js');
      setCode(await runIssueStart(context(), brief, opts));
    });

  program
    .command('search')
    .description('semantic search over the index: "have we worked on X?"')
    .argument('<query...>', 'what to look for')
    .addOption(new Option('--type <type>', 'only this kind of document').choices(['history', 'standard']))
    .addOption(new Option('-k, --limit <n>', 'number of results').default('5').argParser(parsePositiveInt))
    .addOption(new Option('--min-score <score>', 'list nothing scoring below this (default: config search.min_score, 0.3)').argParser(parseScore))
    .option('--json', 'print results as JSON on stdout')
    .option('--no-refresh', 'do not bring a stale index up to date first (warns which files it misses)')
    .addOption(new Option('--scope <scope>', 'search this repository, or every repository in the shared store (default: config store.scope, repo)').choices(['repo', 'org']))
    .addHelpText('after', examples('agentos search "flaky integration tests"', 'agentos search --type history -k 10 logging', 'agentos search --min-score 0 --json retries'))
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4, 5]))
    .action(async (query: string[], opts) => {
      const { runSearch } = await import('./commands/search/index.js');
      setCode(await runSearch(context(), query.join(' '), opts));
    });

  program
    .command('context')
    .description('print the standards that govern a brief (for other tools)')
    .argument('<brief>', 'the brief (markdown file; "-" reads stdin)')
    .option('--json', 'print as JSON on stdout')
    .option('--context <file>', 'manual context document (repeatable)', collect, [])
    .option('--no-refresh', 'do not bring a stale index up to date first (warns which files it misses)')
    .addHelpText('after', examples('agentos context brief.md', 'agentos context brief.md --json'))
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (brief, opts) => {
      const { runContext } = await import('./commands/context/index.js');
      setCode(await runContext(context(), brief, opts));
    });

  // --- init / status (issue 8 §2) ---
  program
    .command('init')
    .description('detect where this project keeps decisions and finished work; write a commented .agentos/config.yaml and .agentos/.gitignore')
    .option('-y, --yes', 'do not ask: take the detected folders')
    .option('--force', 'replace an existing .agentos/config.yaml (and .agentos/.gitignore)')
    .option('--json', 'print what was found and written as JSON on stdout')
    .addHelpText(
      'after',
      '\nExamples:\n  agentos init            ask at a terminal which folders are history and which standards\n  agentos init --yes      take what was detected\n' + exitCodesHelp([0, 1, 2, 130]),
    )
    .action(async (opts) => {
      const { runInit } = await import('./commands/init/index.js');
      setCode(await runInit(context(), opts));
    });
  program
    .command('status')
    .description('effective config and where each value came from, files per glob, model, index age and coverage, changes since the index, lock, log')
    .option('--json', 'print the status as JSON on stdout')
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (opts) => {
      const { runStatus } = await import('./commands/status/index.js');
      setCode(await runStatus(context(), opts));
    });
  // --- end init / status ---

  // Issue 11: measuring the check (eval) and choosing thresholds from it (calibrate).
  program
    .command('eval')
    .description("measure the duplicate check: on the project's own linked history, or on a labelled --pairs file")
    .option('--pairs <path>', 'labelled set to build scratch projects from: reports (JSONL: id, title, body, duplicate_of, project) or a markdown history folder (corpus.jsonl + queries.jsonl)')
    .addOption(new Option('--sweep [sizes]', 'also run the corpus-size sweep (default 5,10,30,100,300,1000,3000 documents)').argParser(parseSizes))
    .option('--work <dir>', 'scratch folder for --pairs (default .agentos/eval/<file>)')
    .addOption(new Option('--limit <n>', 'ask at most n briefs per project (deterministic sample; 0 = all)').default(0).argParser(parseCount))
    .addOption(new Option('--subset <share>', 'use this share of the duplicate clusters of --pairs (deterministic)').default(1).argParser(parseShare))
    .addOption(new Option('--method <method>', 'scoring method for this run').choices(['hybrid', 'standout', 'cosine']))
    .option('--save <file>', 'also write per-query results (input of `agentos calibrate --results`)')
    .option('--json', 'print the report as JSON on stdout')
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4, 5]))
    .action(async (opts) => {
      const { runEval } = await import('./commands/eval/index.js');
      setCode(await runEval(context(), opts));
    });

  program
    .command('calibrate')
    .description('propose duplicate/related thresholds from an evaluation and show the trade-off')
    .option('--pairs <path>', 'evaluate this labelled set, file or folder (else the project history)')
    .option('--results <file>', 'use the results of an earlier `agentos eval --save`')
    .addOption(new Option('--subset <share>', 'share of the duplicate clusters of --pairs').default(1).argParser(parseShare))
    .addOption(new Option('--target-precision <p>', 'alert precision wanted at a 10% duplicate rate').default(0.8).argParser(parseShare))
    .addOption(new Option('--target-noise <n>', 'largest share of non-duplicates allowed to get related context').default(0.25).argParser(parseShare))
    .option('--write', 'write the proposed thresholds to .agentos/config.yaml')
    .option('--json', 'print the proposal and table as JSON on stdout')
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4, 5]))
    .action(async (opts) => {
      const { runCalibrate } = await import('./commands/calibrate/index.js');
      setCode(await runCalibrate(context(), opts));
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
      setCode(await runModelFetch(context(), opts));
    });

  // ---- attempt memory (issue 9): run, attempt record|check|list, forget ----
  // Lazy imports: none of these load the model or hnswlib; better-sqlite3 loads when the memory opens.
  addFlags(program.command('run').description(RUN.description).argument('<command...>', 'the command and its arguments, after --'), RUN)
    .addHelpText(
      'after',
      `\nExit status: the command's own (128+N when signal N ended it; 127 not found, 126 not executable).\nagentos' own codes apply only when the command did not run: 2 usage, 6 not run (a repeat), 130 Ctrl-C at the prompt.`,
    )
    .action(async (argv: string[], opts) => {
      const { runRun } = await import('./commands/run/index.js');
      setCode(await runRun(context(), argv, opts));
    });

  const attempt = program.command('attempt').description('the attempt memory: what was tried, what failed, what worked');
  attempt
    .command('record')
    .description('record one attempt (or JSON from stdin with "-")')
    .argument('[source]', '"-" reads a JSON object, array or JSON lines from stdin')
    .addOption(new Option('--outcome <outcome>', 'how it went').choices([...OUTCOMES]))
    .option('--tool <name>', 'the tool ("shell" for commands)', 'shell')
    .option('--command <text>', "the command line or the tool's arguments")
    .option('--error <text>', 'the error (last lines of stderr)')
    .option('--context <text>', 'what the work was for')
    .option('--tags <list>', 'comma-separated tags', addTags, [])
    .option('--exit-code <n>', 'the exit code', attemptInt)
    .option('--duration-ms <n>', 'how long it took', attemptInt)
    .option('--session <id>', 'session id (default $AGENTOS_SESSION, else one per process)')
    .option('--work <id>', 'the issue it was tried for (default $AGENTOS_WORK, else the brief `issue start` began on this branch, else a number in the branch name)')
    .option('--json', 'print the stored records as JSON on stdout')
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (source: string | undefined, opts) => {
      const { runAttemptRecord } = await import('./commands/attempt/index.js');
      setCode(await runAttemptRecord(context(), source, opts));
    });
  addFlags(attempt.command('check').description(ATTEMPT_CHECK.description).argument('[command...]', 'the command, after --'), ATTEMPT_CHECK)
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (words: string[], opts) => {
      const { runAttemptCheck } = await import('./commands/attempt/index.js');
      setCode(await runAttemptCheck(context(), words, opts));
    });
  attempt
    .command('list')
    .description('list recorded attempts, newest first')
    .option('--failures', 'failures only')
    .option('--successes', 'successes only')
    .option('--since <when>', 'newer than a duration ago (7d, 12h, 2w) or a date', attemptSince)
    .option('--tag <tag>', 'with this tag')
    .option('--session <id>', 'from this session')
    .option('--all', 'include archived failures')
    .addOption(new Option('-n, --limit <n>', 'at most this many').argParser(parsePositiveInt))
    .option('--json', 'print as JSON on stdout')
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (opts) => {
      const { runAttemptList } = await import('./commands/attempt/index.js');
      setCode(await runAttemptList(context(), opts));
    });
  program
    .command('forget')
    .description('erase recorded attempts: one, those before a date, or all')
    .option('--id <id>', 'the attempt with this id')
    .option('--before <date>', 'attempts older than this (a date, or a duration ago: 30d)', attemptSince)
    .option('--all', 'everything')
    .option('--json', 'print the count as JSON on stdout')
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (opts) => {
      const { runForget } = await import('./commands/forget/index.js');
      setCode(await runForget(context(), opts));
    });
  // ---- end attempt memory ----

  const store = program.command('store').description('the shared team store (PostgreSQL + pgvector; AGENTOS_DATABASE_URL or store.url): create its schema, see what it holds');
  store
    .command('init')
    .description("create or migrate the store's schema (idempotent, versioned; safe when several run at once)")
    .option('--json', 'print the result as JSON on stdout')
    .addHelpText('after', examples('AGENTOS_DATABASE_URL=postgres://agentos@db.internal/agentos agentos store init'))
    .addHelpText('after', exitCodesHelp([0, 1, 2, 7]))
    .action(async (opts) => {
      const { runStoreInit } = await import('./commands/store/index.js');
      setCode(await runStoreInit(context(), opts));
    });
  store
    .command('sync')
    .description("push this repository's live index into the shared store: only what changed, in one transaction (index does it after a build when store.publish is true)")
    .option('--json', 'print the result as JSON on stdout')
    .option('--any-branch', "replace the team's copy from a branch other than the default one")
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4, 7]))
    .action(async (opts) => {
      const { runStoreSync } = await import('./commands/store/sync.js');
      setCode(await runStoreSync(context(), opts));
    });
  store
    .command('remove <name>')
    .description('take a repository out of the shared store (its owners or an administrator only; the name, typed out, is the confirmation)')
    .option('--json', 'print the result as JSON on stdout')
    .addHelpText('after', examples('agentos store remove github.com/acme/old-prototype'))
    .addHelpText('after', exitCodesHelp([0, 1, 2, 7]))
    .action(async (name: string, opts) => {
      const { runStoreRemove } = await import('./commands/store/index.js');
      setCode(await runStoreRemove(context(), name, opts));
    });
  store
    .command('status')
    .description('which server answered (URL with its password masked), the schema version, the repositories and their documents')
    .option('--json', 'print as JSON on stdout')
    .addHelpText('after', exitCodesHelp([0, 1, 2, 7]))
    .action(async (opts) => {
      const { runStoreStatus } = await import('./commands/store/index.js');
      setCode(await runStoreStatus(context(), opts));
    });

  const ci = program.command('ci').description('the check where work is filed: run by the GitHub Action on a new issue or a pull request (docs/ci.md)');
  ci.command('github')
    .description("answer a GitHub event: comment on a re-filed issue and label it, annotate brief files of a pull request, keep a maintainer's answer")
    .option('--label <name>', 'label added to an issue on an alert', 'possible-duplicate')
    .option('--briefs <glob>', 'brief files a pull request is checked for (repeatable; default docs/briefs/**/*.md, briefs/**/*.md, **/brief.md)', collect, [])
    .option('--event-name <name>', 'the event (default GITHUB_EVENT_NAME)')
    .option('--event <file>', 'the event payload (default GITHUB_EVENT_PATH)')
    .option('--dry-run', 'print the comment it would post; call nothing')
    .option('--bot-login <login>', "the login agentos comments as; only its comments are read back (default github-actions[bot], the job token's)")
    .addHelpText('after', examples('agentos ci github', 'agentos ci github --event-name issues --event event.json --dry-run'))
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4, 8]))
    .action(async (opts) => {
      const { runCiGithub, DEFAULT_BRIEF_GLOBS } = await import('./commands/ci/index.js');
      setCode(await runCiGithub(context(), { ...opts, briefs: opts.briefs.length ? opts.briefs : DEFAULT_BRIEF_GLOBS }));
    });

  program
    .command('mcp')
    .description("serve this project's memory to a coding agent: a stdio MCP server (tools check_brief, search_history, standards_for, attempt_check, attempt_record, recall, worked_on; docs/mcp.md)")
    .option('--timeout <ms>', 'longest a tool call may take before the server answers without it', (v) => Number(v), 20_000)
    .addHelpText('after', examples('claude mcp add agentos -- agentos mcp', 'agentos -C ~/src/project mcp'))
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (opts) => {
      const { runMcp } = await import('./commands/mcp/index.js');
      setCode(await runMcp(context(), opts, packageVersion()));
    });

  // --- recall, worked-on, hooks (issue 10) ---
  program
    .command('recall')
    .description('the context a new agent session starts with: project summary, failures to avoid, what works, recent work, standards')
    .addOption(new Option('--format <format>', 'output format (claude: the SessionStart hook JSON)').choices(['markdown', 'json', 'claude']).default('markdown'))
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4]))
    .action(async (opts) => {
      const { runRecall } = await import('./commands/recall/index.js');
      setCode(await runRecall(context(), opts));
    });

  program
    .command('worked-on')
    .description('"what have we worked on?": completed work by topic and time, with attempt statistics')
    .option('--since <when>', 'only work dated on or after this (YYYY-MM-DD, or 30d, 8w, 6m, 1y)')
    .option('--topic <text>', 'only topics whose label or items mention this')
    .option('--json', 'print as JSON on stdout')
    .option('--html <file>', 'write a self-contained timeline page to this file')
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4]))
    .action(async (opts) => {
      const { runWorkedOn } = await import('./commands/worked-on/index.js');
      setCode(await runWorkedOn(context(), opts));
    });

  const hooks = program.command('hooks').description('wire agentos into coding agents (claude, codex, gemini, cursor): session context, repeat warnings, attempt recording');
  const scope = (c: Command) =>
    c
      .option('--project', "the project's settings file (default): .claude/settings.json, .codex/hooks.json, .gemini/settings.json, .cursor/hooks.json")
      .option('--local', '.claude/settings.local.json of the project (not committed; Claude Code only)')
      .option('--user', 'the same file under your home folder (~/.claude/settings.json, …)')
      .option('--dry-run', 'print the change as a diff; write nothing');
  scope(
    hooks
      .command('install')
      .description("merge agentos hook entries into the agent's settings (idempotent, never clobbers)")
      .argument('[agent]', 'agent to wire: claude, codex, gemini or cursor (others: the MCP server, `agentos mcp`)', 'claude'),
  )
    .addOption(new Option('--on-repeat <mode>', 'a known failure before a shell call: warn the agent, or ask the person to confirm').choices(HOOK_ON_REPEAT).default('warn'))
    .option('--command <prefix>', 'how settings call agentos (default: `agentos` if on PATH, else node + this bin)')
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (agent: string, opts) => {
      const { runHooksInstall } = await import('./commands/hooks/index.js');
      setCode(await runHooksInstall(context(), agent, opts));
    });
  scope(hooks.command('uninstall').description('remove exactly the hook entries agentos added').argument('[agent]', 'agent to unwire', 'claude'))
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (agent: string, opts) => {
      const { runHooksUninstall } = await import('./commands/hooks/index.js');
      setCode(await runHooksUninstall(context(), agent, opts));
    });
  addFlags(hooks.command('run').description(HOOKS_RUN.description).argument('<event>', 'session-start | pre-tool-use | post-tool-use | post-tool-use-failure'), HOOKS_RUN).action(
    async (event: string, opts) => {
      const { runHook } = await import('../agents/hooks/run.js');
      setCode(await runHook(event, io, opts));
    },
  );
  // --- end issue 10 ---

  return program;
}

/** A hot command's flags on its commander definition, from the spec the fast route also reads (hot-specs.ts). */
function addFlags(cmd: Command, spec: HotCommand): Command {
  for (const f of spec.flags) {
    const flags = f.value ? `${f.flag} <${f.value}>` : f.flag;
    if (f.kind === 'choice') cmd.addOption(new Option(flags, f.help).choices(f.choices ?? []).default(f.default));
    else if (f.kind === 'tags') cmd.option(flags, f.help, addTags, [...((f.default as string[] | undefined) ?? [])]);
    else if (f.default !== undefined) cmd.option(flags, f.help, f.default as string);
    else cmd.option(flags, f.help);
  }
  return cmd;
}

function parseScore(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a score from 0 to 1');
  return n;
}

// Option parsers of the attempt-memory commands (kept here, tiny, so parsing needs no extra import).
function attemptInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || Math.abs(n) > 2 ** 31) throw new InvalidArgumentError('expected a whole number');
  return n;
}

function attemptSince(v: string): Date {
  const m = /^(\d{1,6})([mhdw])$/.exec(v.trim());
  if (m) return new Date(Date.now() - Number(m[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[m[2] as 'm' | 'h' | 'd' | 'w']);
  const d = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v.trim()) && isCalendarDate(v.trim().slice(0, 10)) ? new Date(v.trim()) : new Date(NaN);
  if (Number.isNaN(d.getTime())) throw new InvalidArgumentError(`expected a duration (7d, 12h, 2w) or a date (2025-11-18), got "${v}"`);
  return d;
}

function parseShare(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || n > 1) throw new InvalidArgumentError('expected a share above 0 and at most 1');
  return n;
}

function parseSizes(v: string): number[] {
  const sizes = v.split(',').map((x) => Number(x.trim()));
  if (!sizes.length || sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new InvalidArgumentError('expected document counts such as 5,10,30');
  return sizes;
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
export async function main(argv: string[], io: IO = processIO(), overrides: ContextOverrides = {}): Promise<number> {
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
    if (e instanceof CommanderError) {
      // `agentos issue` (no subcommand) shows help as an error (exitCode 1): a usage error, exit 2.
      if (e.code === 'commander.help' && e.exitCode !== 0) return ExitCode.Usage;
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return ExitCode.Ok;
      // commander already printed the message on stderr
      return jsonError(ExitCode.Usage, e.message.replace(/^error: /, ''), 'usage');
    }
    return reportError(io, e, { json, verbose: Boolean(program.opts<GlobalOptions>().verbose) });
  } finally {
    (ctx as CommandContext | null)?.close();
    debugLine(io, program.opts<GlobalOptions>(), `${argv.slice(2).join(' ')}: ${Math.round(performance.now() - started)} ms`);
  }
}
