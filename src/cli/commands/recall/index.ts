import type { CommandContext } from '../../context.js';
import type { AttemptMemory } from '../../../attempt-memory/types.js';
import { ExitCode } from '../../../shared/errors.js';
import { buildRecall, recallJson, renderRecallMarkdown } from '../../../knowledge/recall.js';

export interface RecallOptions {
  format: 'markdown' | 'json' | 'claude';
}

/** The context a new session starts with. The attempt memory failing leaves it out, with a note on stderr. */
export async function runRecall(ctx: CommandContext, opts: RecallOptions): Promise<number> {
  const { io, globals } = ctx;
  const root = ctx.root();
  const { config } = await ctx.config();
  let memory: AttemptMemory | null = null;
  try {
    memory = await ctx.attempts('read');
  } catch (e) {
    io.stderr.write(
      `warning: attempt memory unavailable (${(e as Error).message.split('\n')[0]}); recall without it\n`,
    );
  }
  try {
    const r = await buildRecall(root, config, memory);
    if (!globals.quiet) for (const n of r.notes) io.stderr.write(`note: ${n}\n`);
    const markdown = renderRecallMarkdown(r, config.attempts.maxContextSize);
    if (opts.format === 'json') io.stdout.write(JSON.stringify(recallJson(r, markdown), null, 2) + '\n');
    else if (opts.format === 'claude')
      io.stdout.write(
        JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: markdown } }) + '\n',
      );
    else io.stdout.write(markdown + '\n');
    return ExitCode.Ok;
  } finally {
    memory?.close();
  }
}
