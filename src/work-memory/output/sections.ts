import { formatScore, scoreText } from '../check/classify.js';
import { noNotes, type MatchNotes } from './notes.js';
import type { HistoryMatch } from '../check/history.js';
import type { StandardContext } from '../check/standards.js';
import { oneLine } from '../../shared/sanitize.js';
import { noLongerStandingWord, type WorkOrigin } from '../corpus/types.js';
import { originDone, originFiles, originRef } from './origin.js';

/**
 * Sections agentos adds to a brief sit between HTML-comment markers, so a
 * re-run replaces its own section instead of appending a second one.
 */
export type SectionId = 'linked-past-work' | 'related-past-work' | 'relevant-standards';

const start = (id: SectionId) => `<!-- agentos:${id} -->`;
const end = (id: SectionId) => `<!-- /agentos:${id} -->`;

export function issueLabel(m: { issueId: string | null; title: string }): string {
  return m.issueId ? `#${m.issueId}: ${m.title}` : m.title;
}

/** "Issue #12: Title" for a file; "Pull request #1324: Title" or "Commit 1a2b3c4: Title" for work from git or a tracker. */
export function workLabel(m: { issueId: string | null; title: string; origin?: WorkOrigin }): string {
  if (!m.origin) return `Issue ${issueLabel(m)}`;
  const ref = originRef(m.origin);
  return `${ref[0].toUpperCase()}${ref.slice(1)}: ${m.title}`;
}

/** Longest piece of past text put into a brief (summaries are ~300 characters already). */
export const MAX_QUOTED_CHARS = 400;

/**
 * Text from a past document, as it may appear in the brief: untrusted input for
 * whoever reads the brief next (often an agent). One line (so it cannot start a
 * heading, list or fence), controls and escapes removed, HTML comments defused (so
 * it cannot open or close agentos' own sections), and capped.
 */
export function quotePast(s: string, max = MAX_QUOTED_CHARS): string {
  return oneLine(s, max).replace(/<!--/g, '&lt;!--').replace(/-->/g, '--&gt;');
}

/** Recorded text in double quotes that a quote of its own cannot end early (one line, capped). */
export function pastQuote(s: string, max = MAX_QUOTED_CHARS): string {
  return `"${quotePast(s, max).replace(/"/g, "'")}"`;
}

/** A recorded command as an inline code span that its own text cannot close or break out of (one line, capped). */
export function pastCode(command: string, max = 300): string {
  return `\`${codePath(command, max)}\``;
}

/** A path inside a code span: a backtick would end the span early. */
function codePath(p: string, max = 1000): string {
  return quotePast(p, max).replace(/`/g, "'");
}

/** The past match with every shown field quoted. */
function quoted<T extends { title: string; summary?: string; statusReason?: string | null; filePath: string }>(
  m: T,
): T {
  return {
    ...m,
    title: quotePast(m.title, 200),
    summary: m.summary === undefined ? undefined : quotePast(m.summary),
    statusReason: m.statusReason ? quotePast(m.statusReason) : m.statusReason,
    filePath: codePath(m.filePath),
  };
}

/** Work from another repository of the team store: its text was written by other people, and says so. */
function fromTeam(m: HistoryMatch): string {
  return m.repository ? `, from ${quotePast(m.repository, 120)} in the team store` : '';
}

/** Where the past work is: its file, or for git and tracker work when it was done, its link and files. */
function whereLines(m: HistoryMatch): string[] {
  const o = m.origin;
  if (!o) return [`Path: \`${m.filePath}\``];
  const files = originFiles(o);
  return [
    `Done: ${quotePast(`${originRef(o)}, ${originDone(o)}`)}`,
    o.url ? `Link: <${quotePast(o.url, 2048).replace(/[<>]/g, '')}>` : '',
    files ? `Files: \`${codePath(files)}\`` : '',
  ].filter(Boolean);
}

function statusText(m: HistoryMatch): string {
  if (!m.status) return '';
  const s = m.status === 'rejected' || m.status === 'superseded' ? `**${m.status.toUpperCase()}**` : m.status;
  return m.statusReason ? `${s} (${m.statusReason})` : s;
}

export function relatedPastWorkSection(matches: HistoryMatch[], notes: MatchNotes = noNotes): string {
  const noted = new Map(matches.map((m) => [m.filePath, notes(m, (t) => quotePast(t, 300))]));
  matches = matches.map(quoted);
  const lines = [
    '## Related Past Work',
    '',
    '_Added by `agentos issue start`: completed work similar to this brief._',
    '',
  ];
  for (const m of matches) {
    const status = statusText(m);
    lines.push(`- **${workLabel(m)}** (${scoreText(m)}${status ? `, status: ${status}` : ''}${fromTeam(m)})`);
    if (m.summary) lines.push(`  > Summary: ${m.summary}`);
    lines.push(...whereLines(m).map((l) => `  ${l}`));
    for (const n of noted.get(m.filePath) ?? []) lines.push(`  ${n.label}: ${n.text}`);
  }
  return lines.join('\n');
}

