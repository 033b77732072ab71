import { type Command, Option } from 'commander';
import { type CommandDeps, exitCodesHelp } from '../../define.js';

/** `agentos recall`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(program: Command, { context, setCode }: CommandDeps): void {
  // --- recall, worked-on, hooks (issue 10) ---
  program
    .command('recall')
    .description(
      'the context a new agent session starts with: project summary, failures to avoid, what works, recent work, standards',
    )
    .addOption(
      new Option('--format <format>', 'output format (claude: the SessionStart hook JSON)')
        .choices(['markdown', 'json', 'claude'])
        .default('markdown'),
    )
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4]))
    .action(async (opts) => {
      const { runRecall } = await import('./index.js');
      setCode(await runRecall(context(), opts));
    });
}
