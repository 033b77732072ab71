import { type Command } from 'commander';
import { type CommandDeps, examples, exitCodesHelp } from '../../../define.js';
import type { TeamStoreInitOptions } from './index.js';

/** `agentos store init`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(store: Command, { context, setCode }: CommandDeps): void {
  store
    .command('init')
    .description("create or migrate the store's schema (idempotent, versioned; safe when several run at once)")
    .option('--json', 'print the result as JSON on stdout')
    .addHelpText('after', examples('AGENTOS_DATABASE_URL=postgres://agentos@db.internal/agentos agentos store init'))
    .addHelpText('after', exitCodesHelp([0, 1, 2, 7]))
    .action(async (opts: TeamStoreInitOptions) => {
      const { runStoreInit } = await import('./index.js');
      setCode(await runStoreInit(context(), opts));
    });
}
