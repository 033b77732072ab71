import { type Command } from 'commander';
import { type CommandDeps, exitCodesHelp, attemptSince } from '../../define.js';

/** `agentos forget`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(program: Command, { context, setCode }: CommandDeps): void {
  program
    .command('forget')
    .description('erase recorded attempts: one, those before a date, or all')
    .option('--id <id>', 'the attempt with this id')
    .option('--before <date>', 'attempts older than this (a date, or a duration ago: 30d)', attemptSince)
    .option('--all', 'everything')
    .option('--json', 'print the count as JSON on stdout')
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (opts) => {
      const { runForget } = await import('./index.js');
      setCode(await runForget(context(), opts));
    });
}
