/**
 * The check's result where work is filed (issue 32): a comment body in GitHub
 * markdown (`issue start --format markdown`, the Action's comment) and workflow
 * commands — annotations plus a job-summary block (`--format github`). Both are
 * read from the `--json` result, so the three never disagree.
 *
 * Past text is input (closed issues are written by anyone): every title, reason and
 * excerpt is one line, capped, its HTML and markdown escaped, and its @mentions, URLs and #N /
 * owner/repo#N references made inert, so a past issue cannot ping people, link, reference other
 * issues, lay out the comment or open agentos' own marker. A path is a code span its text cannot
 * close (sections.ts pastCode, as in the brief's sections). Annotations are built by shared/actions-log.ts, which escapes them for the runner.
 */
import { oneLine } from '../../shared/sanitize.js';
import { annotation } from '../../shared/actions-log.js';
import { scoreText } from '../check/classify.js';
import { pastCode, quotePast } from './sections.js';
import { noLongerStandingWord } from '../corpus/types.js';

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
  kind?: string | null;
  /** Raised as the same work (`issue start --json`); absent in older results: then every match at or above the duplicate line on an alert. */
  alert?: boolean;
  /** The calibrated score's evidence: `features` present means the score is the chance of the same work (scoreText says "score"). */
  components?: { why?: string[]; features?: unknown } | null;
}

export interface CiStandard {
  title: string;
  filePath: string;
  section: string;
  score: number | null;
  /** As `--json` gives them (absent in older results): a superseded standard is not a rule to follow. */
  status?: string | null;
  source?: string;
  supersedes?: string;
}

/** What the renderers read of the `--json` result. */
export interface CiReport {
  status: string;
  matches: CiMatch[];
  standards: { items: CiStandard[] };
  method: string;
  error: string | null;
  brief: { path: string | null; sha256: string; key?: string };
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
  /** The brief's answers key (`brief.key`). */
  brief: string;
  alerts: Array<{ id: string | null; path: string; score: number }>;
  /** The label was added once: never again, whatever later versions of the issue match. */
  labelled?: boolean;
}

const DATA_OPEN = '<!-- agentos:data ';
const DATA_CLOSE = ' -->';

const ZW = '\u200b';

