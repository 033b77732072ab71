import { noLongerStandingWord } from '../corpus/types.js';
import { formatScore, isSameWorkScore } from '../check/classify.js';
import type { Style } from '../../shared/style.js';
export type { Style };
import type { HistoryMatch } from '../check/history.js';
import type { StandardContext } from '../check/standards.js';
import { noNotes, type MatchNotes } from './notes.js';
import { workLabel } from './sections.js';
import { keyLabel, originDone, originFiles, originRef } from './origin.js';
import { safeForTerminal, terminalSafe } from '../../shared/sanitize.js';

/**
 * Wrap `text` to `width` columns; the first line starts after `first` (already
 * on the line), later lines start with `indent` spaces: a hanging indent. Words
 * longer than a line (paths) are cut rather than overflowing.
 */
export function wrap(text: string, width: number, indent: number, firstUsed = indent): string[] {
  const room = (used: number) => Math.max(10, width - used);
  const words = text.replace(/\s+/g, ' ').trim().split(' ').filter(Boolean);
  const lines: string[] = [];
  let line = '';
  let used = firstUsed;
  const push = () => {
    lines.push(line);
    line = '';
    used = indent;
  };
  for (let w of words) {
    while (w.length > room(used)) {
      if (line) push();
      lines.push(w.slice(0, room(used)));
      w = w.slice(room(used));
      used = indent;
    }
    if (line && line.length + 1 + w.length > room(used)) push();
    line = line ? `${line} ${w}` : w;
  }
  if (line || lines.length === 0) lines.push(line);
  return lines;
}

/** `   Label:    value` with the value wrapped under itself (labels padded to one width). */
function field(label: string, value: string, width: number, paint: (s: string) => string = (s) => s): string[] {
  // A continuation line (the second path of a match) has no label: spaces, not a bare colon.
  const head = `   ${(label ? `${label}:` : '').padEnd(LABEL_WIDTH)} `;
  return wrap(value, width, head.length).map((l, i) => (i === 0 ? head : ' '.repeat(head.length)) + paint(l));
}
const LABEL_WIDTH = 12; // "Similarity:" + 1

/** Past text is untrusted (escapes, bidi overrides): every shown string, the grouped paths and the brief passage included. */
function safeMatch(m: HistoryMatch): HistoryMatch {
  const out = safeForTerminal(m);
  if (m.paths) out.paths = m.paths.map(terminalSafe);
  if (typeof m.briefExcerpt === 'string') out.briefExcerpt = terminalSafe(m.briefExcerpt);
  // An author's name, a path and a URL from git or a tracker export are as untrusted as a title.
  if (m.origin) {
    const o = m.origin;
    out.origin = {
      ...o,
      ref: terminalSafe(o.ref),
      author: o.author && terminalSafe(o.author),
      mergedBy: o.mergedBy && terminalSafe(o.mergedBy),
      url: o.url && terminalSafe(o.url),
      files: o.files.map(terminalSafe),
      closes: o.closes.map(terminalSafe),
      pullRequest: o.pullRequest && terminalSafe(o.pullRequest),
    };
  }
  return out;
}

function statusValue(m: HistoryMatch, st: Style): { text: string; paint: (s: string) => string } | null {
  if (!m.status) return null;
  const loud = m.status === 'rejected' || m.status === 'superseded';
  const text = `${loud ? m.status.toUpperCase() : m.status}${m.statusReason ? ` — ${m.statusReason}` : ''}`;
  return { text, paint: loud ? (s) => st.bold(st.red(s)) : (s) => s };
}

