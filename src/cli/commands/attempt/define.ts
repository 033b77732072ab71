import { type Command, Option } from 'commander';
import { addTags } from '../../../shared/option-values.js';
import { OUTCOMES } from '../../../attempt-memory/types.js';
import { ATTEMPT_CHECK } from '../../hot-specs.js';
import { type CommandDeps, exitCodesHelp, attemptInt, attemptSince, parsePositiveInt, addFlags } from '../../define.js';

/** `agentos attempt`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(program: Command, { context, setCode }: CommandDeps): void {
  const attempt = program
    .command('attempt')
    .description('the attempt memory: what was tried, what failed, what worked');
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
    .action(async (source: string | undefined, opts) => {
      const { runAttemptRecord } = await import('./index.js');
      setCode(await runAttemptRecord(context(), source, opts));
    });
  addFlags(
    attempt.command('check').description(ATTEMPT_CHECK.description).argument('[command...]', 'the command, after --'),
    ATTEMPT_CHECK,
  )
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (words: string[], opts) => {
      const { runAttemptCheck } = await import('./index.js');
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
      const { runAttemptList } = await import('./index.js');
      setCode(await runAttemptList(context(), opts));
    });
}
