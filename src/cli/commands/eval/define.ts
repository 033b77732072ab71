import { type Command, Option } from 'commander';
import {
  type CommandDeps,
  exitCodesHelp,
  parseShare,
  parseSizes,
  parseCount,
  parseScoringMethod,
} from '../../define.js';

/** `agentos eval`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(program: Command, { context, setCode }: CommandDeps): void {
  // Issue 11: measuring the check (eval) and choosing thresholds from it (calibrate).
  program
    .command('eval')
    .description("measure the history check: on the project's own linked history, or on a labelled --pairs file")
    .option(
      '--pairs <path>',
      'labelled set to build scratch projects from: reports (JSONL: id, title, body, duplicate_of, project) or a markdown history folder (corpus.jsonl + queries.jsonl)',
    )
    .addOption(
      new Option(
        '--sweep [sizes]',
        'also run the corpus-size sweep (default 5,10,30,100,300,1000,3000 documents)',
      ).argParser(parseSizes),
    )
    .option('--work <dir>', 'scratch folder for --pairs (default .agentos/eval/<file>)')
    .addOption(
      new Option('--limit <n>', 'ask at most n briefs per project (deterministic sample; 0 = all)')
        .default(0)
        .argParser(parseCount),
    )
    .addOption(
      new Option('--subset <share>', 'use this share of the duplicate clusters of --pairs (deterministic)')
        .default(1)
        .argParser(parseShare),
    )
    .addOption(
      new Option('--method <method>', 'scoring method for this run: calibrated (default), fused or cosine').argParser(
        parseScoringMethod,
      ),
    )
    .option('--save <file>', 'also write per-query results (input of `agentos calibrate --results`)')
    .option('--json', 'print the report as JSON on stdout')
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4, 5]))
    .action(async (opts) => {
      const { runEval } = await import('./index.js');
      setCode(await runEval(context(), opts));
    });
}
