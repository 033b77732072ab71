import { realpathSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { GlobalOptions } from '../../globals.js';
import type { AttemptStats } from '../../../attempt-memory/types.js';
import { loadConfig } from '../../../shared/config/load.js';
import { ExitCode, IndexUnavailableError, UsageError } from '../../../shared/errors.js';
import { openAttemptStore } from '../../../agents/hooks/attempt-store.js';
import type { IO } from '../../../shared/io.js';
import { renderWorkedOnHtml } from '../../../knowledge/html.js';
import { indexKnowledge } from '../../../knowledge/index-knowledge.js';
import { parseSince, renderWorkedOnText, workedOn } from '../../../knowledge/worked-on.js';
import { findProjectRoot } from '../../../shared/project.js';
import type { OpenMemory } from '../recall/index.js';

export interface WorkedOnOptions {
  since?: string;
  topic?: string;
  json?: boolean;
  html?: string;
}

export async function runWorkedOn(io: IO, globals: GlobalOptions, opts: WorkedOnOptions, openMemory: OpenMemory = openAttemptStore): Promise<number> {
  const since = opts.since === undefined ? undefined : parseSince(opts.since);
  if (since === null) throw new UsageError(`--since ${opts.since}: expected a date (YYYY-MM-DD) or an age like 30d, 8w, 6m, 1y`);
  const root = findProjectRoot(io.cwd, globals.cwd);
  const { config } = await loadConfig(root);
  const k = await indexKnowledge(root);
  if (!k) throw new IndexUnavailableError(`no index in ${path.join(root, '.agentos', 'index')}; run \`agentos index --include-history\``, 'missing');
  let stats: AttemptStats | null = null;
  try {
    const memory = await openMemory(root, config, undefined, 'read');
    try {
      stats = memory.stats();
    } finally {
      memory.close();
    }
  } catch (e) {
    io.stderr.write(`warning: attempt memory unavailable (${(e as Error).message.split('\n')[0]}); no attempt statistics\n`);
  }
  const w = workedOn(k.knowledge, stats, { since, topic: opts.topic });
  if (k.knowledge.history.length === 0) io.stderr.write('No completed work in the index: index it with `agentos index --include-history`.\n');
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
  if (opts.json) io.stdout.write(JSON.stringify({ ...w, clusterThreshold: k.knowledge.clusterThreshold }, null, 2) + '\n');
  else if (!opts.html) io.stdout.write(renderWorkedOnText(w));
  return ExitCode.Ok;
}
