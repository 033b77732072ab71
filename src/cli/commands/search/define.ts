import { type Command, Option } from 'commander';
import { type CommandDeps, examples, exitCodesHelp, parseScore, parsePositiveInt } from '../../define.js';

/** `agentos search`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(program: Command, { context, setCode }: CommandDeps): void {
  program
    .command('search')
    .description('semantic search over the index: "have we worked on X?"')
    .argument('<query...>', 'what to look for')
    .addOption(new Option('--type <type>', 'only this kind of document').choices(['history', 'standard']))
    .addOption(new Option('-k, --limit <n>', 'number of results').default('5').argParser(parsePositiveInt))
    .addOption(
      new Option(
        '--min-score <score>',
        'list nothing scoring below this (default: config search.min_score, 0.3)',
      ).argParser(parseScore),
    )
    .option('--json', 'print results as JSON on stdout')
    .option('--no-refresh', 'do not bring a stale index up to date first (warns which files it misses)')
    .addOption(
      new Option(
        '--scope <scope>',
        'search this repository, or every repository in the team store (default: config store.scope, repo)',
      ).choices(['repo', 'org']),
    )
    .addHelpText(
      'after',
      examples(
        'agentos search "flaky integration tests"',
        'agentos search --type history -k 10 logging',
        'agentos search --min-score 0 --json retries',
      ),
    )
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4, 5]))
    .action(async (query: string[], opts) => {
      const { runSearch } = await import('./index.js');
      setCode(await runSearch(context(), query.join(' '), opts));
    });
}
