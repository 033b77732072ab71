/**
 * Completed work from an issue tracker's export: the GitHub CLI's own JSON
 * (`gh issue list --json …`, `gh pr list --json …`: one array) or JSON lines from
 * any other tracker (`{id, title, body, url, closed, resolution, duplicate_of}`).
 * Everything here is outside input: a record that does not fit is skipped and
 * named (file and item or line), never half-read; a file that is not an export
 * at all is an error naming it.
 */
import { relatedOf } from '../corpus/relations.js';
import { sha256 } from '../corpus/read.js';
import { UsageError } from '../../shared/errors.js';
import type { DocMetadata } from '../corpus/types.js';
import type { DuplicatePair, SourceDoc } from './types.js';
import { notWorkTitle } from './git-work.js';

/** A configured export that cannot be read as one: bad input, exit 2; the index is left as it was. */
export class TrackerFileError extends UsageError {}

export interface TrackerRead {
  docs: SourceDoc[];
  /** Reports closed as duplicates of a known one: labelled pairs for calibration. */
  duplicates: DuplicatePair[];
  /** Records skipped, each named: `file: line 3: no title`. */
  warnings: string[];
  /** Closed but not completed (not planned, won't fix, duplicate): not work. */
  notCompleted: number;
}

const MAX_BODY_CHARS = 20_000;
const MAX_TITLE_CHARS = 200;
const COMPLETED = new Set(['', 'completed', 'fixed', 'done', 'resolved', 'implemented', 'merged', 'closed']);
const DUPLICATE = new Set(['duplicate', 'duplicated']);

type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Read one export file's text (`name` is how errors name it). */
export function readTrackerExport(name: string, text: string): TrackerRead {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (trimmed === '') return { docs: [], duplicates: [], warnings: [`${name}: empty export`], notCompleted: 0 };
  if (trimmed.startsWith('[')) {
    let items: unknown;
    try {
      items = JSON.parse(trimmed);
    } catch (e) {
      throw new TrackerFileError(`${name}: not valid JSON (${(e as Error).message})`);
    }
    if (!Array.isArray(items)) throw new TrackerFileError(`${name}: expected a JSON array of issues or pull requests`);
    return readRecords(
      name,
      items.map((v, i) => ({ where: `item ${i + 1}`, value: v })),
      'github',
    );
  }
  const records: Array<{ where: string; value: unknown }> = [];
  const warnings: string[] = [];
  trimmed.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      records.push({ where: `line ${i + 1}`, value: JSON.parse(line) });
    } catch {
      warnings.push(`${name}: line ${i + 1}: not valid JSON; skipped`);
    }
  });
  if (records.length === 0 && warnings.length > 0)
    throw new TrackerFileError(
      `${name}: no line is a JSON object (expected JSON lines of {id, title, body, closed, resolution})`,
    );
  const read = readRecords(name, records, 'tracker');
  return { ...read, warnings: [...warnings, ...read.warnings] };
}

function readRecords(
  name: string,
  records: Array<{ where: string; value: unknown }>,
  source: 'github' | 'tracker',
): TrackerRead {
  const out: TrackerRead = { docs: [], duplicates: [], warnings: [], notCompleted: 0 };
  const seen = new Set<string>();
  for (const { where, value } of records) {
    const r = source === 'github' ? githubRecord(value) : linesRecord(value);
    if (typeof r === 'string') {
      out.warnings.push(`${name}: ${where}: ${r}; skipped`);
      continue;
    }
    if (seen.has(r.key)) {
      out.warnings.push(`${name}: ${where}: ${r.key} appears twice; the first is kept`);
      continue;
    }
    seen.add(r.key);
    if (r.duplicateOf) {
      const of = source === 'github' ? `github:issue/${r.duplicateOf}` : `tracker:${r.duplicateOf}`;
      out.duplicates.push({ key: r.key, title: r.title, text: render(r.title, r.body), of });
    }
    if (!r.completed) {
      out.notCompleted++;
      continue;
    }
    out.docs.push(toDoc(r, source));
  }
  return out;
}

