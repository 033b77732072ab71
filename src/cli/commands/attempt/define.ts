import { type Command } from 'commander';
import { type CommandDeps } from '../../define.js';
import { define as record } from './record/define.js';
import { define as check } from './check/define.js';
import { define as list } from './list/define.js';

/** `agentos attempt`: the attempt memory by hand; each subcommand's flags, help and run function are in its own folder. */
export function define(program: Command, deps: CommandDeps): void {
  const attempt = program
    .command('attempt')
    .description('the attempt memory: what was tried, what failed, what worked');
  for (const sub of [record, check, list]) sub(attempt, deps);
}
