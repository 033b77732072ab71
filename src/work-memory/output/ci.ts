/**
 * The check's result where work is filed (issue 32): a comment body in GitHub
 * markdown (`issue start --format markdown`, the Action's comment) and workflow
 * commands — annotations plus a job-summary block (`--format github`). Both are
 * read from the `--json` result, so the three never disagree.
 *
 * Past text is input: every title, reason and excerpt goes through quotePast
 * (one line, HTML comments defused, capped) and mentions are defused, so a past
 * issue cannot ping people, close issues or open agentos' own marker.
 */
import { formatScore } from '../check/classify.js';
import { quotePast } from './sections.js';

/** What the renderers read of one match of the `--json` result. */
export interface CiMatch {
  id: string | null;
  title: string;
  path: string;
  score: number;
  status?: string | null;
  statusReason?: string | null;
  url?: string | null;
  source?: string;
  ref?: string | null;
  pullRequest?: string | null;
  repository?: string | null;
  components?: { why?: string[] } | null;
}

export interface CiStandard {
  title: string;
  filePath: string;
  section: string;
  score: number | null;
}

/** What the renderers read of the `--json` result. */
export interface CiReport {
  status: string;
  matches: CiMatch[];
  standards: { items: CiStandard[] };
  method: string;
  error: string | null;
  brief: { path: string | null; sha256: string };
}

export interface CiOptions {
  /** Scores at or above: the same work. */
  duplicate: number;
  /** A link to a file of this repository, when the run knows where it is browsed (GitHub: server, repository, commit). */
  fileLink?: (path: string) => string | null;
  /** The brief as the annotations name it (a path relative to the repository). */
  briefFile?: string;
}

/** The hidden first line of every comment agentos writes: a re-run finds and edits it instead of adding another. */
export const COMMENT_MARKER = '<!-- agentos:check -->';

/** The alerts carried in the comment, for a maintainer's later answer (closed as duplicate, label removed). */
export interface CommentData {
  brief: string;
  alerts: Array<{ id: string | null; path: string; score: number }>;
}

const DATA_OPEN = '<!-- agentos:data ';
const DATA_CLOSE = ' -->';

/** Text from past work, safe in a GitHub comment: quoted, and @mentions / #refs / links not live. */
function safe(s: string, max = 200): string {
  return quotePast(s, max)
    .replace(/@(?=[\w-])/g, '@\u200b')
    .replace(/[[\]]/g, (c) => `\\${c}`)
    .replace(/\|/g, '\\|');
}

function label(m: CiMatch): string {
  const ref = m.pullRequest ? `pull request #${m.pullRequest}` : m.source === 'git' && m.ref ? `commit ${m.ref.slice(0, 7)}` : m.id ? `#${m.id}` : null;
  return `${ref ? `${safe(ref, 40)}: ` : ''}${safe(m.title)}`;
}

function linkOf(m: CiMatch, o: CiOptions): string | null {
  const url = m.url ?? (m.source === 'file' || !m.source ? (o.fileLink?.(m.path) ?? null) : null);
  return url && /^https?:\/\/[^\s<>()]+$/.test(url) ? url : null;
}

function matchLine(m: CiMatch, o: CiOptions): string {
  const link = linkOf(m, o);
  const name = link ? `[${label(m)}](${link})` : `${label(m)} (\`${safe(m.path, 300).replace(/`/g, "'")}\`)`;
  const status = m.status && m.status !== 'done' ? `, ${safe(m.status, 30)}${m.statusReason ? `: ${safe(m.statusReason, 120)}` : ''}` : '';
  const from = m.repository ? `, from ${safe(m.repository, 80)}` : '';
  const why = m.components?.why?.length ? ` — ${m.components.why.map((w) => safe(w, 160)).join('; ')}` : '';
  return `- **${name}** (similarity ${formatScore(m.score)}${status}${from})${why}`;
}

