import { type Command } from 'commander';
import { type CommandDeps } from '../../define.js';
import { define as init } from './init/define.js';
import { define as sync } from './sync/define.js';
import { define as remove } from './remove/define.js';
import { define as status } from './status/define.js';

/** `agentos store`: the team store; each subcommand's flags, help and run function are in its own folder. */
export function define(program: Command, deps: CommandDeps): void {
  const store = program
    .command('store')
    .description(
      'the team store (PostgreSQL + pgvector; AGENTOS_DATABASE_URL or store.url): create its schema, see what it holds',
    );
  for (const sub of [init, sync, remove, status]) sub(store, deps);
}
