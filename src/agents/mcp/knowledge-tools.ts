/** `recall` and `worked_on`: what the project learned, from the index and the attempt memory. */
import type { AttemptStats } from '../../attempt-memory/types.js';
import { IndexUnavailableError, UsageError, errorMessage } from '../../shared/errors.js';
import { indexKnowledge } from '../../knowledge/index-knowledge.js';
import { buildRecall, recallJson, renderRecallMarkdown } from '../../knowledge/recall.js';
import { parseSince, renderWorkedOnText, workedOn, type WorkedOn } from '../../knowledge/worked-on.js';
import type { ProjectSession } from './session.js';
import { pastQuote, quotePast } from '../../work-memory/output/sections.js';

export async function recallText(s: ProjectSession) {
  const memory = await s.attempts('read').catch(() => null);
  const r = await buildRecall(s.root, s.config, memory);
  return recallJson(r, renderRecallMarkdown(r, s.config.attempts.maxContextSize));
}

export async function workedOnSummary(
  s: ProjectSession,
  o: { since?: string; topic?: string },
): Promise<WorkedOn & { warnings: string[] }> {
  const since = o.since === undefined ? undefined : parseSince(o.since);
  if (since === null)
    throw new UsageError(
      `since ${JSON.stringify(o.since)}: expected a calendar date (YYYY-MM-DD) or an age up to a century, like 30d, 8w, 6m, 1y`,
    );
  const k = await indexKnowledge(s.root);
  if (!k) throw new IndexUnavailableError('no index here; run `agentos index --include-history`', 'missing');
  const warnings: string[] = [];
  let stats: AttemptStats | null = null;
  try {
    stats = (await s.attempts('read')).stats();
  } catch (e) {
    warnings.push(`attempt memory unavailable (${errorMessage(e)}); no attempt statistics`);
  }
  if (k.knowledge.history.length === 0)
    warnings.push('no completed work in the index: index it with `agentos index --include-history`');
  return { ...workedOn(k.knowledge, stats, { since, topic: o.topic }), warnings };
}

export function renderWorkedOn(w: WorkedOn & { warnings: string[] }): string {
  // Titles and topics are the project's records: one quoted line each (check-brief.ts renderCheck).
  return [
    renderWorkedOnText(w, (x) => pastQuote(x, 200)).trimEnd(),
    ...w.warnings.map((x) => `Warning: ${quotePast(x)}`),
  ].join('\n');
}