/** The comment body: what matched, why, and the governing standards; a clear brief says so in one line. */
export function renderCommentMarkdown(r: CiReport, o: CiOptions): string {
  const alerts = r.status === 'duplicate_alert' ? r.matches.filter((m) => m.score >= o.duplicate) : [];
  const related = r.matches.filter((m) => !alerts.includes(m));
  const data: CommentData = { brief: r.brief.sha256, alerts: alerts.map((m) => ({ id: m.id, path: m.path, score: Math.round(m.score * 1e4) / 1e4 })) };
  const lines = [COMMENT_MARKER, `${DATA_OPEN}${JSON.stringify(data).replace(/--/g, '-\\u002d')}${DATA_CLOSE}`];
  if (r.error) {
    lines.push(`**agentos could not check this against past work** (${safe(r.error, 300)}).`);
  } else if (alerts.length) {
    lines.push(`### agentos: this looks like work already done`, '');
    lines.push(...alerts.map((m) => matchLine(m, o)));
    if (related.length) lines.push('', '**Related work**', '', ...related.map((m) => matchLine(m, o)));
  } else if (related.length) {
    lines.push(`### agentos: related past work`, '', ...related.map((m) => matchLine(m, o)));
  } else {
    lines.push('agentos found no earlier work like this.');
  }
  const standards = r.standards.items;
  if (standards.length) {
    lines.push('', '**Standards that govern this work**', '');
    for (const s of standards) {
      const link = o.fileLink?.(s.filePath);
      const name = link && /^https?:\/\/[^\s<>()]+$/.test(link) ? `[${safe(s.title)}](${link})` : `${safe(s.title)} (\`${safe(s.filePath, 300).replace(/`/g, "'")}\`)`;
      lines.push(`- ${name}${s.section ? ` — ${safe(s.section, 120)}` : ''}`);
    }
  }
  if (alerts.length) {
    lines.push(
      '',
      `<sub>Checked by agentos (\`${r.method.replace(/`/g, '')}\`). If it is the same work, close this issue as a duplicate; if it is not, remove the label agentos added. Either answer teaches this project's thresholds (\`agentos calibrate\`).</sub>`,
    );
  }
  return lines.join('\n') + '\n';
}

/** The alerts a comment of ours carries; null when the body is not ours or its data is not what we write. */
export function commentData(body: string): CommentData | null {
  if (!body.startsWith(COMMENT_MARKER)) return null;
  const start = body.indexOf(DATA_OPEN);
  const end = start < 0 ? -1 : body.indexOf(DATA_CLOSE, start + DATA_OPEN.length);
  if (end < 0) return null;
  try {
    const d = JSON.parse(body.slice(start + DATA_OPEN.length, end)) as CommentData;
    const ok =
      typeof d.brief === 'string' &&
      /^[0-9a-f]{64}$/.test(d.brief) &&
      Array.isArray(d.alerts) &&
      d.alerts.length <= 20 &&
      d.alerts.every((a) => (a.id === null || typeof a.id === 'string') && typeof a.path === 'string' && typeof a.score === 'number' && a.score >= 0 && a.score <= 1);
    return ok ? { brief: d.brief, alerts: d.alerts.map((a) => ({ id: a.id, path: a.path, score: a.score })) } : null;
  } catch {
    return null;
  }
}

/** A workflow command's message and properties escaped as the runner reads them (actions/toolkit command.ts). */
const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/**
 * `--format github`: one annotation per alert (warning) and per related match (notice) on the
 * brief's file, then the job-summary markdown (the comment's body, without its hidden lines).
 */
export function renderGithub(r: CiReport, o: CiOptions): { annotations: string; summary: string } {
  const file = o.briefFile ? `file=${escapeProperty(o.briefFile)},` : '';
  const lines: string[] = [];
  if (r.error) lines.push(`::warning ${file}title=${escapeProperty('agentos: check failed')}::${escapeData(`agentos could not check this brief: ${quotePast(r.error, 300)}`)}`);
  const alerts = r.status === 'duplicate_alert' ? r.matches.filter((m) => m.score >= o.duplicate) : [];
  for (const m of r.matches) {
    const kind = alerts.includes(m) ? 'warning' : 'notice';
    const title = alerts.includes(m) ? 'agentos: possible duplicate' : 'agentos: related work';
    const link = linkOf(m, o);
    const why = m.components?.why?.length ? `; ${m.components.why.map((w) => quotePast(w, 160)).join('; ')}` : '';
    lines.push(`::${kind} ${file}title=${escapeProperty(title)}::${escapeData(`${label(m).replace(/\\([[\]|])/g, '$1')} (similarity ${formatScore(m.score)})${why}${link ? ` ${link}` : ''}`)}`);
  }
  const summary = renderCommentMarkdown(r, o)
    .split('\n')
    .filter((l) => !l.startsWith(COMMENT_MARKER) && !l.startsWith(DATA_OPEN))
    .join('\n');
  return { annotations: lines.length ? lines.join('\n') + '\n' : '', summary: `## agentos: ${o.briefFile ? quotePast(o.briefFile, 300) : 'brief'}\n\n${summary}` };
}
