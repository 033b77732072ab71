import type { GlobalOptions } from '../../globals.js';
import type { AttemptMemory } from '../../../attempt-memory/types.js';
import { loadConfig } from '../../../shared/config/load.js';
import type { Config } from '../../../shared/config/schema.js';
import { ExitCode } from '../../../shared/errors.js';
import { openAttemptStore } from '../../../agents/hooks/attempt-store.js';
import { attemptSettings } from '../../../agents/hooks/run.js';
import type { IO } from '../../../shared/io.js';
import { buildRecall, recallJson, renderRecallMarkdown } from '../../../knowledge/recall.js';
import { findProjectRoot } from '../../../shared/project.js';

export interface RecallOptions {
  format: 'markdown' | 'json' | 'claude';
}

export type OpenMemory = (root: string, config: Config, cwd?: string, purpose?: 'read' | 'write') => Promise<AttemptMemory>;

/** The context a new session starts with. The attempt memory failing leaves it out, with a note on stderr. */
export async function runRecall(io: IO, globals: GlobalOptions, opts: RecallOptions, openMemory: OpenMemory = openAttemptStore): Promise<number> {
  const root = findProjectRoot(io.cwd, globals.cwd);
  const { config } = await loadConfig(root);
  let memory: AttemptMemory | null = null;
  try {
    memory = await openMemory(root, config, undefined, 'read');
  } catch (e) {
    io.stderr.write(`warning: attempt memory unavailable (${(e as Error).message.split('\n')[0]}); recall without it\n`);
  }
  try {
    const r = await buildRecall(root, config, memory);
    if (!globals.quiet) for (const n of r.notes) io.stderr.write(`note: ${n}\n`);
    const markdown = renderRecallMarkdown(r, attemptSettings(config).maxContextSize);
    if (opts.format === 'json') io.stdout.write(JSON.stringify(recallJson(r, markdown), null, 2) + '\n');
    else if (opts.format === 'claude') io.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: markdown } }) + '\n');
    else io.stdout.write(markdown + '\n');
    return ExitCode.Ok;
  } finally {
    memory?.close();
  }
}
