import { type Command, Option } from 'commander';
import { type CommandDeps, examples, exitCodesHelp, collect, parseScore } from '../../define.js';

/** `agentos issue start`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(program: Command, { context, setCode }: CommandDeps): void {
  const issue = program.command('issue').description('work on issues');
  issue
    .command('start')
    .description('check a new brief against past work and standards, then write the brief to use')
    .argument('<brief>', 'the brief (markdown file; "-" reads stdin)')
    .option('--non-interactive', 'never prompt (also when stdin is not a TTY or CI is set)')
    .addOption(
      new Option('--on-duplicate <action>', 'what to do with a duplicate when not prompting')
        .choices(['abort', 'link', 'ignore'])
        .default('link'),
    )
    .option('-o, --out <file>', 'where to write the brief to use (default .agentos/issues/<slug>/brief.md)')
    .option('--print', 'write the brief to use on stdout')
    .option('--json', 'print the result as JSON on stdout (= --format json)')
    .addOption(
      new Option(
        '--format <format>',
        'the result on stdout: json, markdown (a comment body), github (annotations and a job summary; docs/ci.md)',
      ).choices(['json', 'markdown', 'github']),
    )
    .option('--strict', 'exit non-zero when the history check fails instead of proceeding')
    .option('--context <file>', 'attach this document as context (repeatable; wins over retrieved ones)', collect, [])
    .option('--no-refresh', 'do not bring a stale index up to date first (warns which files it misses)')
    .addOption(
      new Option(
        '--duplicate-threshold <score>',
        'for this run: alert at or above this score (default: config thresholds.duplicate)',
      ).argParser(parseScore),
    )
    .addOption(
      new Option(
        '--related-threshold <score>',
        'for this run: add related work at or above this score (default: config thresholds.related)',
      ).argParser(parseScore),
    )
    .addOption(
      new Option(
        '--scope <scope>',
        'compare with this repository, or every repository in the team store (default: config store.scope, repo)',
      ).choices(['repo', 'org']),
    )
    .addHelpText(
      'after',
      examples(
        'agentos issue start docs/briefs/new-cache.md',
        'agentos issue start brief.md --scope org',
        'agentos issue start brief.md --non-interactive --on-duplicate abort --json',
        'agentos issue start brief.md --non-interactive --format github',
        'cat brief.md | agentos issue start - --print > brief-to-use.md',
        'agentos issue start brief.md --duplicate-threshold 0.9',
      ),
    )
    .addHelpText('after', exitCodesHelp([0, 1, 2, 3, 4, 130]))
    .action(async (brief, opts) => {
      const { runIssueStart } = await import('./index.js');
      setCode(await runIssueStart(context(), brief, opts));
    });
}
