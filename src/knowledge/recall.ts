/**
 * `agentos recall`: what a new session should know, decided here as data and
 * rendered to markdown bounded by `attempts.maxContextSize`, most useful
 * first (the project, what to avoid, what works, recent work, standards).
 */
import { pastCode, pastQuote, quotePast } from '../work-memory/output/sections.js';
import type { AttemptMemory, AttemptQuery, AttemptRecord, AttemptStats } from '../attempt-memory/types.js';
import type { Config } from '../shared/config/schema.js';
import { indexKnowledge, type WideStandard } from './index-knowledge.js';
import { workedOn, type WorkedOnItem } from './worked-on.js';
import { summarizeTechStack, techStack, type TechStack } from './tech-stack.js';
import { compareText } from '../shared/text/compare.js';

export interface AntiPattern {
  command: string;
  tool: string;
  reason: string | null;
  time: string;
  times: number;
  /** `by`: the teammate whose record it is (team store); null for this machine's own. */
  workedInstead: { command: string; time: string; by: string | null } | null;
  /** Who recorded it, when it came from the team store (`alice (acme/web)`); null for this machine's own. */
  by: string | null;
}

export interface SuccessPattern {
  tag: string;
  /** `by`: the teammates (team store) whose records say it worked, when any did; this machine's own are not named. */
  commands: Array<{
    command: string;
    successes: number;
    failures: number;
    confidence: number;
    last: string;
    by: string[];
  }>;
}

export interface Recall {
  stack: TechStack;
  stats: AttemptStats | null;
  antiPatterns: AntiPattern[];
  successPatterns: SuccessPattern[];
  recentWork: WorkedOnItem[];
  standards: WideStandard[];
  /** Why a part is missing (no index, no attempt memory), for the person, not the agent. */
  notes: string[];
}

const RECENT_WORK = 5;
/** Lines of the Avoid list one teammate's records may take. */
export const MAX_PER_TEAMMATE = 3;
const WIDE_STANDARDS = 3;
const FAILURE_WINDOW = 200;
const SUCCESS_WINDOW = 500;

export async function buildRecall(
  root: string,
  config: Config,
  memory: AttemptMemory | null,
  now = new Date(),
): Promise<Recall> {
  const notes: string[] = [];
  const { stack } = techStack(root);
  let antiPatterns: AntiPattern[] = [];
  let successPatterns: SuccessPattern[] = [];
  let stats: AttemptStats | null = null;
  if (memory) {
    const lookback = lookbackDays(config);
    const since = new Date(now.getTime() - lookback * 86_400_000);
    // This machine's own records and the team's copies in windows of their own: a flood of one teammate's records
    // (any writer can share thousands) never pushes one's own out before MAX_PER_TEAMMATE applies.
    const both = (q: AttemptQuery) => [...memory.list({ ...q, whose: 'own' }), ...memory.list({ ...q, whose: 'team' })];
    const failures = both({ outcome: 'failure', since, limit: FAILURE_WINDOW });
    const successes = both({ outcome: 'success', limit: SUCCESS_WINDOW });
    antiPatterns = antiPatternsOf(failures, successes);
    successPatterns = successPatternsOf(successes, both({ outcome: 'failure', limit: SUCCESS_WINDOW }));
    stats = memory.stats();
  } else notes.push('attempt memory unavailable: no failures or successes shown');
  let recentWork: WorkedOnItem[] = [];
  let standards: WideStandard[] = [];
  try {
    const k = await indexKnowledge(root);
    if (k) {
      // One entry per piece of work (issue + design), newest first.
      recentWork = workedOn(k.knowledge, null)
        .topics.flatMap((t) => t.items)
        .sort((a, b) => compareText(b.date ?? '', a.date ?? '') || compareText(a.path, b.path))
        .slice(0, RECENT_WORK);
      standards = k.knowledge.standards.slice(0, WIDE_STANDARDS);
    } else notes.push('no index: run `agentos index --include-history` for recent work and standards');
  } catch (e) {
    notes.push(`index unreadable (${(e as Error).message.split('\n')[0]}): recent work and standards left out`);
  }
  return { stack, stats, antiPatterns, successPatterns, recentWork, standards, notes };
}

