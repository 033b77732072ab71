import { type Command } from 'commander';
import { RUN } from './spec.js';
import { type CommandDeps, addFlags } from '../../define.js';
import type { RunOptions } from './index.js';

/** `agentos run`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(program: Command, { context, setCode }: CommandDeps): void {
  // ---- attempt memory (issue 9): run, attempt record|check|list, forget ----
  // Lazy imports: none of these load the model or hnswlib; better-sqlite3 loads when the memory opens.
  addFlags(
    program
      .command('run')
      .description(RUN.description)
      .argument('<command...>', 'the command and its arguments, after --'),
    RUN,
  )
    .addHelpText(
      'after',
      `\nExit status: the command's own (128+N when signal N ended it; 127 not found, 126 not executable).\nagentos' own codes apply only when the command did not run: 2 usage, 6 not run (a repeat), 130 Ctrl-C at the prompt.`,
    )
    .action(async (argv: string[], opts: RunOptions) => {
      const { runRun } = await import('./index.js');
      setCode(await runRun(context(), argv, opts));
    });
}
