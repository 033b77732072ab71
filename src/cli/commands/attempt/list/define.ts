import { type Command, Option } from 'commander';
import { type CommandDeps, exitCodesHelp, attemptSince, parsePositiveInt } from '../../../define.js';
import type { ListOptions } from './index.js';

/** `agentos attempt list`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(attempt: Command, { context, setCode }: CommandDeps): void {
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
    .action(async (opts: ListOptions) => {
      const { runAttemptList } = await import('./index.js');
      setCode(await runAttemptList(context(), opts));
    });
}
