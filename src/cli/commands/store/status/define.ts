import { type Command } from 'commander';
import { type CommandDeps, exitCodesHelp } from '../../../define.js';
import type { TeamStoreStatusOptions } from './index.js';

/** `agentos store status`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(store: Command, { context, setCode }: CommandDeps): void {
  store
    .command('status')
    .description(
      'which server answered (URL with its password masked), the schema version, the repositories and their documents',
    )
    .option('--json', 'print as JSON on stdout')
    .addHelpText('after', exitCodesHelp([0, 1, 2, 7]))
    .action(async (opts: TeamStoreStatusOptions) => {
      const { runStoreStatus } = await import('./index.js');
      setCode(await runStoreStatus(context(), opts));
    });
}
