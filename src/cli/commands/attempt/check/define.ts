import { type Command } from 'commander';
import { type CommandDeps, exitCodesHelp, addFlags } from '../../../define.js';
import type { CheckOptions } from './index.js';
import { ATTEMPT_CHECK } from './spec.js';

/** `agentos attempt check`: its flags (spec.ts, which the fast route reads too), help and exit codes. */
export function define(attempt: Command, { context, setCode }: CommandDeps): void {
  addFlags(
    attempt.command('check').description(ATTEMPT_CHECK.description).argument('[command...]', 'the command, after --'),
    ATTEMPT_CHECK,
  )
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (words: string[], opts: CheckOptions) => {
      const { runAttemptCheck } = await import('./index.js');
      setCode(await runAttemptCheck(context(), words, opts));
    });
}
