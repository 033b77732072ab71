import { type Command } from 'commander';
import { type CommandDeps, exitCodesHelp } from '../../define.js';

/** `agentos status`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(program: Command, { context, setCode }: CommandDeps): void {
  program
    .command('status')
    .description(
      'effective config and where each value came from, files per glob, model, index age and coverage, changes since the index, lock, log',
    )
    .option('--json', 'print the status as JSON on stdout')
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (opts) => {
      const { runStatus } = await import('./index.js');
      setCode(await runStatus(context(), opts));
    });
}
