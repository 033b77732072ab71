import { type Command } from 'commander';
import { type CommandDeps, exitCodesHelp } from '../../define.js';

/** `agentos worked-on`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(program: Command, { context, setCode }: CommandDeps): void {
  program
    .command('worked-on')
    .description('"what have we worked on?": completed work by topic and time, with attempt statistics')
    .option('--since <when>', 'only work dated on or after this (YYYY-MM-DD, or 30d, 8w, 6m, 1y)')
    .option('--topic <text>', 'only topics whose label or items mention this')
    .option('--json', 'print as JSON on stdout')
    .option('--html <file>', 'write a self-contained timeline page to this file')
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4]))
    .action(async (opts) => {
      const { runWorkedOn } = await import('./index.js');
      setCode(await runWorkedOn(context(), opts));
    });
}
