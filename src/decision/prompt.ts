import { Writable, type Readable } from 'node:stream';
import { formatScore } from '../check/classify.js';
import type { HistoryMatch } from '../check/history.js';
import { issueLabel } from '../output/sections.js';
import { safeForTerminal } from '../output/sanitize.js';
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

/**
 * @inquirer pipes its output into the given stream and ends it when the prompt is
 * done (process.stderr alone is spared), so io.stderr would refuse every later write
 * and a second prompt. It gets a proxy that forwards writes but never ends `output`.
 */
export function keepOpen(output: Writable & { columns?: number; rows?: number; isTTY?: boolean }): Writable {
  const proxy = new Writable({
    decodeStrings: false,
    write(chunk, encoding, cb) {
      output.write(chunk, encoding);
      cb();
    },
  });
  for (const key of ['columns', 'rows', 'isTTY'] as const) Object.defineProperty(proxy, key, { get: () => output[key] });
  return proxy;
}

/** The A/L/I prompt on @inquirer/prompts, on injected streams (stderr for output: stdout carries results). */
export function inquirerAsker(input: Readable, output: Writable): DuplicateAsker {
  type Context = { input: Readable; output: Writable; clearPromptOnDone: boolean; signal: AbortSignal };
  const guard = async <T>(fn: (context: Context) => Promise<T>): Promise<T> => {
    // @inquirer leaves a prompt pending forever when its input ends (EOF, or Ctrl-D on an
    // empty line, which closes readline): the process would then exit 0 with nothing
    // written. Both are a cancel, like Ctrl-C.
    const controller = new AbortController();
    const cancel = () => controller.abort();
    const onKey = (_s: unknown, key?: { ctrl?: boolean; name?: string }) => {
      if (key?.ctrl && key.name === 'd') cancel();
    };
    input.once('end', cancel);
    input.once('close', cancel);
    input.on('keypress', onKey);
    if (input.readableEnded || input.destroyed) cancel();
    try {
      return await fn({ input, output: keepOpen(output), clearPromptOnDone: false, signal: controller.signal });
    } catch (e) {
      if (e instanceof Error && (e.name === 'ExitPromptError' || e.name === 'AbortPromptError')) throw new PromptCancelled();
      throw e;
    } finally {
      input.removeListener('end', cancel);
      input.removeListener('close', cancel);
      input.removeListener('keypress', onKey);
    }
  };
  return {
    askAction: (_matches) =>
      guard(async (context) => {
        const { expand } = await import('@inquirer/prompts');
        return (await expand(
          { message: ACTION_PROMPT.message, default: ACTION_PROMPT.default, expanded: true, choices: ACTION_PROMPT.choices.map((c) => ({ ...c })) },
          context,
        )) as DuplicateAction;
      }),
    askWhich: (matches) =>
      guard(async (context) => {
        const { select } = await import('@inquirer/prompts');
        return select<HistoryMatch>(
          {
            message: 'Link which past work?',
            choices: matches.map((m) => ({ name: `Issue ${issueLabel(safeForTerminal(m))} (similarity ${formatScore(m.score)})`, value: m })),
          },
          context,
        );
      }),
  };
}
