import { type Command } from 'commander';
import { type CommandDeps, examples, exitCodesHelp, collect } from '../../define.js';

/** `agentos context`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(program: Command, { context, setCode }: CommandDeps): void {
  program
    .command('context')
    .description('print the standards that govern a brief (for other tools)')
    .argument('<brief>', 'the brief (markdown file; "-" reads stdin)')
    .option('--json', 'print as JSON on stdout')
    .option('--context <file>', 'manual context document (repeatable)', collect, [])
    .option('--no-refresh', 'do not bring a stale index up to date first (warns which files it misses)')
    .addHelpText('after', examples('agentos context brief.md', 'agentos context brief.md --json'))
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (brief, opts) => {
      const { runContext } = await import('./index.js');
      setCode(await runContext(context(), brief, opts));
    });
}
