import type { Readable, Writable } from 'node:stream';
import { keepOpen, PromptCancelled } from '../../../work-memory/decision/prompt.js';
import type { FoundFolder } from './detect.js';

/** The two init questions, as data (tests read them; the asker renders them). */
export const INIT_PROMPTS = {
  history: 'Which folders hold completed work (history: finished issues, closed briefs)?',
  standards: 'Which folders hold standing decisions (standards: ADRs, RFCs, conventions)?',
} as const;

export interface InitChoice {
  standards: string[];
  history: string[];
}

export type InitAsker = (found: FoundFolder[]) => Promise<InitChoice>;

const label = (f: FoundFolder) => `${f.folder}  (${f.files} file${f.files === 1 ? '' : 's'}: ${f.why})`;

/** Two checkbox prompts on injected streams, pre-ticked with what detection proposes. */
export function inquirerInitAsker(input: Readable, output: Writable): InitAsker {
  return async (found) => {
    const { checkbox } = await import('@inquirer/prompts');
    const controller = new AbortController();
    const cancel = () => controller.abort();
    input.once('end', cancel);
    // Each prompt ends its output when done: each gets its own proxy of `output`.
    const context = () => ({ input, output: keepOpen(output), clearPromptOnDone: false, signal: controller.signal });
    const ask = (message: string, type: 'history' | 'standard') =>
      checkbox<string>(
        { message, choices: found.map((f) => ({ name: label(f), value: f.folder, checked: f.types.includes(type) })) },
        context(),
      );
    try {
      const history = await ask(INIT_PROMPTS.history, 'history');
      const standards = await ask(INIT_PROMPTS.standards, 'standard');
      return { history, standards };
    } catch (e) {
      if (e instanceof Error && (e.name === 'ExitPromptError' || e.name === 'AbortPromptError'))
        throw new PromptCancelled();
      throw e;
    } finally {
      input.removeListener('end', cancel);
    }
  };
}
