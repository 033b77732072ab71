/**
 * What users answered at the duplicate prompt (issue 20, part 6). An Ignore
 * on a match is remembered: the same brief (hash of its text without
 * agentos' own sections) is not alerted on that match again. Link, Abort
 * and Ignore given by a person are labels `agentos calibrate` learns this
 * project's thresholds from. One JSON object per line in
 * `.agentos/memory/answers.jsonl`, appended with O_APPEND (a line is one
 * write, so concurrent runs interleave whole lines); a damaged line is
 * skipped, never fatal.
 */
import { createHash } from 'node:crypto';
import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ensureMemoryDir } from '../../shared/fsutil/memory-dir.js';
import type { HistoryMatch } from '../check/history.js';
import { matchPaths } from '../scoring/match.js';
import type { DuplicateAction } from './decide.js';
import { calibrationVersion, isTrackerReport, sameModelAs } from '../scoring/calibrated.js';
import { readProjectLine } from '../scoring/project-line.js';

export interface Answer {
  at: string;
  briefSha256: string;
  /** The match the answer is about (for Link: the one chosen). */
  issueId: string | null;
  filePath: string;
  score: number;
  /** `missed` (a maintainer's only): closed as a duplicate where agentos raised no alert; no match named. */
  answer: DuplicateAction | 'missed';
  /** The score's scale: method and calibration version (calibrate uses only answers on today's scale). */
  scale?: string;
  /** Who answered: a person at the prompt (absent), or a maintainer on the tracker (closed as duplicate, label removed; issue 32). */
  by?: 'maintainer';
  /** The tracker's issue a maintainer answered on: its versions (edits) count once. */
  issue?: number;
}

export function answersFile(root: string): string {
  return path.join(root, '.agentos', 'memory', 'answers.jsonl');
}

/** The brief's identity for answers: its text as checked (agentos' sections stripped), hashed. */
export function briefKey(checkedText: string): string {
  return createHash('sha256').update(checkedText).digest('hex');
}

const MAX_ANSWERS_BYTES = 16 * 1024 * 1024;