function lookbackDays(config: Config): number {
  return config.attempts.failureLookbackDays;
}

/** Commands compared loosely: case and whitespace do not make two commands different. */
const key = (tool: string, command: string) => `${tool}\u0000${command.trim().replace(/\s+/g, ' ').toLowerCase()}`;

/** Recent failures not overridden since, one per command, newest first, with what later worked for the same context or tags. */
export function antiPatternsOf(failures: AttemptRecord[], successes: AttemptRecord[]): AntiPattern[] {
  const byCommand = new Map<string, AntiPattern>();
  const perTeammate = new Map<string, number>();
  const succeeded = new Map<string, string>();
  // Keys computed once, oldest first (a stable sort: ties keep the list's order), so
  // "the first success after this failure" is a scan, not a filter and sort per failure.
  const later = successes
    .map((s) => ({ s, k: key(s.tool, s.command) }))
    .sort((a, b) => compareText(a.s.time, b.s.time));
  // Who it succeeded for: one's own success answers every failure of the command; a teammate's only that teammate's (issue 47).
  const whose = (k: string, origin: string | null | undefined) => `${k}\u0000${origin ?? ''}`;
  for (const { s, k } of later) {
    const w = whose(k, s.origin);
    if (!succeeded.has(w) || s.time > succeeded.get(w)!) succeeded.set(w, s.time);
  }
  for (const f of [...failures].sort((a, b) => compareText(b.time, a.time))) {
    if (f.overriddenBy || f.archived) continue;
    const k = key(f.tool, f.command);
    // The same command succeeded later, for this machine or for whoever hit the failure: no longer an anti-pattern.
    if (
      (succeeded.get(whose(k, null)) ?? '') > f.time ||
      (f.origin && (succeeded.get(whose(k, f.origin)) ?? '') > f.time)
    )
      continue;
    const prev = byCommand.get(k);
    if (prev) {
      prev.times++;
      continue;
    }
    // One teammate's records fill at most a few lines: 20,000 of one person's failures must not be the whole list.
    if (f.origin) {
      const n = perTeammate.get(f.origin) ?? 0;
      if (n >= MAX_PER_TEAMMATE) continue;
      perTeammate.set(f.origin, n + 1);
    }
    const instead = later.find(
      ({ s, k: sk }) =>
        s.time > f.time &&
        sk !== k &&
        ((f.context && s.context === f.context) ||
          s.tags.some((t) => f.tags.includes(t) && t !== f.tool.toLowerCase())),
    )?.s;
    byCommand.set(k, {
      command: f.command,
      tool: f.tool,
      reason:
        f.cause ??
        (f.error
          ? (f.error
              .split('\n')
              .filter((l) => l.trim())
              .slice(-1)[0]
              ?.trim() ?? null)
          : null),
      time: f.time,
      times: 1,
      workedInstead: instead ? { command: instead.command, time: instead.time, by: instead.origin ?? null } : null,
      by: f.origin ?? null,
    });
  }
  return [...byCommand.values()];
}

/** Successful commands grouped by tag; confidence = successes / (successes + failures) of that command. */
export function successPatternsOf(successes: AttemptRecord[], failures: AttemptRecord[]): SuccessPattern[] {
  const failCount = new Map<string, number>();
  for (const f of failures) failCount.set(key(f.tool, f.command), (failCount.get(key(f.tool, f.command)) ?? 0) + 1);
  const perCommand = new Map<
    string,
    { rec: AttemptRecord; successes: number; last: string; tags: Map<string, number>; by: Set<string> }
  >();
  for (const s of successes) {
    const k = key(s.tool, s.command);
    const e = perCommand.get(k) ?? { rec: s, successes: 0, last: s.time, tags: new Map(), by: new Set<string>() };
    e.successes++;
    if (s.origin) e.by.add(s.origin);
    if (s.time > e.last) e.last = s.time;
    for (const t of s.tags) e.tags.set(t, (e.tags.get(t) ?? 0) + 1);
    perCommand.set(k, e);
  }
  const groups = new Map<string, SuccessPattern['commands']>();
  for (const [k, e] of perCommand) {
    // One group per command: its most frequent tag (the alphabetically first on a tie).
    const tag = [...e.tags.entries()].sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))[0]?.[0] ?? 'untagged';
    const failuresOf = failCount.get(k) ?? 0;
    const list = groups.get(tag) ?? [];
    list.push({
      command: e.rec.command,
      successes: e.successes,
      failures: failuresOf,
      confidence: e.successes / (e.successes + failuresOf),
      last: e.last,
      by: [...e.by].sort(compareText),
    });
    groups.set(tag, list);
  }
  const out = [...groups.entries()].map(([tag, commands]) => ({
    tag,
    commands: commands.sort(
      (a, b) => b.confidence - a.confidence || b.successes - a.successes || compareText(b.last, a.last),
    ),
  }));
  const weight = (g: SuccessPattern) => g.commands.reduce((s, c) => s + c.successes, 0);
  return out.sort((a, b) => weight(b) - weight(a) || compareText(a.tag, b.tag));
}

