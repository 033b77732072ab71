import { type Command, Option } from 'commander';
import { type CommandDeps, examples, exitCodesHelp, parseSeconds } from '../../define.js';

/** `agentos index`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(program: Command, { context, setCode }: CommandDeps): void {
  program
    .command('index')
    .description('embed the standards (and with --include-history, completed work) into the local index')
    .option(
      '--include-history',
      'also index completed work: finished issues and designs, and the git history and tracker exports sources: names (type: history)',
    )
    .option('--no-history', 'drop completed work from the index (once indexed, history is kept by later runs)')
    .option('--full', 'ignore the incremental cache and rebuild everything')
    .option('--json', 'print the summary as JSON on stdout')
    .addOption(
      new Option('--wait <seconds>', 'wait this long for another index run to finish')
        .default('30')
        .argParser(parseSeconds),
    )
    .addHelpText('after', examples('agentos index --include-history', 'agentos index --full --json'))
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4, 5]))
    .action(async (opts) => {
      const { runIndex } = await import('./index.js');
      setCode(await runIndex(context(), opts));
    });
}
