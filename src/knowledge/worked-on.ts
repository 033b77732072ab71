/**
 * "What have we worked on?": completed work from the index grouped by topic
 * (clusters of the history vectors, src/knowledge/cluster.ts) and by time, with
 * rejected/superseded decisions marked, plus attempt statistics.
 */
import { isCalendarDate } from '../shared/text/calendar.js';
import type { AttemptStats } from '../attempt-memory/types.js';
import type { IndexKnowledge, KnownDoc } from './index-knowledge.js';
import { compareText } from '../shared/text/compare.js';

export interface WorkedOnItem {
  id: string | null;
  title: string;
  status: string | null;
  statusReason: string | null;
  date: string | null;
  path: string;
  /** Rejected or superseded: a decision not to repeat, shown as such. */
  marked: boolean;
}

export interface WorkedOnTopic {
  label: string;
  count: number;
  from: string | null;
  to: string | null;
  items: WorkedOnItem[];
}

export interface WorkedOn {
  totalItems: number;
  topics: WorkedOnTopic[];
  byMonth: Array<{ month: string; count: number }>;
  attempts: AttemptStats | null;
  filters: { since: string | null; topic: string | null };
}

const item = (d: KnownDoc): WorkedOnItem => ({
  id: d.id,
  title: d.title,
  status: d.status,
  statusReason: d.statusReason,
  date: d.date,
  path: d.path,
  marked: d.status === 'rejected' || d.status === 'superseded',
});

/**
 * An issue and its design are one piece of work: documents sharing an issue id
 * become one item, titled by the issue, dated by the best-dated document, placed
 * in the topic of the issue document.
 */
export function workedOn(
  k: IndexKnowledge,
  attempts: AttemptStats | null,
  filters: { since?: string; topic?: string } = {},
): WorkedOn {
  const since = filters.since ?? null;
  const needle = filters.topic?.toLowerCase() ?? null;
  const topicOf = new Map<number, number>();
  k.topics.forEach((t, ti) => t.items.forEach((i) => topicOf.set(i, ti)));
  const groups = new Map<string, number[]>();
  k.history.forEach((d, i) => {
    if (d.status === 'open' || d.status === 'proposed') return;
    const key = d.id ? `#${d.id}` : d.path;
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  const perTopic = new Map<number, WorkedOnItem[]>();
  for (const members of groups.values()) {
    const docs = members.map((i) => k.history[i]);
    const primaryIdx =
      members[
        Math.max(
          0,
          docs.findIndex((d) => d.documentType === 'issue'),
        )
      ];
    const primary = k.history[primaryIdx];
    const rank = (d: KnownDoc) =>
      d.dateSource === 'frontmatter' || d.dateSource === 'source'
        ? 3
        : d.dateSource === 'text'
          ? 2
          : d.dateSource === 'mtime'
            ? 1
            : 0;
    const dated = [...docs].sort((a, b) => rank(b) - rank(a) || compareText(b.date ?? '', a.date ?? ''))[0];
    const marked = docs.find((d) => d.status === 'rejected' || d.status === 'superseded');
    const it: WorkedOnItem = {
      ...item(marked ?? primary),
      title: primary.title,
      id: primary.id,
      date: dated.date,
      path: docs.map((d) => d.path).join(', '),
    };
    if (since && (it.date === null || it.date < since)) continue;
    const ti = topicOf.get(primaryIdx) ?? -1;
    perTopic.set(ti, [...(perTopic.get(ti) ?? []), it]);
  }
  const topics: WorkedOnTopic[] = [];
  const indices = [...perTopic.keys()].sort((a, b) => (a < 0 ? 1 : b < 0 ? -1 : a - b));
  for (const ti of indices) {
    const items = perTopic
      .get(ti)!
      .sort((a, b) => compareText(a.date ?? '', b.date ?? '') || compareText(a.path, b.path));
    const label = ti >= 0 ? k.topics[ti].label : 'Other';
    if (needle && !label.toLowerCase().includes(needle) && !items.some((d) => d.title.toLowerCase().includes(needle)))
      continue;
    const dates = items.map((i) => i.date).filter((x): x is string => x !== null);
    topics.push({ label, count: items.length, from: dates[0] ?? null, to: dates[dates.length - 1] ?? null, items });
  }
  topics.sort((a, b) => b.count - a.count || compareText(b.to ?? '', a.to ?? ''));
  const months = new Map<string, number>();
  for (const t of topics)
    for (const i of t.items) if (i.date) months.set(i.date.slice(0, 7), (months.get(i.date.slice(0, 7)) ?? 0) + 1);
  return {
    totalItems: topics.reduce((s, t) => s + t.count, 0),
    topics,
    byMonth: [...months.entries()].sort((a, b) => compareText(a[0], b[0])).map(([month, count]) => ({ month, count })),
    attempts,
    filters: { since, topic: filters.topic ?? null },
  };
}

/** The longest age `--since` takes (a century): beyond it there is no history, and the date arithmetic leaves year 0. */
const MAX_SINCE_DAYS = 36_525;

/**
 * `--since 30d` / `2w` / `2025-01-31` → YYYY-MM-DD; null when unparseable, when the date is
 * not on the calendar (2026-02-30 is not read as 2 March) or the age is beyond a century.
 */
export function parseSince(v: string, now = new Date()): string | null {
  const rel = /^(\d{1,6})\s*([dwmy])$/i.exec(v.trim());
  if (rel) {
    const days = Number(rel[1]) * { d: 1, w: 7, m: 30, y: 365 }[rel[2].toLowerCase() as 'd' | 'w' | 'm' | 'y'];
    if (days > MAX_SINCE_DAYS) return null;
    return new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);
  }
  return isCalendarDate(v.trim()) ? v.trim() : null;
}

export function renderWorkedOnText(w: WorkedOn, text: (s: string) => string = (s) => s): string {
  const lines: string[] = [];
  lines.push(
    `${w.totalItems} completed item${w.totalItems === 1 ? '' : 's'} in ${w.topics.length} topic${w.topics.length === 1 ? '' : 's'}${w.filters.since ? ` since ${w.filters.since}` : ''}${w.filters.topic ? ` matching "${w.filters.topic}"` : ''}`,
  );
  for (const t of w.topics) {
    lines.push('');
    lines.push(
      `${text(t.label)} — ${t.count} item${t.count === 1 ? '' : 's'}${t.from ? `, ${t.from === t.to ? t.from : `${t.from} … ${t.to}`}` : ''}`,
    );
    for (const i of t.items) {
      // The status is one of DocStatus's words; its reason is the document's own text.
      const mark = i.marked ? ` [${i.status!.toUpperCase()}${i.statusReason ? `: ${text(i.statusReason)}` : ''}]` : '';
      lines.push(`  ${i.date ?? '          '}  ${i.id ? `#${i.id.replace(/\s+/g, ' ')} ` : ''}${text(i.title)}${mark}`);
    }
  }
  if (w.byMonth.length) {
    lines.push('');
    lines.push('By month: ' + w.byMonth.map((m) => `${m.month} ${m.count}`).join(', '));
  }
  if (w.attempts) {
    const a = w.attempts;
    lines.push(
      `Attempts: ${a.sessions} session${a.sessions === 1 ? '' : 's'}, ${a.successes} successes, ${a.failures} failures recorded, ${a.repeatsPrevented} repeat${a.repeatsPrevented === 1 ? '' : 's'} prevented`,
    );
  }
  return lines.join('\n') + '\n';
}