interface Record_ {
  key: string;
  number: string;
  kind: 'issue' | 'pull-request';
  title: string;
  body: string;
  url: string | null;
  date: string | null;
  author: string | null;
  completed: boolean;
  closes: string[];
  files: string[];
  duplicateOf: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const login = (v: unknown): string | null => (isObject(v) ? (str(v.login) ?? str(v.name)) : null);
const date = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' && Number.isFinite(Date.parse(v)) && Math.abs(Date.parse(v)) < 8.64e15
    ? new Date(Date.parse(v)).toISOString()
    : null;
const webUrl = (v: unknown): string | null =>
  typeof v === 'string' && /^https?:\/\/[^\s@]+$/.test(v) && v.length <= 2048 ? v : null;

/** One item of `gh issue list --json …` or `gh pr list --json …`, or why it cannot be used. */
function githubRecord(v: unknown): Record_ | string {
  if (!isObject(v)) return 'not an object';
  const number = v.number;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number <= 0) return 'no issue number ("number")';
  const title = str(v.title)?.trim();
  if (!title) return 'no title';
  const body = v.body === undefined || v.body === null ? '' : str(v.body);
  if (body === null) return '"body" is not text';
  const isPull = 'mergedAt' in v || 'mergeCommit' in v || 'closingIssuesReferences' in v;
  const labels = Array.isArray(v.labels)
    ? v.labels.map((l) => (isObject(l) ? str(l.name) : str(l))).filter((l): l is string => !!l)
    : [];
  const labelled = (re: RegExp) => labels.some((l) => re.test(l));
  const reason = (str(v.stateReason) ?? '').toLowerCase().replace(/_/g, ' ');
  const state = (str(v.state) ?? '').toUpperCase();
  let completed: boolean;
  let when: string | null;
  const bot = isObject(v.author) && v.author.is_bot === true;
  if (isPull) {
    when = date(v.mergedAt);
    // A bot's pull request, a release or a dependency bump is not work (as for commits).
    completed = when !== null && !bot && notWorkTitle(title, login(v.author)) === null;
  } else {
    when = date(v.closedAt);
    const closed = when !== null || state === 'CLOSED';
    completed =
      closed &&
      (reason === '' || reason === 'completed') &&
      !labelled(/^(duplicate|wontfix|won't fix|invalid|not planned)$/i);
  }
  // An issue of another repository (`Fixes upstream/lib#19`) is not this repository's #19.
  const home = repositoryOf(str(v.url));
  const ownRepository = (r: Record<string, unknown>) => {
    const there = repositoryOf(str(r.url));
    return home === null || there === null || there === home;
  };
  const closes = Array.isArray(v.closingIssuesReferences)
    ? v.closingIssuesReferences
        .map((r) =>
          isObject(r) && typeof r.number === 'number' && Number.isSafeInteger(r.number) && ownRepository(r)
            ? String(r.number)
            : null,
        )
        .filter((n): n is string => n !== null)
    : [];
  const files = Array.isArray(v.files)
    ? v.files.map((f) => (isObject(f) ? str(f.path) : null)).filter((p): p is string => !!p)
    : [];
  const dup =
    /^duplicate$/.test(reason) || labelled(/^duplicate$/i) ? (/\bduplicate of #(\d+)/i.exec(body)?.[1] ?? null) : null;
  return {
    key: `github:${isPull ? 'pull' : 'issue'}/${number}`,
    number: String(number),
    kind: isPull ? 'pull-request' : 'issue',
    title: title.slice(0, MAX_TITLE_CHARS),
    body: body.slice(0, MAX_BODY_CHARS),
    url: webUrl(v.url),
    date: when,
    author: login(v.author),
    completed,
    closes,
    files,
    duplicateOf: dup,
  };
}

/** `owner/name` of a GitHub issue or pull request address, lower-cased; null when it is not one. */
function repositoryOf(url: string | null): string | null {
  const m = url
    ? /^https:\/\/[^/\s]{1,200}\/([^/\s]{1,100}\/[^/\s]{1,100})\/(?:issues|pull)\/\d{1,9}$/i.exec(url)
    : null;
  return m ? m[1].toLowerCase() : null;
}

/** One JSON line of another tracker's export: {id, title, body, url, closed, resolution, duplicate_of}. */
function linesRecord(v: unknown): Record_ | string {
  if (!isObject(v)) return 'not a JSON object';
  const id = typeof v.id === 'number' && Number.isFinite(v.id) ? String(v.id) : str(v.id)?.trim();
  if (!id || !/^[\w.#/-]{1,64}$/.test(id)) return 'no usable "id" (letters, digits and . _ - # /, at most 64)';
  const title = str(v.title)?.trim();
  if (!title) return 'no title';
  const body = v.body === undefined || v.body === null ? '' : str(v.body);
  if (body === null) return '"body" is not text';
  if (v.resolution !== undefined && v.resolution !== null && typeof v.resolution !== 'string')
    return '"resolution" is not text';
  const resolution = (str(v.resolution) ?? '').trim().toLowerCase().replace(/[_-]+/g, ' ');
  const closedDate = date(v.closed);
  const closed = v.closed === true || closedDate !== null;
  if (v.closed !== undefined && v.closed !== null && typeof v.closed !== 'boolean' && closedDate === null)
    return '"closed" is neither a date nor true/false';
  const dupRaw = v.duplicate_of;
  const duplicateOf =
    typeof dupRaw === 'number' && Number.isFinite(dupRaw) ? String(dupRaw) : (str(dupRaw)?.trim() ?? null);
  if (duplicateOf !== null && !/^[\w.#/-]{1,64}$/.test(duplicateOf)) return '"duplicate_of" is not an id';
  return {
    key: `tracker:${id}`,
    number: id,
    kind: 'issue',
    title: title.slice(0, MAX_TITLE_CHARS),
    body: body.slice(0, MAX_BODY_CHARS),
    url: webUrl(v.url),
    date: closedDate,
    author: null,
    completed: closed && COMPLETED.has(resolution) && duplicateOf === null,
    closes: [],
    files: [],
    duplicateOf: DUPLICATE.has(resolution) || duplicateOf !== null ? duplicateOf : null,
  };
}

const render = (title: string, body: string) => `# ${title}\n\n${body.trim()}\n`;

function toDoc(r: Record_, source: 'github' | 'tracker'): SourceDoc {
  const text = render(r.title, r.body);
  const metadata: DocMetadata & { origin: NonNullable<DocMetadata['origin']> } = {
    filePath: r.key,
    types: ['history'],
    documentType: 'issue',
    issueId: r.kind === 'pull-request' ? (r.closes[0] ?? r.number) : r.number,
    title: r.title,
    summary: (r.body.trim() || r.title).replace(/\s+/g, ' ').slice(0, 300),
    status: 'done',
    statusReason: null,
    contentHash: sha256(text),
    ...relatedOf(r.body, r.kind === 'pull-request' ? (r.closes[0] ?? r.number) : r.number),
    origin: {
      source,
      kind: r.kind,
      ref: r.number,
      pullRequest: r.kind === 'pull-request' ? r.number : null,
      closes: r.closes,
      url: r.url,
      files: r.files.slice(0, 50),
      fileCount: r.files.length,
      date: r.date,
      author: r.author,
    },
  };
  return { text, metadata };
}
