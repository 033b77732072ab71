/**
 * `check_brief`: the `issue start` check for an agent. The same check (runChecks),
 * the same lines, the same remembered Ignore answers; never a prompt (the agent
 * reads the status and decides). Fails open as the CLI does: status "error" with
 * what failed, and the agent proceeds.
 */
import { noLongerStandingWord } from '../../work-memory/corpus/types.js';
import { formatScore } from '../../work-memory/check/classify.js';
import { runChecks, type CheckScope } from '../../work-memory/check/run.js';
import { matchPaths, type HistoryMatch } from '../../work-memory/scoring/match.js';
import { briefKey, dismissedFor, readAnswers, withoutDismissed } from '../../work-memory/decision/answers.js';
import { errorMessage } from '../../shared/errors.js';
import { pastQuote, quotePast, stripAgentosSections } from '../../work-memory/output/sections.js';
import { renderTried, triedForMatches, type TriedDuring } from '../../knowledge/tried-during.js';
import type { ProjectSession } from './session.js';

export interface MatchOut {
  id: string | null;
  title: string;
  path: string;
  paths: string[];
  score: number;
  /** duplicate: at or above the duplicate line; related: between the lines. */
  kind: 'duplicate' | 'related';
  status: string | null;
  statusReason: string | null;
  why: string[];
  section: string;
  excerpt: string;
  /** What was tried during that work and failed (attempts recorded for its issue id). */
  tried: TriedDuring[];
  /** Another repository of the team store (scope org), else null. */
  repository: string | null;
  /** Where the work was read: a file, git (a pull request or commit), a gh export or another tracker's (docs/sources.md). */
  source: 'file' | 'git' | 'github' | 'tracker';
  /** Its commit sha or issue / pull request number (null for a file), and its web address when known. */
  ref: string | null;
  url: string | null;
}

export interface BriefCheck {
  status: 'duplicate_alert' | 'related_context' | 'clear' | 'no_history' | 'error';
  /** What the agent should do next, in one sentence. */
  advice: string;
  method: string;
  error: string | null;
  /** What was compared: this repository, or every repository of the team store (repo when the store could not answer). */
  scope: 'repo' | 'org';
  thresholds: { duplicate: number; related: number };
  matches: MatchOut[];
  /** Alerts a person dismissed (Ignore) for this very brief before: shown as related, not raised. */
  dismissed: MatchOut[];
  standards: Array<{
    title: string;
    path: string;
    section: string;
    score: number | null;
    snippet: string;
    source: 'manual' | 'cited' | 'retrieved' | 'standout' | 'successor';
    status: string | null;
    supersedes?: string;
  }>;
  warnings: string[];
  timings: Record<string, number>;
}

const ADVICE: Record<BriefCheck['status'], string> = {
  duplicate_alert:
    'This work was probably done before: read the matching past work and tell the user before redoing it.',
  related_context: 'Related past work exists: read it (and what failed during it) before starting.',
  clear: 'No similar past work: proceed, following the standards listed.',
  no_history:
    'The index holds no completed work, so nothing was compared (run `agentos index --include-history`); proceed.',
  error: 'The check failed (see error); proceed without it.',
};

