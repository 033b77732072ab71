import { type Command } from 'commander';
import { type CommandDeps, exitCodesHelp } from '../../../define.js';
import type { TeamStoreSyncOptions } from './index.js';

/** `agentos store sync`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(store: Command, { context, setCode }: CommandDeps): void {
  store
    .command('sync')
    .description(
      "push this repository's live index into the team store: only what changed, in one transaction (index does it after a build when store.publish is true)",
    )
    .option('--json', 'print the result as JSON on stdout')
    .option('--any-branch', "replace the team's copy from a branch other than the default one")
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4, 7]))
    .action(async (opts: TeamStoreSyncOptions) => {
      const { runStoreSync } = await import('./index.js');
      setCode(await runStoreSync(context(), opts));
    });
}