/** Markdown within `max` characters: whole lines, most useful first; a section with no room is left out. */
export function renderRecallMarkdown(r: Recall, max: number): string {
  const out: string[] = [];
  let used = 0;
  const push = (line: string): boolean => {
    if (used + line.length + 1 > max) return false;
    out.push(line);
    used += line.length + 1;
    return true;
  };
  const section = (title: string, lines: string[]) => {
    if (lines.length === 0) return;
    // A heading alone is noise: it needs room for at least its first line.
    if (used + title.length + 1 + lines[0].length + 1 > max) return;
    push(title);
    for (const l of lines) if (!push(l)) break;
  };
  const s = r.stats;
  // Without room for its heading the context would be anonymous text: give none.
  if (
    !push(
      `## Project context (agentos${s ? `: ${s.sessions} previous session${s.sessions === 1 ? '' : 's'}, ${s.successes} successes, ${s.failures} failures recorded` : ''})`,
    )
  )
    return '';
  section(
    '**Project:**',
    summarizeTechStack(r.stack).map((l) => `- ${l}`),
  );
  section(
    '**Avoid (failed recently):**',
    // Recorded text is data, not instructions: one line each, quoted, capped; a teammate's is marked as theirs.
    r.antiPatterns.map(
      (a) =>
        `- ❌ ${pastCode(a.command)} (${quotePast(a.tool, 40)}, ${a.time.slice(0, 10)}${a.times > 1 ? `, ${a.times}×` : ''}${a.by ? `, recorded by ${quotePast(a.by, 120)} in the team store` : ''})${a.reason ? `: ${pastQuote(a.reason, 240)}` : ''}${a.workedInstead ? ` → worked instead: ${pastCode(a.workedInstead.command)}${a.workedInstead.by ? ` (recorded by ${quotePast(a.workedInstead.by, 120)} in the team store)` : ''}` : ''}`,
    ),
  );
  section(
    '**Known to work:**',
    // Who said it worked, when a teammate did: a success from the team store is another person's claim.
    r.successPatterns.flatMap((g) =>
      g.commands.slice(0, 3).map(
        (c) =>
          `- ✅ [${quotePast(g.tag, 40)}] ${pastCode(c.command)} (${c.successes}/${c.successes + c.failures} succeeded${
            c.by.length
              ? `; recorded by ${c.by
                  .slice(0, 2)
                  .map((b) => quotePast(b, 60))
                  .join(', ')}${c.by.length > 2 ? ` and ${c.by.length - 2} more` : ''} in the team store`
              : ''
          })`,
      ),
    ),
  );
  section(
    '**Recent completed work:**',
    // Titles are whoever filed the work's words (a tracker's issue titles too): quoted data, never instructions.
    r.recentWork.map((d) => {
      const when = [d.status, d.date].filter((x): x is string => !!x).map((x) => quotePast(x, 40));
      return `- ${d.id ? `#${quotePast(d.id, 64)} ` : ''}${pastQuote(d.title, 200)}${when.length ? ` (${when.join(', ')})` : ''}`;
    }),
  );
  section(
    '**Standards that apply widely:**',
    r.standards.map((d) => `- ${pastQuote(d.title, 200)} (${pastCode(d.path, 300)})`),
  );
  return out.join('\n');
}

/** The JSON form: everything, unbounded (a machine can choose). */
export function recallJson(r: Recall, markdown: string) {
  return { ...r, markdown };
}
