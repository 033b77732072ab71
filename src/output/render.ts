import { formatScore } from '../check/classify.js';
import type { HistoryMatch } from '../check/history.js';
import type { StandardContext } from '../check/standards.js';
import { issueLabel } from './sections.js';
import { safeForTerminal } from './sanitize.js';

export interface Style {
  bold(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  green(s: string): string;
}

export async function makeStyle(color: boolean): Promise<Style> {
  if (!color) return { bold: (s) => s, red: (s) => s, yellow: (s) => s, dim: (s) => s, green: (s) => s };
  const { Chalk } = await import('chalk');
  const c = new Chalk({ level: 1 });
  return { bold: c.bold, red: c.red, yellow: c.yellow, dim: c.dim, green: c.green };
}

function statusLine(m: HistoryMatch, st: Style): string | null {
  if (!m.status) return null;
  if (m.status === 'rejected' || m.status === 'superseded') {
    const head = st.bold(st.red(`${m.status.toUpperCase()}`));
    return `   Status:  ${head}${m.statusReason ? st.red(` — ${m.statusReason}`) : ''}`;
  }
  return `   Status:  ${m.status}${m.statusReason ? ` — ${m.statusReason}` : ''}`;
}

/** The duplicate alert, for stderr. */
export function renderDuplicateAlert(matches: HistoryMatch[], threshold: number, st: Style): string {
  matches = matches.map(safeForTerminal);
  const lines = [st.bold(st.yellow(`⚠ Similar past work detected (similarity ≥ ${threshold})`)), ''];
  for (const m of matches) {
    lines.push(` ${st.bold(`Issue ${issueLabel(m)}`)}`);
    lines.push(`   Similarity: ${formatScore(m.score)}`);
    const s = statusLine(m, st);
    if (s) lines.push(s);
    lines.push(`   Path:    ${m.filePath}`);
    if (m.excerpt) lines.push(`   Match:   ${st.dim(`[${m.section}] ${m.excerpt}`)}`);
    lines.push('');
  }
  return lines.join('\n');
}

/** One-screen summary of the outcome, for stderr. */
export function renderRelated(matches: HistoryMatch[], st: Style): string {
  matches = matches.map(safeForTerminal);
  const lines = [`Related past work (added to the brief):`];
  for (const m of matches) {
    const status = m.status === 'rejected' || m.status === 'superseded' ? ` ${st.bold(st.red(m.status.toUpperCase()))}` : '';
    lines.push(`  - Issue ${issueLabel(m)} ${st.dim(formatScore(m.score))}${status}  ${st.dim(m.filePath)}`);
  }
  return lines.join('\n');
}

export function renderStandards(items: StandardContext[], st: Style): string {
  items = items.map(safeForTerminal);
  const lines = ['Relevant standards:'];
  for (const s of items) {
    const score = s.score === null ? 'manual' : formatScore(s.score);
    lines.push(`  - ${s.filePath} › ${s.section} ${st.dim(score)}`);
  }
  return lines.join('\n');
}
