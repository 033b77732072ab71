/**
 * `agentos run`'s flags, declared once beside the command: its commander definition (define.ts) and the fast
 * route's parser (cli/fast-path.ts) are both made from this spec. No imports but types and the shared option
 * values: the fast route loads it on every call.
 */
import { RUN_ON_REPEAT } from '../../../shared/option-values.js';
import type { RunOptions } from './index.js';
import type { HotCommand, OptionKeys } from '../../flag-spec.js';

export const RUN: HotCommand<OptionKeys<RunOptions>> = {
  words: ['run'],
  description: 'check the attempt memory, run a command with the terminal passed through, record the outcome',
  flags: [
    {
      flag: '--on-repeat',
      value: 'action',
      key: 'onRepeat',
      kind: 'choice',
      choices: RUN_ON_REPEAT,
      default: 'warn',
      help: 'without a terminal, what a repeat of a recent failure does',
    },
    {
      flag: '--context',
      value: 'text',
      key: 'context',
      kind: 'string',
      help: 'what the work is for (recorded, and compared with past attempts)',
    },
    {
      flag: '--tags',
      value: 'list',
      key: 'tags',
      kind: 'tags',
      default: [],
      help: 'comma-separated tags (added to the automatic ones)',
    },
    {
      flag: '--session',
      value: 'id',
      key: 'session',
      kind: 'string',
      help: 'session id to record under (default $AGENTOS_SESSION, else one per process)',
    },
    { flag: '--non-interactive', key: 'nonInteractive', kind: 'boolean', help: 'never prompt; --on-repeat decides' },
  ],
};