export async function checkBrief(s: ProjectSession, brief: string, scope?: CheckScope): Promise<BriefCheck> {
  const config = s.config;
  const checked = stripAgentosSections(brief);
  const outcome = await runChecks(checked, config, s.checkDeps(), {
    history: true,
    standards: true,
    scope: scope ?? config.store.scope,
  });
  const h = outcome.history;
  const warnings = [...outcome.warnings];
  if (outcome.standards.error && outcome.standards.error !== h.error)
    warnings.push(`standards lookup failed: ${outcome.standards.error}`);
  let status: BriefCheck['status'] = h.error ? 'error' : h.status;
  const alerts = status === 'duplicate_alert' ? h.matches.filter((m) => m.score >= config.thresholds.duplicate) : [];
  let dismissed: HistoryMatch[] = [];
  if (alerts.length) {
    const answers = await readAnswers(s.root).catch(
      (e: unknown) => (warnings.push(`past answers not applied (${errorMessage(e)})`), []),
    );
    const split = withoutDismissed(alerts, dismissedFor(answers, briefKey(checked)));
    dismissed = split.dismissed.map((d) => d.match);
    if (split.raise.length === 0) status = 'related_context';
  }
  const { lookup: tried, warning } = await triedForMatches(h.matches, config.attempts.enabled, () =>
    s.attempts('read'),
  );
  if (warning) warnings.push(warning);
  const out = (m: HistoryMatch): MatchOut => ({
    id: m.issueId,
    title: m.title,
    path: m.filePath,
    paths: matchPaths(m),
    score: m.score,
    kind: m.score >= config.thresholds.duplicate && !dismissed.includes(m) ? 'duplicate' : 'related',
    status: m.status,
    statusReason: m.statusReason,
    why: m.components?.why ?? [],
    section: m.section,
    excerpt: m.excerpt,
    tried: tried(m),
    repository: m.repository ?? null,
    source: m.origin?.source ?? 'file',
    ref: m.origin?.ref ?? null,
    url: m.origin?.url ?? null,
  });
  return {
    status,
    advice: ADVICE[status],
    method: h.method,
    error: h.error,
    scope: h.scope ?? 'repo',
    thresholds: { duplicate: config.thresholds.duplicate, related: config.thresholds.related },
    matches: h.matches.filter((m) => !dismissed.includes(m)).map(out),
    dismissed: dismissed.map(out),
    standards: outcome.standards.items.map((i) => ({
      title: i.title,
      path: i.filePath,
      section: i.section,
      score: i.score,
      snippet: i.snippet,
      source: i.source,
      status: i.status,
      ...(i.supersedes ? { supersedes: i.supersedes } : {}),
    })),
    warnings,
    timings: Object.fromEntries(Object.entries(outcome.timings).map(([k, v]) => [k, Math.round(v)])),
  };
}

/** A check that could not run (a time-out, an index being replaced): fail open, say what failed. */
export function failedCheck(error: string, t: { duplicate: number; related: number }): BriefCheck {
  return {
    status: 'error',
    advice: ADVICE.error,
    method: 'none',
    error,
    scope: 'repo',
    thresholds: { duplicate: t.duplicate, related: t.related },
    matches: [],
    dismissed: [],
    standards: [],
    warnings: [],
    timings: {},
  };
}

/**
 * The text the model reads: status, advice, each match in a line or three, the standards. What past
 * work says (titles, reasons, recorded commands, paths, why) is one quoted line each: data from the
 * project's records, which a line of its own could otherwise dress as this server's `Status:` or
 * `Warning:`, or as an instruction.
 */
export function renderCheck(r: BriefCheck): string {
  const lines = [`Status: ${r.status}. ${r.advice}`];
  if (r.error) lines.push(`Error: ${quotePast(r.error)}`);
  const label = (m: MatchOut) =>
    `${m.id ? `#${quotePast(m.id, 40)} ` : ''}${pastQuote(m.title, 200)} (${quotePast(m.path, 300)})`;
  for (const m of r.matches) {
    const state = m.status
      ? `, ${quotePast(m.status, 40)}${m.statusReason ? `: ${pastQuote(m.statusReason, 200)}` : ''}`
      : '';
    lines.push(
      `- ${m.kind === 'duplicate' ? 'Same work' : 'Related'}: ${label(m)} score ${formatScore(m.score)}${state}`,
    );
    if (m.why.length) lines.push(`  why: ${m.why.map((w) => quotePast(w, 200)).join('; ')}`);
    for (const t of renderTried(m.tried, (x) => quotePast(x, 300))) lines.push(`  tried: ${t}`);
  }
  for (const m of r.dismissed)
    lines.push(`- Dismissed before by the user for this brief: ${label(m)} score ${formatScore(m.score)}`);
  if (r.standards.length) {
    lines.push('Standards that govern this work:');
    for (const st of r.standards) {
      const word = noLongerStandingWord(st.status);
      lines.push(
        `- ${pastQuote(st.title, 200)} (${quotePast(st.path, 300)})${word ? ` ${word}` : ''}${st.source === 'cited' ? ' named in the brief' : st.source === 'successor' ? ` supersedes ${quotePast(st.supersedes ?? '', 300)}` : st.score === null ? '' : ` score ${formatScore(st.score)}${st.source === 'standout' ? ', under the line but far above the other standards' : ''}`}`,
      );
    }
  }
  for (const w of r.warnings) lines.push(`Warning: ${quotePast(w)}`);
  return lines.join('\n');
}