/** The duplicate alert, for stderr, wrapped to `width` columns. */
export function renderDuplicateAlert(
  matches: HistoryMatch[],
  threshold: number,
  st: Style,
  width = 80,
  notes: MatchNotes = noNotes,
): string {
  // The calibrated score is the chance that it is the same work: say so, not "similarity" (issue 20).
  const calibrated = matches.some(isSameWorkScore);
  const head = calibrated
    ? `⚠ Similar past work detected (likely the same work: score ≥ ${threshold})`
    : `⚠ Similar past work detected (similarity ≥ ${threshold})`;
  const lines = [...wrap(head, width, 2, 0).map((l, i) => st.bold(st.yellow(i ? `  ${l}` : l))), ''];
  for (const m of matches.map(safeMatch)) {
    lines.push(...wrap(workLabel(m), width, 3, 1).map((l, i) => (i === 0 ? ` ${st.bold(l)}` : `   ${st.bold(l)}`)));
    lines.push(...field(isSameWorkScore(m) ? 'Score' : 'Similarity', formatScore(m.score), width));
    // The calibrated score's strongest evidence, in words (components.why), so the number is not taken on faith.
    const why = m.components?.why?.map(terminalSafe);
    if (why?.length) lines.push(...field('Why', why.join('; '), width));
    const s = statusValue(m, st);
    if (s) lines.push(...field('Status', s.text, width, s.paint));
    const paths = (m.paths?.length ? m.paths : [m.filePath]).filter((p) => !m.origin || p !== m.filePath);
    if (m.origin) {
      lines.push(...field('Done', `${originRef(m.origin)}, ${originDone(m.origin)}`, width));
      if (m.origin.url) lines.push(...field('Link', m.origin.url, width));
      const files = originFiles(m.origin);
      if (files) lines.push(...field('Files', files, width));
    }
    // Other documents of the same work: files by path, an issue or commit by its name.
    const label = m.origin ? 'Also' : paths.length > 1 ? 'Paths' : 'Path';
    paths.forEach((p, i) => lines.push(...field(i === 0 ? label : '', keyLabel(p), width)));
    if (m.briefExcerpt) lines.push(...field('Your brief', m.briefExcerpt, width, st.dim));
    if (m.excerpt) lines.push(...field('Past work', `[${m.section}] ${m.excerpt}`, width, st.dim));
    // What failed while that work was done (issue 21 §5): not to be tried again.
    for (const n of notes(m, terminalSafe)) lines.push(...field(n.label, n.text, width, st.yellow));
    lines.push('');
  }
  return lines.join('\n');
}

/** What Link did: which past work went into which file. */
export function renderLinked(m: HistoryMatch, outPath: string, st: Style, width = 80): string {
  m = safeMatch(m);
  const paths = m.paths?.length ? m.paths : [m.filePath];
  return wrap(
    `${st.green('Linked')} ${workLabel(m)} (${m.origin?.url ?? paths.map(keyLabel).join(', ')}) under "Linked Past Work" in ${outPath}`,
    width,
    2,
    0,
  ).join('\n  ');
}

/** One-screen summary of the outcome, for stderr. */
export function renderRelated(matches: HistoryMatch[], st: Style, width = 80, notes: MatchNotes = noNotes): string {
  const lines = ['Related past work (added to the brief):'];
  for (const m of matches.map(safeMatch)) {
    const status = m.status === 'rejected' || m.status === 'superseded' ? ` ${m.status.toUpperCase()}` : '';
    const score = formatScore(m.score);
    const indent = `  - ${score}${status}  `.length;
    const where = m.origin
      ? [originDone(m.origin), m.origin.url].filter(Boolean).join(' · ')
      : (m.paths?.length ? m.paths : [m.filePath]).join(', ');
    const body = wrap(`${workLabel(m)} — ${where}`, width, indent);
    lines.push(
      `  - ${st.dim(score)}${status ? st.bold(st.red(status)) : ''}  ${body[0]}`,
      ...body.slice(1).map((l) => ' '.repeat(indent) + l),
    );
    for (const n of notes(m, terminalSafe))
      lines.push(
        ...wrap(`${n.label}: ${n.text}`, width, indent).map((l, i) => ' '.repeat(indent) + (i ? l : st.yellow(l))),
      );
  }
  return lines.join('\n');
}

export function renderStandards(items: StandardContext[], st: Style, width = 80): string {
  items = items.map(safeForTerminal);
  const lines = ['Relevant standards:'];
  for (const s of items) {
    // Manual context and a standard the brief names are there because someone said so, not for their score.
    // One that stands out was attached under the line: its score says so (render it, and the line, as they are).
    const score =
      (s.source === 'retrieved' || s.source === 'standout') && s.score !== null ? formatScore(s.score) : s.source;
    // A standard that no longer stands says so here too, as in the brief's section: it is context, not a rule to follow.
    const word = noLongerStandingWord(s.status);
    const status = word ? ` ${word}` : '';
    const indent = `  - ${score.padEnd(6)}${status}  `.length;
    const body = wrap(`${s.filePath} › ${s.section}`, width, indent);
    lines.push(
      `  - ${st.dim(score.padEnd(6))}${status ? st.bold(st.red(status)) : ''}  ${body[0]}`,
      ...body.slice(1).map((l) => ' '.repeat(indent) + l),
    );
  }
  return lines.join('\n');
}
