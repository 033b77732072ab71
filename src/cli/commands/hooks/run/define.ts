import { type Command } from 'commander';
import type { HookRunOptions } from '../../../../agents/hooks/run.js';
import { type CommandDeps, addFlags } from '../../../define.js';
import { HOOKS_RUN } from './spec.js';

/**
 * `agentos hooks run <event>`: its flags (spec.ts, which the fast route reads too). The run function is the agents'
 * own (agents/hooks/run.ts): an agent's payload is read there, whichever route parsed the line.
 */
export function define(hooks: Command, { setCode, io }: CommandDeps): void {
  addFlags(
    hooks
      .command('run')
      .description(HOOKS_RUN.description)
      .argument('<event>', 'session-start | pre-tool-use | post-tool-use | post-tool-use-failure'),
    HOOKS_RUN,
  ).action(async (event: string, opts: HookRunOptions) => {
    const { runHook } = await import('../../../../agents/hooks/run.js');
    setCode(await runHook(event, io, opts));
  });
}
