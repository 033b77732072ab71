import { type Command, Option } from 'commander';
import { type CommandDeps, exitCodesHelp, parseShare } from '../../define.js';

/** `agentos calibrate`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(program: Command, { context, setCode }: CommandDeps): void {
  program
    .command('calibrate')
    .description('propose duplicate/related thresholds from an evaluation and show the trade-off')
    .option('--pairs <path>', 'evaluate this labelled set, file or folder (else the project history)')
    .option('--results <file>', 'use the results of an earlier `agentos eval --save`')
    .addOption(
      new Option('--subset <share>', 'share of the duplicate clusters of --pairs').default(1).argParser(parseShare),
    )
    .addOption(
      new Option('--target-precision <p>', 'alert precision wanted at a 10% duplicate rate')
        .default(0.8)
        .argParser(parseShare),
    )
    .addOption(
      new Option('--target-noise <n>', 'largest share of non-duplicates allowed to get related context')
        .default(0.25)
        .argParser(parseShare),
    )
    .option('--write', 'write the proposed thresholds to .agentos/config.yaml')
    .option('--json', 'print the proposal and table as JSON on stdout')
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4, 5]))
    .action(async (opts) => {
      const { runCalibrate } = await import('./index.js');
      setCode(await runCalibrate(context(), opts));
    });
}
