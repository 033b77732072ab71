import { type Command } from 'commander';
import { type CommandDeps, exitCodesHelp } from '../../../define.js';
import { settingsScope } from '../scope-flags.js';
import type { SettingsScope } from '../settings.js';

/** `agentos hooks uninstall [agent]`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(hooks: Command, { context, setCode }: CommandDeps): void {
  settingsScope(
    hooks
      .command('uninstall')
      .description('remove exactly the hook entries agentos added')
      .argument('[agent]', 'agent to unwire', 'claude'),
  )
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (agent: string, opts: SettingsScope) => {
      const { runHooksUninstall } = await import('./index.js');
      setCode(await runHooksUninstall(context(), agent, opts));
    });
}
