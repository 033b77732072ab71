/**
 * `agentos hooks run`'s flags, declared once beside the command: its commander definition and the fast route's
 * parser (cli/fast-path.ts) are both made from this spec. No imports but types and the shared option values: the
 * fast route loads it on every call.
 */
import { HOOK_FORMATS, HOOK_ON_REPEAT } from '../../../../shared/option-values.js';
import type { HookRunOptions } from '../../../../agents/hooks/run.js';
import type { HotCommand, OptionKeys } from '../../../flag-spec.js';

export const HOOKS_RUN: HotCommand<OptionKeys<HookRunOptions>> = {
  words: ['hooks', 'run'],
  description: 'hook entry point: reads the event payload on stdin (always exits 0; errors fail open)',
  flags: [
    {
      flag: '--format',
      value: 'format',
      key: 'format',
      kind: 'choice',
      choices: HOOK_FORMATS,
      default: 'claude',
      help: 'the agent whose payloads and answers these are (install sets it)',
    },
    {
      flag: '--on-repeat',
      value: 'mode',
      key: 'onRepeat',
      kind: 'choice',
      choices: HOOK_ON_REPEAT,
      default: 'warn',
      help: 'pre-tool-use: warn, or ask for confirmation',
    },
  ],
};
