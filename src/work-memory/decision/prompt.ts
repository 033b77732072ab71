import type { Readable, Writable } from 'node:stream';
import { scoreText } from '../check/classify.js';
import type { HistoryMatch } from '../check/history.js';
import { issueLabel } from '../output/sections.js';
import { safeForTerminal } from '../../shared/sanitize.js';
import type { DuplicateAction, DuplicateAsker } from './decide.js';
import { guardedPrompt, PromptCancelled, type PromptContext } from '../../shared/prompt-guard.js';

export { keepOpen, PromptCancelled } from '../../shared/prompt-guard.js';

/** Prompts as data, so tests can check them without a terminal. */
export const ACTION_PROMPT = {
  // Enter alone takes the default: say which, so nobody links by accident.
  message: 'This looks like work already done. What now? (Enter: Link)',
  default: 'l',
  choices: [
    { key: 'a', name: 'Abort: stop here, nothing is written', value: 'abort' },
    { key: 'l', name: 'Link: add the past work to the brief as context, then proceed', value: 'link' },
    { key: 'i', name: 'Ignore: proceed with the brief unchanged', value: 'ignore' },
  ],
} as const;

/**
 * Keys typed while "Checking past work…" ran sit in the terminal's input queue;
 * an Enter among them would answer the prompt before it was read. Drain what is
 * already queued, in raw mode, for a moment before the prompt is shown. A Ctrl-C
 * among the discarded keys still cancels. Only on a TTY: piped input is data.
 */
export async function discardTypeAhead(
  input: Readable & { isTTY?: boolean; isRaw?: boolean; setRawMode?: (m: boolean) => unknown },
  ms = 60,
): Promise<void> {
  if (!input.isTTY || typeof input.setRawMode !== 'function') return;
  const wasRaw = Boolean(input.isRaw);
  let interrupted = false;
  const onData = (b: Buffer | string) => {
    if ((typeof b === 'string' ? b : b.toString('latin1')).includes('\x03')) interrupted = true;
  };
  input.setRawMode(true);
  input.on('data', onData);
  input.resume();
  await new Promise((r) => setTimeout(r, ms));
  // On a busy machine the timer can fire before the loop has polled the terminal
  // once: two check-phase turns guarantee a poll phase (which reads what is queued) ran.
  for (let i = 0; i < 2; i++) await new Promise((r) => setImmediate(r));
  input.removeListener('data', onData);
  input.pause();
  input.setRawMode(wasRaw);
  if (interrupted) throw new PromptCancelled();
}

/** The A/L/I prompt on @inquirer/prompts, on injected streams (stderr for output: stdout carries results). */
export function inquirerAsker(input: Readable, output: Writable): DuplicateAsker {
  let typeAheadDiscarded = false; // before the first question only: later keys are answers
  const guard = <T>(fn: (context: PromptContext) => Promise<T>): Promise<T> =>
    guardedPrompt(input, output, async (context) => {
      if (!typeAheadDiscarded) {
        typeAheadDiscarded = true;
        await discardTypeAhead(input);
      }
      return fn(context);
    });
  return {
    askAction: (_matches) =>
      guard(async (context) => {
        const { expand } = await import('@inquirer/prompts');
        return (await expand(
          {
            message: ACTION_PROMPT.message,
            default: ACTION_PROMPT.default,
            expanded: true,
            choices: ACTION_PROMPT.choices.map((c) => ({ ...c })),
          },
          context,
        )) as DuplicateAction;
      }),
    askWhich: (matches) =>
      guard(async (context) => {
        const { select } = await import('@inquirer/prompts');
        return select<HistoryMatch>(
          {
            message: 'Link which past work?',
            choices: matches.map((m) => ({
              name: `Issue ${issueLabel(safeForTerminal(m))} (${scoreText(m)})`,
              value: m,
            })),
          },
          context,
        );
      }),
  };
}
