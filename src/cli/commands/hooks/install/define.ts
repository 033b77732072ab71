import { type Command, Option } from 'commander';
import { HOOK_ON_REPEAT } from '../../../../shared/option-values.js';
import { type CommandDeps, exitCodesHelp } from '../../../define.js';
import { settingsScope } from '../scope-flags.js';
import type { HooksInstallOptions } from './index.js';

/** `agentos hooks install [agent]`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(hooks: Command, { context, setCode }: CommandDeps): void {
  settingsScope(
    hooks
      .command('install')
      .description("merge agentos hook entries into the agent's settings (idempotent, never clobbers)")
      .argument(
        '[agent]',
        'agent to wire: claude, codex, gemini or cursor (others: the MCP server, `agentos mcp`)',
        'claude',
      ),
  )
    .addOption(
      new Option(
        '--on-repeat <mode>',
        'a known failure before a shell call: warn the agent, or ask the person to confirm',
      )
        .choices(HOOK_ON_REPEAT)
        .default('warn'),
    )
    .option('--command <prefix>', 'how settings call agentos (default: `agentos` if on PATH, else node + this bin)')
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (agent: string, opts: HooksInstallOptions) => {
      const { runHooksInstall } = await import('./index.js');
      setCode(await runHooksInstall(context(), agent, opts));
    });
}
