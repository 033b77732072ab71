import { type Command } from 'commander';
import { type CommandDeps, examples, exitCodesHelp } from '../../../define.js';
import type { TeamStoreRemoveOptions } from './index.js';

/** `agentos store remove <name>`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(store: Command, { context, setCode }: CommandDeps): void {
  store
    .command('remove <name>')
    .description(
      'take a repository out of the team store (its owners or an administrator only; the name, typed out, is the confirmation)',
    )
    .option('--json', 'print the result as JSON on stdout')
    .addHelpText('after', examples('agentos store remove github.com/acme/old-prototype'))
    .addHelpText('after', exitCodesHelp([0, 1, 2, 7]))
    .action(async (name: string, opts: TeamStoreRemoveOptions) => {
      const { runStoreRemove } = await import('./index.js');
      setCode(await runStoreRemove(context(), name, opts));
    });
}
