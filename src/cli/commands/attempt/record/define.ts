import { type Command, Option } from 'commander';
import { addTags } from '../../../../shared/option-values.js';
import { OUTCOMES } from '../../../../attempt-memory/types.js';
import { type CommandDeps, exitCodesHelp, attemptInt } from '../../../define.js';
import type { RecordOptions } from './index.js';

/** `agentos attempt record`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(attempt: Command, { context, setCode }: CommandDeps): void {
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
    .option(
      '--work <id>',
      'the issue it was tried for (default $AGENTOS_WORK, else the brief `issue start` began on this branch, else a number in the branch name)',
    )
    .option('--json', 'print the stored records as JSON on stdout')
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (source: string | undefined, opts: RecordOptions) => {
      const { runAttemptRecord } = await import('./index.js');
      setCode(await runAttemptRecord(context(), source, opts));
    });
}
