/**
 * "Proceed anyway? (y/N)" on @inquirer/prompts, on injected streams (output is
 * stderr: stdout belongs to the command that runs). Ctrl-C, Ctrl-D and EOF are
 * a cancel (the caller exits 130), never a silent "yes".
 */
import type { Readable, Writable } from 'node:stream';
import { guardedPrompt, PromptCancelled } from '../shared/prompt-guard.js';

export const PROCEED_PROMPT = { message: 'Proceed anyway?', default: false } as const;

export class ConfirmCancelled extends Error {
  constructor() {
    super('cancelled at the prompt');
    this.name = 'ConfirmCancelled';
  }
}

export type ProceedAsker = () => Promise<boolean>;

export function inquirerProceed(
  input: Readable,
  output: Writable & { columns?: number; rows?: number; isTTY?: boolean },
): ProceedAsker {
  return async () => {
    try {
      return await guardedPrompt(input, output, async (context) => {
        const { confirm } = await import('@inquirer/prompts');
        return confirm({ message: PROCEED_PROMPT.message, default: PROCEED_PROMPT.default }, context);
      });
    } catch (e) {
      if (e instanceof PromptCancelled) throw new ConfirmCancelled();
      throw e;
    }
  };
}