export function linkedPastWorkSection(m: HistoryMatch, notes: MatchNotes = noNotes): string {
  const failures = notes(m, (t) => quotePast(t, 300)).map((n) => `${n.label}: ${n.text}`);
  m = quoted(m);
  const status = statusText(m);
  return [
    '## Linked Past Work',
    '',
    `This brief was linked to **${workLabel(m)}** (${scoreText(m)}${status ? `, status: ${status}` : ''}${fromTeam(m)}) as a likely duplicate.`,
    '',
    m.summary ? `> Summary: ${m.summary}` : '',
    ...whereLines(m),
    ...failures,
  ]
    .filter((l, i, a) => !(l === '' && a[i - 1] === ''))
    .join('\n');
}

/** "2. Queue jobs in PostgreSQL" is the title "Queue jobs in PostgreSQL" with its number (Nygard's ADR heading). */
const sameHeading = (section: string, title: string) =>
  section === title || section.replace(/^(?:adr[- ]?)?\d+(?:\.\d+)*[.:)]?\s+/i, '') === title;

export function relevantStandardsSection(items: StandardContext[]): string {
  const lines = [
    '## Relevant Standards',
    '',
    '_Added by `agentos issue start`: standing decisions that govern this work._',
    '',
  ];
  for (const s of items) {
    const [title, section] = [quotePast(s.title, 200), quotePast(s.section ?? '', 200)];
    const where = section && !sameHeading(section, title) ? `${title} › ${section}` : title;
    const score =
      s.source === 'manual'
        ? 'provided with --context'
        : s.source === 'cited'
          ? 'named in the brief'
          : s.source === 'successor'
            ? `supersedes \`${codePath(s.supersedes ?? '')}\``
            : s.source === 'standout'
              ? `score ${formatScore(s.score ?? 0)}, far above the other standards`
              : `score ${formatScore(s.score ?? 0)}`;
    const word = noLongerStandingWord(s.status);
    const status = word ? `, **${word}**` : '';
    lines.push(`- \`${codePath(s.filePath)}\` — ${where} (${score}${status})`);
    if (s.snippet) lines.push(`  > ${quotePast(s.snippet)}`);
  }
  return lines.join('\n');
}

/**
 * Where a marker stands on a line of its own (the first from `from`, or the last), or -1.
 * A marker inside a sentence or quoted text does not delimit a section.
 */
function markerAt(text: string, marker: string, from = 0, last = false): number {
  let found = -1;
  for (let i = text.indexOf(marker, Math.max(0, from)); i !== -1; i = text.indexOf(marker, i + 1)) {
    const after = i + marker.length;
    if ((i === 0 || text[i - 1] === '\n') && (after === text.length || text[after] === '\n' || text[after] === '\r')) {
      found = i;
      if (!last) break;
    }
  }
  return found;
}

/**
 * The section agentos wrote: its last start marker (agentos appends, so a stray
 * marker line in the user's own text comes earlier) and the first end after it.
 */
function findSection(text: string, id: SectionId): [number, number] {
  const s = markerAt(text, start(id), 0, true);
  return [s, s === -1 ? -1 : markerAt(text, end(id), s)];
}

/**
 * Put `content` in the brief as section `id`: replace the existing marked
 * section if there is one, else append it. Pure; returns the new text.
 */
export function upsertSection(brief: string, id: SectionId, content: string): string {
  const block = `${start(id)}\n${content.trim()}\n${end(id)}`;
  const [s, e] = findSection(brief, id);
  if (s !== -1 && e > s) return brief.slice(0, s) + block + brief.slice(e + end(id).length);
  return `${brief.trimEnd()}\n\n${block}\n`;
}

/** Remove a marked section (used when a re-run finds nothing for it any more). */
export function removeSection(brief: string, id: SectionId): string {
  const [s, e] = findSection(brief, id);
  if (s === -1 || e < s) return brief;
  // trimEnd, not `/\s*$/`: that retries every start in a run of spaces (quadratic).
  return (
    (brief.slice(0, s).trimEnd() + '\n' + brief.slice(e + end(id).length).replace(/^\s*/, '\n'))
      .replace(/\n{3,}/g, '\n\n')
      .trimEnd() + '\n'
  );
}

/** The user's own text: agentos' sections must not count when the brief is checked again. */
export function stripAgentosSections(brief: string): string {
  let out = brief;
  for (const id of ['linked-past-work', 'related-past-work', 'relevant-standards'] as const)
    out = removeSection(out, id);
  return out;
}
