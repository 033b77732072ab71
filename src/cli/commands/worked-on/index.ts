import { realpathSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CommandContext } from '../../context.js';
import type { AttemptStats } from '../../../attempt-memory/types.js';
import { ExitCode, IndexUnavailableError, UsageError } from '../../../shared/errors.js';
import { renderWorkedOnHtml } from '../../../knowledge/html.js';
import { indexKnowledge } from '../../../knowledge/index-knowledge.js';
import { parseSince, renderWorkedOnText, workedOn } from '../../../knowledge/worked-on.js';

export interface WorkedOnOptions {
  since?: string;
  topic?: string;
  json?: boolean;
  html?: string;
}

export async function runWorkedOn(ctx: CommandContext, opts: WorkedOnOptions): Promise<number> {
  const { io } = ctx;
  const since = opts.since === undefined ? undefined : parseSince(opts.since);
  if (since === null)
    throw new UsageError(
      `--since ${opts.since}: expected a calendar date (YYYY-MM-DD) or an age up to a century, like 30d, 8w, 6m, 1y`,
    );
  const root = ctx.root();
  await ctx.config(); // an invalid config is an error here, as in every command
  const k = await indexKnowledge(root);
  if (!k)
    throw new IndexUnavailableError(
      `no index in ${path.join(root, '.agentos', 'index')}; run \`agentos index --include-history\``,
      'missing',
    );
  let stats: AttemptStats | null = null;
  try {
    const memory = await ctx.attempts('read');
    try {
      stats = memory.stats();
    } finally {
      memory.close();
    }
  } catch (e) {
    io.stderr.write(
      `warning: attempt memory unavailable (${(e as Error).message.split('\n')[0]}); no attempt statistics\n`,
    );
  }
  const w = workedOn(k.knowledge, stats, { since, topic: opts.topic });
  if (k.knowledge.history.length === 0)
    io.stderr.write('No completed work in the index: index it with `agentos index --include-history`.\n');
  if (opts.html) {
    const out = path.resolve(io.cwd, opts.html);
    let dir: string;
    try {
      dir = realpathSync(path.dirname(out));
    } catch {
      throw new UsageError(`--html ${opts.html}: folder ${path.dirname(out)} does not exist`);
    }
    const file = path.join(dir, path.basename(out));
    const tmp = `${file}.agentos-${process.pid}.tmp`;
    await writeFile(tmp, renderWorkedOnHtml(w, path.basename(root)));
    await rename(tmp, file);
    io.stderr.write(`wrote ${file} (${w.topics.length} topics, ${w.totalItems} items)\n`);
  }
  if (opts.json)
    io.stdout.write(JSON.stringify({ ...w, clusterThreshold: k.knowledge.clusterThreshold }, null, 2) + '\n');
  else if (!opts.html) io.stdout.write(renderWorkedOnText(w));
  return ExitCode.Ok;
}
