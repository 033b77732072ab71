import { type Command } from 'commander';
import { type CommandDeps, exitCodesHelp } from '../../define.js';

/** `agentos init`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(program: Command, { context, setCode }: CommandDeps): void {
  // --- init / status (issue 8 §2) ---
  program
    .command('init')
    .description(
      'detect where this project keeps decisions and completed work; write a commented .agentos/config.yaml and .agentos/.gitignore',
    )
    .option('-y, --yes', 'do not ask: take the detected folders')
    .option('--force', 'replace an existing .agentos/config.yaml (and .agentos/.gitignore)')
    .option('--json', 'print what was found and written as JSON on stdout')
    .addHelpText(
      'after',
      '\nExamples:\n  agentos init            ask at a terminal which folders are history and which standards\n  agentos init --yes      take what was detected\n' +
        exitCodesHelp([0, 1, 2, 130]),
    )
    .action(async (opts) => {
      const { runInit } = await import('./index.js');
      setCode(await runInit(context(), opts));
    });
}
