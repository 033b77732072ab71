import { type Command } from 'commander';
import { type CommandDeps } from '../../define.js';
import { define as install } from './install/define.js';
import { define as uninstall } from './uninstall/define.js';
import { define as run } from './run/define.js';

/** `agentos hooks`: coding agents wired in; each subcommand's flags, help and run function are in its own folder. */
export function define(program: Command, deps: CommandDeps): void {
  const hooks = program
    .command('hooks')
    .description(
      'wire agentos into coding agents (claude, codex, gemini, cursor): session context, repeat warnings, attempt recording',
    );
  for (const sub of [install, uninstall, run]) sub(hooks, deps);
}
