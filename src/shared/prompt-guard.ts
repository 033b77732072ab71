/**
 * What every @inquirer prompt of agentos needs around it (the A/L/I prompt and
 * run's "Proceed anyway?"): kept small and free of heavy imports, since `run`
 * loads it on its way to the command.
 */
import { Writable, type Readable } from 'node:stream';
import { textWidth } from './io.js';

export class PromptCancelled extends Error {
  constructor() {
    super('cancelled at the prompt');
    this.name = 'PromptCancelled';
  }
}

export type PromptContext = { input: Readable; output: Writable; clearPromptOnDone: boolean; signal: AbortSignal };

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
  for (const key of ['rows', 'isTTY'] as const) Object.defineProperty(proxy, key, { get: () => output[key] });
  // A terminal reporting 0 columns must not reach a library that divides by it.
  Object.defineProperty(proxy, 'columns', { get: () => textWidth(output) });
  return proxy;
}

/**
 * Run one prompt with `fn`. @inquirer leaves a prompt pending forever when its
 * input ends (EOF, or Ctrl-D on an empty line, which closes readline): the
 * process would then exit 0 with nothing written. Both are a cancel, like
 * Ctrl-C, and every cancel surfaces as PromptCancelled.
 */
export async function guardedPrompt<T>(
  input: Readable,
  output: Writable,
  fn: (context: PromptContext) => Promise<T>,
): Promise<T> {
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
    if (e instanceof Error && (e.name === 'ExitPromptError' || e.name === 'AbortPromptError'))
      throw new PromptCancelled();
    throw e;
  } finally {
    input.removeListener('end', cancel);
    input.removeListener('close', cancel);
    input.removeListener('keypress', onKey);
  }
}
