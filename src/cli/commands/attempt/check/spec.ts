/**
 * `agentos attempt check`'s flags, declared once beside the command: its commander definition and the fast route's
 * parser (cli/fast-path.ts) are both made from this spec. No imports but types: the fast route loads it on every call.
 */
import type { CheckOptions } from './index.js';
import type { HotCommand, OptionKeys } from '../../../flag-spec.js';

export const ATTEMPT_CHECK: HotCommand<OptionKeys<CheckOptions>> = {
  words: ['attempt', 'check'],
  description: 'has this failed recently? (exit 0 either way)',
  flags: [
    {
      flag: '--command',
      value: 'text',
      key: 'command',
      kind: 'string',
      help: 'the command as one string (instead of after --)',
    },
    { flag: '--tool', value: 'name', key: 'tool', kind: 'string', default: 'shell', help: 'the tool' },
    { flag: '--context', value: 'text', key: 'context', kind: 'string', help: 'what the work is for' },
    { flag: '--tags', value: 'list', key: 'tags', kind: 'tags', default: [], help: 'comma-separated tags' },
    { flag: '--json', key: 'json', kind: 'boolean', help: 'print the result as JSON on stdout' },
  ],
};
