import type { Readable, Writable } from 'node:stream';
import { formatScore } from '../check/classify.js';
import type { HistoryMatch } from '../check/history.js';
import { issueLabel } from '../output/sections.js';
import type { DuplicateAction, DuplicateAsker } from './decide.js';

/** Prompts as data, so tests can check them without a terminal. */
export const ACTION_PROMPT = {
  message: 'This looks like work already done. What now?',
  default: 'l',
  choices: [
    { key: 'a', name: 'Abort: stop here, nothing is written', value: 'abort' },
    { key: 'l', name: 'Link: add the past work to the brief as context, then proceed', value: 'link' },
    { key: 'i', name: 'Ignore: proceed with the brief unchanged', value: 'ignore' },
  ],
} as const;

export class PromptCancelled extends Error {
  constructor() {
    super('cancelled at the prompt');
    this.name = 'PromptCancelled';
  }
}

/** The A/L/I prompt on @inquirer/prompts, on injected streams (stderr for output: stdout carries results). */
export function inquirerAsker(input: Readable, output: Writable): DuplicateAsker {
  const context = { input, output, clearPromptOnDone: false };
  const guard = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof Error && (e.name === 'ExitPromptError' || e.name === 'AbortPromptError')) throw new PromptCancelled();
      throw e;
    }
  };
  return {
    askAction: (_matches) =>
      guard(async () => {
        const { expand } = await import('@inquirer/prompts');
        return (await expand(
          { message: ACTION_PROMPT.message, default: ACTION_PROMPT.default, expanded: true, choices: ACTION_PROMPT.choices.map((c) => ({ ...c })) },
          context,
        )) as DuplicateAction;
      }),
    askWhich: (matches) =>
      guard(async () => {
        const { select } = await import('@inquirer/prompts');
        return select<HistoryMatch>(
          {
            message: 'Link which past work?',
            choices: matches.map((m) => ({ name: `Issue ${issueLabel(m)} (similarity ${formatScore(m.score)})`, value: m })),
          },
          context,
        );
      }),
  };
}
