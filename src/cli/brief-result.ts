/**
 * A brief's check as a machine reads it (`issue start --json` / `--format`, `ci github`): the
 * result once the decision is made, written as JSON, a markdown comment or GitHub annotations.
 */
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import {
  githubFileLink,
  renderCommentMarkdown,
  renderGithub,
  type CiOptions,
  type CiReport,
} from '../work-memory/output/ci.js';
import { writeWorkflowCommand } from '../shared/actions-log.js';
import type { CommandContext } from './context.js';
import type { Config } from '../shared/config/schema.js';
import type { HistoryMatch } from '../work-memory/check/history.js';
import { matchPaths } from '../work-memory/scoring/match.js';
import type { Decision } from '../work-memory/decision/decide.js';
import { coverageJson } from '../work-memory/index/refresh.js';
import { originJson } from '../work-memory/output/origin.js';
import type { ChangedSince } from '../work-memory/sources/since.js';
import type { BriefCheck } from './brief-check.js';

/** The result as `--json` (and `--format`, and `ci github`) gives it, once the decision is made. */
export function checkResult(c: BriefCheck, decision: Decision) {
  const { outcome, since, tried, alerts, regressions } = c;
  return {
    status: outcome.history.status,
    decision: decision.action,
    decidedBy: decision.by,
    method: outcome.history.method,
    error: outcome.history.error,
    scope: outcome.history.scope ?? 'repo',
    org: outcome.history.org ?? null,
    // alert: raised as the same work (not dismissed before, not a possible regression): what the prompt, a comment or an annotation alerts on.
    matches: outcome.history.matches.map((m) => ({
      ...jsonMatch(m, since),
      alert: alerts.includes(m),
      possibleRegression: regressions.includes(m),
      tried: tried(m),
    })),
    nearest: outcome.history.nearest.map((m) => jsonMatch(m, since)),
    linked: decision.linked ? { ...jsonMatch(decision.linked, since), tried: tried(decision.linked) } : null,
    dismissed: c.dismissed.map((d) => ({ ...jsonMatch(d.match, since), dismissedAt: d.answer.at })),
    standards: { method: outcome.standards.method, error: outcome.standards.error, items: c.standards },
    // key: the brief as answers know it (text as checked: newlines normalised, agentos' sections out), for Ignore and calibrate.
    brief: { path: c.brief.absPath, sha256: c.brief.hash, key: c.briefSha256 },
    output: null as string | null,
    warnings: outcome.warnings,
    timings: Object.fromEntries(Object.entries(outcome.timings).map(([k, v]) => [k, Math.round(v)])),
    coverage: coverageJson(c.index),
    noHistory: c.noHistory,
  };
}

/**
 * The result for a machine. github: the annotations on stdout (the runner reads workflow commands
 * there), the summary appended to $GITHUB_STEP_SUMMARY when the runner gives one, else on stdout.
 */
export async function writeResult(
  io: CommandContext['io'],
  format: 'json' | 'markdown' | 'github',
  result: CiReport,
  o: CiOptions,
): Promise<void> {
  if (format === 'json') return void io.stdout.write(JSON.stringify(result, null, 2) + '\n');
  if (format === 'markdown') return void io.stdout.write(renderCommentMarkdown(result, o));
  const { annotations, summary } = renderGithub(result, o);
  for (const line of annotations) writeWorkflowCommand(io.stdout, line);
  const file = io.env.GITHUB_STEP_SUMMARY;
  if (file) await appendFile(file, summary + '\n');
  else io.stdout.write(summary);
}

/** Links to this repository's files where the run knows where it is browsed (a GitHub Actions run: server, repository, commit). */
export function ciOptions(io: CommandContext['io'], root: string, briefPath: string | null, config: Config): CiOptions {
  const rel = briefPath ? path.relative(root, briefPath).split(path.sep).join('/') : null;
  return {
    duplicate: config.thresholds.duplicate,
    fileLink: githubFileLink(io.env),
    briefFile: rel && !rel.startsWith('..') ? rel : (briefPath ?? undefined),
  };
}

function jsonMatch(m: HistoryMatch, since?: Map<string, ChangedSince>) {
  return {
    id: m.issueId,
    title: m.title,
    path: m.filePath,
    score: m.score, // full precision: a rounded 0.85 must not sit beside status "related_context"
    status: m.status,
    statusReason: m.statusReason,
    summary: m.summary,
    section: m.section,
    excerpt: m.excerpt,
    paths: matchPaths(m),
    repository: m.repository ?? null,
    ...originJson(m.origin),
    changedSince: since?.get(m.filePath) ?? null,
    briefExcerpt: m.briefExcerpt ?? null,
    components: m.components ?? null,
  };
}
