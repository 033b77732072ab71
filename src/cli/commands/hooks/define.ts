import { type Command, Option } from 'commander';
import { HOOK_ON_REPEAT } from '../../../shared/option-values.js';
import { HOOKS_RUN } from '../../hot-specs.js';
import { type CommandDeps, exitCodesHelp, addFlags } from '../../define.js';

/** `agentos hooks`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(program: Command, { context, setCode, io }: CommandDeps): void {
  const hooks = program
    .command('hooks')
    .description(
      'wire agentos into coding agents (claude, codex, gemini, cursor): session context, repeat warnings, attempt recording',
    );
  const scope = (c: Command) =>
    c
      .option(
        '--project',
        "the project's settings file (default): .claude/settings.json, .codex/hooks.json, .gemini/settings.json, .cursor/hooks.json",
      )
      .option('--local', '.claude/settings.local.json of the project (not committed; Claude Code only)')
      .option('--user', 'the same file under your home folder (~/.claude/settings.json, …)')
      .option('--dry-run', 'print the change as a diff; write nothing');
  scope(
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
    .action(async (agent: string, opts) => {
      const { runHooksInstall } = await import('./index.js');
      setCode(await runHooksInstall(context(), agent, opts));
    });
  scope(
    hooks
      .command('uninstall')
      .description('remove exactly the hook entries agentos added')
      .argument('[agent]', 'agent to unwire', 'claude'),
  )
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (agent: string, opts) => {
      const { runHooksUninstall } = await import('./index.js');
      setCode(await runHooksUninstall(context(), agent, opts));
    });
  addFlags(
    hooks
      .command('run')
      .description(HOOKS_RUN.description)
      .argument('<event>', 'session-start | pre-tool-use | post-tool-use | post-tool-use-failure'),
    HOOKS_RUN,
  ).action(async (event: string, opts) => {
    const { runHook } = await import('../../../agents/hooks/run.js');
    setCode(await runHook(event, io, opts));
  });
}
