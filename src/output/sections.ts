import { formatScore } from '../check/classify.js';
import type { HistoryMatch } from '../check/history.js';
import type { StandardContext } from '../check/standards.js';

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

function statusText(m: HistoryMatch): string {
  if (!m.status) return '';
  const s = m.status === 'rejected' || m.status === 'superseded' ? `**${m.status.toUpperCase()}**` : m.status;
  return m.statusReason ? `${s} (${m.statusReason})` : s;
}

export function relatedPastWorkSection(matches: HistoryMatch[]): string {
  const lines = ['## Related Past Work', '', '_Added by `agentos issue start`: completed work similar to this brief._', ''];
  for (const m of matches) {
    const status = statusText(m);
    lines.push(`- **Issue ${issueLabel(m)}** (similarity ${formatScore(m.score)}${status ? `, status: ${status}` : ''})`);
    if (m.summary) lines.push(`  Summary: ${m.summary}`);
    lines.push(`  Path: \`${m.filePath}\``);
  }
  return lines.join('\n');
}

export function linkedPastWorkSection(m: HistoryMatch): string {
  const status = statusText(m);
  return [
    '## Linked Past Work',
    '',
    `This brief was linked to **Issue ${issueLabel(m)}** (similarity ${formatScore(m.score)}${status ? `, status: ${status}` : ''}) as a likely duplicate.`,
    '',
    m.summary ? `Summary: ${m.summary}` : '',
    `Path: \`${m.filePath}\``,
  ]
    .filter((l, i, a) => !(l === '' && a[i - 1] === ''))
    .join('\n');
}

export function relevantStandardsSection(items: StandardContext[]): string {
  const lines = ['## Relevant Standards', '', '_Added by `agentos issue start`: standing decisions that govern this work._', ''];
  for (const s of items) {
    const where = s.section && s.section !== s.title ? `${s.title} › ${s.section}` : s.title;
    const score = s.score === null ? 'provided with --context' : `score ${formatScore(s.score)}`;
    const status = s.status === 'superseded' || s.status === 'deprecated' || s.status === 'rejected' ? `, **${s.status.toUpperCase()}**` : '';
    lines.push(`- \`${s.filePath}\` — ${where} (${score}${status})`);
    if (s.snippet) lines.push(`  > ${s.snippet}`);
  }
  return lines.join('\n');
}

/**
 * Put `content` in the brief as section `id`: replace the existing marked
 * section if there is one, else append it. Pure; returns the new text.
 */
export function upsertSection(brief: string, id: SectionId, content: string): string {
  const block = `${start(id)}\n${content.trim()}\n${end(id)}`;
  const s = brief.indexOf(start(id));
  const e = brief.indexOf(end(id));
  if (s !== -1 && e > s) return brief.slice(0, s) + block + brief.slice(e + end(id).length);
  return `${brief.trimEnd()}\n\n${block}\n`;
}

/** Remove a marked section (used when a re-run finds nothing for it any more). */
export function removeSection(brief: string, id: SectionId): string {
  const s = brief.indexOf(start(id));
  const e = brief.indexOf(end(id));
  if (s === -1 || e < s) return brief;
  // trimEnd, not `/\s*$/`: that retries every start in a run of spaces (quadratic).
  return (brief.slice(0, s).trimEnd() + '\n' + brief.slice(e + end(id).length).replace(/^\s*/, '\n')).replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
}

/** The user's own text: agentos' sections must not count when the brief is checked again. */
export function stripAgentosSections(brief: string): string {
  let out = brief;
  for (const id of ['linked-past-work', 'related-past-work', 'relevant-standards'] as const) out = removeSection(out, id);
  return out;
}
