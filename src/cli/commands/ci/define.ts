import { type Command } from 'commander';
import { type CommandDeps, examples, exitCodesHelp, collect } from '../../define.js';

/** `agentos ci`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(program: Command, { context, setCode }: CommandDeps): void {
  const ci = program
    .command('ci')
    .description(
      'the check where work is filed: run by the GitHub Action on a new issue or a pull request (docs/ci.md)',
    );
  ci.command('github')
    .description(
      "answer a GitHub event: comment on a re-filed issue and label it, annotate brief files of a pull request, keep a maintainer's answer",
    )
    .option('--label <name>', 'label added to an issue on an alert', 'possible-duplicate')
    .option(
      '--briefs <glob>',
      'brief files a pull request is checked for (repeatable; default docs/briefs/**/*.md, briefs/**/*.md, **/brief.md)',
      collect,
      [],
    )
    .option('--event-name <name>', 'the event (default GITHUB_EVENT_NAME)')
    .option('--event <file>', 'the event payload (default GITHUB_EVENT_PATH)')
    .option('--dry-run', 'print the comment it would post; call nothing')
    .option(
      '--bot-login <login>',
      "the login agentos comments as; only its comments are read back (default github-actions[bot], the job token's)",
    )
    .addHelpText(
      'after',
      examples('agentos ci github', 'agentos ci github --event-name issues --event event.json --dry-run'),
    )
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4, 8]))
    .action(async (opts) => {
      const { runCiGithub, DEFAULT_BRIEF_GLOBS } = await import('./index.js');
      setCode(
        await runCiGithub(context(), { ...opts, briefs: opts.briefs.length ? opts.briefs : DEFAULT_BRIEF_GLOBS }),
      );
    });
}