/** Text from past work, safe in a GitHub comment: one line, HTML and markdown escaped, no live mention, link, reference or table cell. */
function safe(s: string, max = 200): string {
  return (
    oneLine(s, max)
      // Markdown first (its backslashes are ours): `\` at the end of a link's text would eat the `]`, `_x_` is emphasis.
      .replace(/[\\`*_~]/g, (c) => `\\${c}`)
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/@(?=[\w-])/g, `@${ZW}`)
      .replace(/:\/\//g, `:${ZW}//`)
      .replace(/\bwww\./gi, (w) => `${w.slice(0, 3)}${ZW}.`)
      .replace(/#(?=\d)/g, `#${ZW}`)
      // GitHub links `GH-12` to issue #12 as it links `#12`: either would put a mention on that issue.
      .replace(/\bGH-(?=\d)/gi, (w) => `${w}${ZW}`)
      .replace(/[[\]]/g, (c) => `\\${c}`)
      .replace(/\|/g, '\\|')
  );
}

/** The matches raised as the same work: the result's own `alert` flags, else (older results) every match over the line on an alert. */
export function alertsOf(r: CiReport, duplicate: number): CiMatch[] {
  if (r.status !== 'duplicate_alert') return [];
  return r.matches.some((m) => m.alert !== undefined)
    ? r.matches.filter((m) => m.alert === true)
    : r.matches.filter((m) => m.score >= duplicate);
}

/** Ids are made of [\w.-] only (originRef's rule): the reference agentos shows on purpose stays a reference. */
const id = (s: string) => s.replace(/[^\w.-]/g, '').slice(0, 40);

/** "#27: Title"; the title through `text` (markdown: safe; an annotation is plain text, escaped by the runner's rules). */
function label(m: CiMatch, text: (t: string) => string = (t) => safe(t)): string {
  const ref = m.pullRequest
    ? `pull request #${id(m.pullRequest)}`
    : m.source === 'git' && m.ref
      ? `commit ${id(m.ref).slice(0, 7)}`
      : m.id
        ? `#${id(m.id)}`
        : null;
  return `${ref ? `${ref}: ` : ''}${text(m.title)}`;
}

function linkOf(m: CiMatch, o: CiOptions): string | null {
  // A file of another repository (the team store) is not at this repository's URL.
  const url = m.url ?? ((m.source === 'file' || !m.source) && !m.repository ? (o.fileLink?.(m.path) ?? null) : null);
  return url && /^https?:\/\/[^\s<>()]+$/.test(url) ? url : null;
}

function matchLine(m: CiMatch, o: CiOptions): string {
  const link = linkOf(m, o);
  const name = link ? `[${label(m)}](${link})` : `${label(m)} (${pastCode(m.path)})`;
  const status =
    m.status && m.status !== 'done'
      ? `, ${safe(m.status, 30)}${m.statusReason ? `: ${safe(m.statusReason, 120)}` : ''}`
      : '';
  const from = m.repository ? `, from ${safe(m.repository, 80)}` : '';
  const why = m.components?.why?.length ? ` — ${m.components.why.map((w) => safe(w, 160)).join('; ')}` : '';
  return `- **${name}** (${scoreText(m)}${status}${from})${why}`;
}

/** The comment body: what matched, why, and the governing standards; a clear brief says so in one line. */
export function renderCommentMarkdown(r: CiReport, o: CiOptions & { labelled?: boolean }): string {
  const alerts = alertsOf(r, o.duplicate);
  const related = r.matches.filter((m) => !alerts.includes(m));
  const data: CommentData = {
    brief: r.brief.key ?? r.brief.sha256,
    alerts: alerts.map((m) => ({ id: m.id, path: m.path, score: Math.round(m.score * 1e4) / 1e4 })),
    ...(o.labelled ? { labelled: true } : {}),
  };
  const lines = [COMMENT_MARKER, dataLine(data)];
  if (r.error) {
    lines.push(`**agentos could not check this against past work** (${safe(r.error, 300)}).`);
  } else if (alerts.length) {
    // A re-proposal of what was decided against is not "done": it says what it is.
    lines.push(
      alerts.every((m) => m.status === 'rejected')
        ? '### agentos: this was proposed before and rejected'
        : '### agentos: this looks like work already done',
      '',
    );
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
      const name =
        link && /^https?:\/\/[^\s<>()]+$/.test(link)
          ? `[${safe(s.title)}](${link})`
          : `${safe(s.title)} (${pastCode(s.filePath)})`;
      lines.push(`- ${standingOf(s)}${name}${s.section ? ` — ${safe(s.section, 120)}` : ''}${whyAttached(s)}`);
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

/** A standard that no longer stands says so first: the comment must not present it as the rule. */
const standingOf = (s: CiStandard) => {
  const word = noLongerStandingWord(s.status);
  return word ? `**${word}**: ` : '';
};

/** Why a standard is listed when no score put it there: the issue names it, or it replaced one listed. */
function whyAttached(s: CiStandard): string {
  if (s.source === 'cited') return ' (named in the issue)';
  if (s.source === 'standout') return ' (far above the other standards)';
  if (s.source === 'successor' && s.supersedes) return ` (supersedes ${pastCode(s.supersedes)})`;
  return '';
}

/** The hidden data line: JSON inside an HTML comment, with no `--` (so no `-->`) anywhere in it. */
export function dataLine(data: CommentData): string {
  return `${DATA_OPEN}${JSON.stringify(data).replace(/--/g, '-\\u002d')}${DATA_CLOSE}`;
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
      d.alerts.every(
        (a) =>
          (a.id === null || typeof a.id === 'string') &&
          typeof a.path === 'string' &&
          typeof a.score === 'number' &&
          a.score >= 0 &&
          a.score <= 1,
      );
    return ok
      ? {
          brief: d.brief,
          alerts: d.alerts.map((a) => ({ id: a.id, path: a.path, score: a.score })),
          ...(d.labelled === true ? { labelled: true } : {}),
        }
      : null;
  } catch {
    return null;
  }
}

/**
 * `--format github`: one annotation per alert (warning) and per related match (notice) on the
 * brief's first line (GitHub shows an annotation with no line in the checks view only, not on the
 * pull request's files), then the job-summary markdown (the comment's body, without its hidden lines).
 */
export function renderGithub(r: CiReport, o: CiOptions): { annotations: string[]; summary: string } {
  const at = { file: o.briefFile, line: o.briefFile ? 1 : undefined };
  const lines: string[] = [];
  if (r.error)
    lines.push(
      annotation(
        'warning',
        { ...at, title: 'agentos: check failed' },
        `agentos could not check this brief: ${quotePast(r.error, 300)}`,
      ),
    );
  const alerts = alertsOf(r, o.duplicate);
  for (const m of r.matches) {
    const alert = alerts.includes(m);
    const title = !alert
      ? 'agentos: related work'
      : m.status === 'rejected'
        ? 'agentos: proposed before and rejected'
        : 'agentos: possible duplicate';
    const link = linkOf(m, o);
    const why = m.components?.why?.length ? `; ${m.components.why.map((w) => quotePast(w, 160)).join('; ')}` : '';
    lines.push(
      annotation(
        alert ? 'warning' : 'notice',
        { ...at, title },
        `${label(m, (t) => oneLine(t, 200))} (${scoreText(m)})${why}${link ? ` ${link}` : ''}`,
      ),
    );
  }
  const summary = renderCommentMarkdown(r, o)
    .split('\n')
    .filter((l) => !l.startsWith(COMMENT_MARKER) && !l.startsWith(DATA_OPEN))
    .join('\n');
  // The file name is the pull request's: a code span, where no HTML, mention or link is read.
  return { annotations: lines, summary: `## agentos: ${o.briefFile ? pastCode(o.briefFile) : 'brief'}\n\n${summary}` };
}

/** Links to this repository's files in a GitHub Actions run (server, repository, commit from its environment); none elsewhere. */
export function githubFileLink(env: NodeJS.ProcessEnv): ((path: string) => string) | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_SHA: sha } = env;
  if (!server || !repo || !sha || !/^[\w.-]+\/[\w.-]+$/.test(repo) || !/^[0-9a-f]{7,64}$/.test(sha)) return undefined;
  const base = `${server.replace(/\/+$/, '')}/${repo}/blob/${sha}/`;
  return (p) => base + p.split('/').map(encodeURIComponent).join('/');
}
