import { type Command } from 'commander';
import { type CommandDeps, examples, exitCodesHelp, packageVersion } from '../../define.js';

/** `agentos mcp`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(program: Command, { context, setCode }: CommandDeps): void {
  program
    .command('mcp')
    .description(
      "serve this project's memory to a coding agent: a stdio MCP server (tools check_brief, search_history, standards_for, attempt_check, attempt_record, recall, worked_on; docs/mcp.md)",
    )
    .option(
      '--timeout <ms>',
      'longest a tool call may take before the server answers without it',
      (v) => Number(v),
      20_000,
    )
    .addHelpText('after', examples('claude mcp add agentos -- agentos mcp', 'agentos -C ~/src/project mcp'))
    .addHelpText('after', exitCodesHelp([0, 1, 2]))
    .action(async (opts) => {
      const { runMcp } = await import('./index.js');
      setCode(await runMcp(context(), opts, packageVersion()));
    });
}