export async function readAnswers(root: string): Promise<Answer[]> {
  let text: string;
  try {
    text = await readFile(answersFile(root), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  if (text.length > MAX_ANSWERS_BYTES) text = text.slice(text.length - MAX_ANSWERS_BYTES);
  const out: Answer[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const a = JSON.parse(line) as Answer;
      const valid =
        typeof a.briefSha256 === 'string' &&
        typeof a.filePath === 'string' &&
        (['abort', 'link', 'ignore'].includes(a.answer) || (a.answer === 'missed' && a.by === 'maintainer')) &&
        typeof a.score === 'number' &&
        typeof a.at === 'string' &&
        !Number.isNaN(Date.parse(a.at));
      if (valid) out.push(a);
    } catch {
      // a torn or hand-edited line: skip it
    }
  }
  return out;
}

/**
 * Record a person's answer to an alert. Ignore dismisses every match shown (one
 * line each: none is raised again for this brief). Link names the match chosen;
 * Abort names the top one ("this appears to duplicate #N"): the others shown
 * beside them get no label.
 */
export async function recordAnswers(
  root: string,
  briefSha256: string,
  alerts: HistoryMatch[],
  action: DuplicateAction,
  linked: HistoryMatch | null,
  scale: string,
): Promise<void> {
  if (!alerts.length) return;
  const at = new Date().toISOString();
  const named =
    action === 'ignore'
      ? alerts
      : action === 'link'
        ? alerts.filter((m) => m.filePath === (linked ?? alerts[0]).filePath)
        : alerts.slice(0, 1);
  const text = named
    .map((m) => {
      const a: Answer = {
        at,
        briefSha256,
        issueId: m.issueId,
        filePath: m.filePath,
        score: m.score,
        answer: action,
        scale,
      };
      return JSON.stringify(a);
    })
    .join('\n');
  if (!text) return;
  ensureMemoryDir(root);
  await appendFile(answersFile(root), text + '\n', { flag: 'a' });
}

/**
 * A maintainer's answer on the tracker to an alert agentos posted (issue 32): the issue closed as a
 * duplicate is an Abort on the top alert ("this appears to duplicate #N"); the label removed is an
 * Ignore of every alert. The same file and the same labels as the prompt's answers.
 */
export async function recordMaintainerAnswer(
  root: string,
  data: { brief: string; alerts: Array<{ id: string | null; path: string; score: number }> },
  action: 'abort' | 'ignore' | 'missed',
  scale: string,
  issue?: number,
): Promise<number> {
  // missed: a duplicate agentos did not alert on, one line with no match (recall's denominator).
  const named =
    action === 'missed'
      ? [{ id: null, path: '', score: 0 }]
      : action === 'ignore'
        ? data.alerts
        : data.alerts.slice(0, 1);
  if (!named.length) return 0;
  const at = new Date().toISOString();
  const text = named
    .map((m) =>
      JSON.stringify({
        at,
        briefSha256: data.brief,
        issueId: m.id,
        filePath: m.path,
        score: m.score,
        answer: action,
        scale,
        by: 'maintainer',
        ...(issue ? { issue } : {}),
      } satisfies Answer),
    )
    .join('\n');
  ensureMemoryDir(root);
  await appendFile(answersFile(root), text + '\n', { flag: 'a' });
  return named.length;
}

/**
 * How the alerts fared with the maintainers on the tracker (`agentos calibrate`): of the alerts they
 * answered, how many were the same work (closed as a duplicate) — precision; of the issues they closed
 * as duplicates, how many agentos had alerted on — recall. Per brief, its latest answer.
 */
export function maintainerFigures(answers: Answer[]): {
  confirmed: number;
  removed: number;
  missed: number;
  precision: number | null;
  recall: number | null;
} {
  // Per issue when the answer names it (an issue's edits are versions of one brief), else per brief.
  const latest = new Map<string, Answer>();
  for (const a of answers) {
    if (a.by !== 'maintainer') continue;
    const key = typeof a.issue === 'number' ? `#${a.issue}` : a.briefSha256;
    if ((latest.get(key)?.at ?? '') <= a.at) latest.set(key, a);
  }
  const count = (k: Answer['answer']) => [...latest.values()].filter((a) => a.answer === k).length;
  const confirmed = count('abort') + count('link');
  const removed = count('ignore');
  const missed = count('missed');
  return {
    confirmed,
    removed,
    missed,
    precision: confirmed + removed ? confirmed / (confirmed + removed) : null,
    recall: confirmed + missed ? confirmed / (confirmed + missed) : null,
  };
}

/**
 * The scale a score was given on: the method, and for the calibrated score its calibration version,
 * and the project's own line when one scored the tracker's reports (`/project-line@<id>`).
 */
export function answerScale(config: { scoring: { method: string } }, projectLine: string | null = null): string {
  if (config.scoring.method !== 'calibrated') return config.scoring.method;
  return `calibrated@${calibrationVersion()}${projectLine ? `/project-line@${projectLine}` : ''}`;
}

/** The scale a score given now in this project is on: the project's own line, when one is in use there, is part of it. */
export function projectScale(config: { scoring: { method: string } }, root: string): string {
  return answerScale(config, readProjectLine(root).line?.id ?? null);
}

/** The project line a check's method names (`…+project-line@<id>`), or null. */
export const lineOfMethod = (method: string): string | null => /\+project-line@(\w+)/.exec(method)?.[1] ?? null;

/**
 * Whether an answer was given on this scale, under the method's name then or now.
 * Given the answer's past work, an answer on an earlier calibration counts too where the model that scored that
 * work is unchanged since (a refit of the trackers' model leaves a markdown project's labels on their scale).
 */
export function sameScale(kept: string | undefined, scale: string, filePath?: string): boolean {
  if (kept === undefined) return false;
  // The project's line scores a tracker's reports only: for them it is part of the scale, for anything else it is not.
  const [keptBase, keptLine = ''] = kept.split('/project-line@');
  const [base, line = ''] = scale.split('/project-line@');
  if (keptLine !== line && (filePath === undefined || isTrackerReport(filePath))) return false;
  return sameBaseScale(keptBase, base, filePath);
}

function sameBaseScale(kept: string, scale: string, filePath?: string): boolean {
  // Answers kept before a method was renamed say its first name (`hybrid@<version>`, `standout`).
  const k = kept === 'standout' ? 'fused' : kept.replace(/^hybrid@/, 'calibrated@');
  if (kept === scale || k === scale) return true;
  const then = /^calibrated@(\w+)$/.exec(k)?.[1];
  return Boolean(
    then && filePath !== undefined && scale === `calibrated@${calibrationVersion()}` && sameModelAs(then, filePath),
  );
}

/** The Ignore answers for this brief, by matched path (every path of the match's work counts). */
export function dismissedFor(answers: Answer[], briefSha256: string): Map<string, Answer> {
  const out = new Map<string, Answer>();
  for (const a of answers) if (a.briefSha256 === briefSha256 && a.answer === 'ignore') out.set(a.filePath, a);
  return out;
}

/** Split alerts into those still to raise and those this brief's user dismissed before. */
export function withoutDismissed(
  alerts: HistoryMatch[],
  dismissed: Map<string, Answer>,
): { raise: HistoryMatch[]; dismissed: Array<{ match: HistoryMatch; answer: Answer }> } {
  const raise: HistoryMatch[] = [];
  const gone: Array<{ match: HistoryMatch; answer: Answer }> = [];
  for (const m of alerts) {
    const a = matchPaths(m)
      .map((p) => dismissed.get(p))
      .find((x) => x !== undefined);
    if (a) gone.push({ match: m, answer: a });
    else raise.push(m);
  }
  return { raise, dismissed: gone };
}
