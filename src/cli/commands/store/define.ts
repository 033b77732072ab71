import { type Command } from 'commander';
import { type CommandDeps, examples, exitCodesHelp } from '../../define.js';

/** `agentos store`: its flags, help and exit codes; the run function is loaded only when it runs. */
export function define(program: Command, { context, setCode }: CommandDeps): void {
  const store = program
    .command('store')
    .description(
      'the team store (PostgreSQL + pgvector; AGENTOS_DATABASE_URL or store.url): create its schema, see what it holds',
    );
  store
    .command('init')
    .description("create or migrate the store's schema (idempotent, versioned; safe when several run at once)")
    .option('--json', 'print the result as JSON on stdout')
    .addHelpText('after', examples('AGENTOS_DATABASE_URL=postgres://agentos@db.internal/agentos agentos store init'))
    .addHelpText('after', exitCodesHelp([0, 1, 2, 7]))
    .action(async (opts) => {
      const { runStoreInit } = await import('./index.js');
      setCode(await runStoreInit(context(), opts));
    });
  store
    .command('sync')
    .description(
      "push this repository's live index into the team store: only what changed, in one transaction (index does it after a build when store.publish is true)",
    )
    .option('--json', 'print the result as JSON on stdout')
    .option('--any-branch', "replace the team's copy from a branch other than the default one")
    .addHelpText('after', exitCodesHelp([0, 1, 2, 4, 7]))
    .action(async (opts) => {
      const { runStoreSync } = await import('./sync.js');
      setCode(await runStoreSync(context(), opts));
    });
  store
    .command('remove <name>')
    .description(
      'take a repository out of the team store (its owners or an administrator only; the name, typed out, is the confirmation)',
    )
    .option('--json', 'print the result as JSON on stdout')
    .addHelpText('after', examples('agentos store remove github.com/acme/old-prototype'))
    .addHelpText('after', exitCodesHelp([0, 1, 2, 7]))
    .action(async (name: string, opts) => {
      const { runStoreRemove } = await import('./index.js');
      setCode(await runStoreRemove(context(), name, opts));
    });
  store
    .command('status')
    .description(
      'which server answered (URL with its password masked), the schema version, the repositories and their documents',
    )
    .option('--json', 'print as JSON on stdout')
    .addHelpText('after', exitCodesHelp([0, 1, 2, 7]))
    .action(async (opts) => {
      const { runStoreStatus } = await import('./index.js');
      setCode(await runStoreStatus(context(), opts));
    });
}
