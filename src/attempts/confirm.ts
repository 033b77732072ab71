/**
 * "Proceed anyway? (y/N)" on @inquirer/prompts, on injected streams (output is
 * stderr: stdout belongs to the command that runs). Ctrl-C, Ctrl-D and EOF are
 * a cancel (the caller exits 130), never a silent "yes".
 */
import { Writable, type Readable } from 'node:stream';

export const PROCEED_PROMPT = { message: 'Proceed anyway?', default: false } as const;

export class ConfirmCancelled extends Error {
  constructor() {
    super('cancelled at the prompt');
    this.name = 'ConfirmCancelled';
  }
}

export type ProceedAsker = () => Promise<boolean>;

export function inquirerProceed(input: Readable, output: Writable & { columns?: number; rows?: number; isTTY?: boolean }): ProceedAsker {
  return async () => {
    const controller = new AbortController();
    const cancel = () => controller.abort();
    const onKey = (_s: unknown, key?: { ctrl?: boolean; name?: string }) => {
      if (key?.ctrl && key.name === 'd') cancel();
    };
    input.once('end', cancel);
    input.once('close', cancel);
    input.on('keypress', onKey);
    if (input.readableEnded || input.destroyed) cancel();
    // @inquirer ends the output stream it is given when done: hand it a proxy that never ends ours.
    const proxy = new Writable({
      decodeStrings: false,
      write(chunk, encoding, cb) {
        output.write(chunk, encoding);
        cb();
      },
    });
    for (const key of ['columns', 'rows', 'isTTY'] as const) Object.defineProperty(proxy, key, { get: () => output[key] });
    try {
      const { confirm } = await import('@inquirer/prompts');
      return await confirm({ message: PROCEED_PROMPT.message, default: PROCEED_PROMPT.default }, { input, output: proxy, clearPromptOnDone: false, signal: controller.signal });
    } catch (e) {
      if (e instanceof Error && (e.name === 'ExitPromptError' || e.name === 'AbortPromptError')) throw new ConfirmCancelled();
      throw e;
    } finally {
      input.removeListener('end', cancel);
      input.removeListener('close', cancel);
      input.removeListener('keypress', onKey);
    }
  };
}
