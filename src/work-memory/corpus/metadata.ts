import path from 'node:path';
import { splitFrontmatter } from './frontmatter.js';
import { normalizeText } from './read.js';
import { trimEndSet } from '../../shared/text/linear.js';
import type { CorpusType, DocMetadata, DocStatus, DocumentType } from './types.js';
import { declaredIssueId, relatedOf, statedIssueId } from './relations.js';
import { firstH1, MAX_TITLE_CHARS } from './heading.js';

export interface ExtractedMetadata {
  metadata: DocMetadata;
  /** The text without frontmatter, ready for chunking. */
  body: string;
  warnings: string[];
}

const SUMMARY_CHARS = 300;
/**
 * The rules below that read a document's issue id, title, status and relations. Bump it when
 * they change: the next `agentos index` reads the metadata of unchanged files again
 * (without embedding them). 2: an id declared in the header (`* **Issue:** #116`).
 * 3: the issue a document states as its own (`ownIssue`); relation phrases such as "port of", "sub-task of".
 * 4: a `## Status` section (Nygard's template, adr-tools), adr-tools' "Superceded by" with its link's file.
 * 5: Bugzilla's references as relations ("clone of Bug #12", "regressed by bug 12", "See also bug 12").
 * 6: "superseded by [ADR014](./adr014-use-fetch.md)" as a link; frontmatter that is not YAML read as plain `key: value` lines.
 */
export const METADATA_VERSION = 6;

/** Everything we show about a past document, derived from its path and text. */
export function extractMetadata(
  relPath: string,
  text: string,
  types: CorpusType[],
  contentHash: string,
): ExtractedMetadata {
  const warnings: string[] = [];
  // Callers normally pass normalized text; CRLF here would hide the frontmatter and status lines.
  const fm = splitFrontmatter(normalizeText(text));
  if (fm.error) warnings.push(`${relPath}: ${fm.error}`);
  // A tool's wrapper header ("# LLD Finalized / Path: … / Status: …") is not the document: the title is the real H1.
  const body = stripWrapperHeader(fm.body).body;
  const h1 = firstH1(body); // at most MAX_TITLE_CHARS: the id patterns below never see a megabyte
  const documentType = documentTypeOf(relPath, types);

  // ADRs and standards are numbered in their own series (ADR-0004 is not issue #4):
  // only an explicit frontmatter id links them to an issue.
  const isStanding = documentType === 'standard' || documentType === 'adr';
  // The header field is read before a tool's wrapper header is stripped: `Issue: #116` may sit in it.
  const issueId = isStanding
    ? extractIssueId(relPath, fm.data, null, true)
    : extractIssueId(relPath, fm.data, h1, false, fm.body);
  if (issueId === null && documentType !== 'standard' && documentType !== 'adr') {
    warnings.push(`${relPath}: no issue id found (frontmatter, file or folder name, or H1); indexed without one`);
  }
  const fmTitle = stringField(fm.data.title);
  const title = truncate(
    fmTitle ?? (h1 ? cleanTitle(h1) : null) ?? path.basename(relPath, path.extname(relPath)),
    MAX_TITLE_CHARS,
  );
  const { status, reason } = extractStatus(fm.data, fm.body);
  const related = isStanding ? {} : relatedOf(body, issueId);
  const ownIssue = isStanding ? null : statedIssueId(fm.data, h1, fm.body);

  return {
    metadata: {
      filePath: relPath,
      types: [...types].sort(),
      documentType,
      issueId,
      title,
      summary: extractSummary(body),
      status,
      statusReason: reason,
      contentHash,
      ...related,
      ...(ownIssue ? { ownIssue } : {}),
    },
    body,
    warnings,
  };
}

function stringField(v: unknown): string | null {
  if (typeof v === 'string' && v.trim() !== '') return v.trim();
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

/**
 * Order: frontmatter `issue_id` (or `issue`); a number leading the parent folder
 * (`91-rag/001-issue.md`); the issue the text's own header declares
 * (`* **Issue:** #116`, see declaredIssueId); a number in the file name
 * (`012-issue.md`, `LLD-088.md`) unless it is a sequence file inside an issue
 * folder (`001-issue.md`); the H1. The declared issue goes before the file
 * number because file numbers are often a series of their own: Aletheia names
 * the design of issue #116 `10116-linkedin-oauth.md`, and the issues that cite
 * it say #116.
 */
export function extractIssueId(
  relPath: string,
  data: Record<string, unknown>,
  h1: string | null,
  frontmatterOnly = false,
  body: string | null = null,
): string | null {
  for (const key of ['issue_id', 'issue']) {
    const v = stringField(data[key])?.slice(0, 64);
    if (v) {
      // `(\d+)` then leading zeros dropped: `0*(\d+)$` backtracks quadratically on a run of zeros.
      const m = /^#?\s*(\d+)$/.exec(v);
      return m ? m[1].replace(/^0+(?=\d)/, '') : v.replace(/^#/, '');
    }
  }
  if (frontmatterOnly) return null;
  const parts = relPath.split('/');
  const file = parts[parts.length - 1];
  const parent = parts.length > 1 ? parts[parts.length - 2] : '';
  const dirNum = /^0*(\d+)(?:[-_ .]|$)/.exec(parent);
  if (dirNum) return dirNum[1];
  const declared = body === null ? null : declaredIssueId(body);
  if (declared) return declared;
  const stem = file.replace(/\.[^.]+$/, '');
  const isSequenceFile = /^0*1-(issue|brief)$/i.test(stem);
  if (!isSequenceFile) {
    const fileNum = /(?:^|[^0-9A-Za-z]|[A-Za-z]-)0*(\d+)(?=$|[-_ .])/.exec(stem) ?? /^0*(\d+)/.exec(stem);
    if (fileNum) return fileNum[1];
  }
  if (h1) {
    const m = /(?:^|\s)(?:issue\s*)?#\s*0*(\d+)\b/i.exec(h1) ?? /^0*(\d+)\s*[-:.—–]\s/.exec(h1);
    if (m) return m[1];
  }
  return null;
}

/** Strip a leading `Issue #91:`, `#91 -`, or `91 - ` from a heading. */
export function cleanTitle(h1: string): string {
  const t = h1
    .replace(/^(?:issue\s*)?#\s*\d+\s*[:.\-—–]?\s*/i, '')
    .replace(/^\d+\s*[:.\-—–]\s*/, '')
    .replace(/^(?:feature|bug|chore|task)\s*:\s*/i, '')
    .trim();
  return t || h1;
}

export function documentTypeOf(relPath: string, types: CorpusType[]): DocumentType {
  const lower = relPath.toLowerCase();
  if (/(^|\/)(adrs?|decisions)\//.test(lower)) return 'adr';
  if (/(^|\/)llds?\//.test(lower) || /(^|\/)lld[-_]/.test(lower)) return 'lld';
  if (/(^|\/)standards?\//.test(lower)) return 'standard';
  return types.includes('history') ? 'issue' : 'standard';
}

const STATUS_WORDS: Array<[RegExp, DocStatus]> = [
  [/^(rejected|declined|won'?t ?do|wontfix)/i, 'rejected'],
  [/^super[sc]eded/i, 'superseded'], // adr-tools writes 'Superceded by'
  [/^deprecated/i, 'deprecated'],
  [/^(done|completed?|closed|resolved|implemented|merged|shipped|finished)/i, 'done'],
  [/^(accepted|approved)/i, 'accepted'],
  [/^(proposed|draft|in review)/i, 'proposed'],
  [/^(open|in progress|active)/i, 'open'],
];

function statusFromWord(word: string): DocStatus | null {
  for (const [re, s] of STATUS_WORDS) if (re.test(word.trim())) return s;
  return null;
}

// Link text and target stop at the next bracket/parenthesis: `[^\]]*` rescanned the rest of the line from every `[` (200,000 `[` took 85 s).
const stripMd = (s: string) =>
  s
    .replace(/\*\*|__|`/g, '')
    .replace(/\[([^[\]]*)\]\([^()]*\)/g, '$1')
    .trim();

/**
 * "Superseded by ADR-9", "superseded by #12", or by a link to another record as Backstage's notes say it ("This ADR
 * has been superseded by [ADR014](./adr014-use-fetch.md)"): the link is kept, so the successor is its file
 * (standards.ts). A link to anything but a markdown file ("superseded by [the platform fetch](https://…)") is not a
 * record. Each part bounded: a long line of brackets is read once.
 */
const SUPERSEDED_BY =
  /\bsuper[sc]eded\s+by\s+(\[[^[\]\n|]{1,120}\]\([^()\s]{1,300}?\.md(?:#[^()\s]{0,100})?\)|[A-Z]+-?\d+|#\d+)/i;

/** The sentence that says so, not a template's list of the statuses one may choose (MADR: `[proposed | … | superseded by [ADR-0005](…)]`). */
function supersededBy(text: string): string | null {
  const m = SUPERSEDED_BY.exec(text);
  if (!m) return null;
  const line = text.slice(text.lastIndexOf('\n', m.index) + 1, m.index);
  return /\[[^\]]*\|/.test(line) ? null : m[1];
}

/**
 * Status from frontmatter or a `Status: ...` line near the top (also as a
 * list item or table row). A rejection or supersession is what later users
 * must see, so the reason is kept when the text gives one.
 */
export function extractStatus(
  data: Record<string, unknown>,
  body: string,
): { status: DocStatus | null; reason: string | null } {
  const lines = body.split('\n');
  let status: DocStatus | null = null;
  let rest = '';
  const fmStatus = stringField(data.status);
  if (fmStatus) {
    status = statusFromWord(fmStatus);
    rest = fmStatus.replace(/^\S+\s*/, '');
  }
  if (!status) {
    for (const raw of lines.slice(0, 60)) {
      // Markdown first: `**Status:**` must not lose its first `*` as a list bullet.
      const line = stripMd(raw).replace(/^\s*[-*>|]\s*/, '');
      const m = /^status\s*[:|]\s*(.+)$/i.exec(line);
      if (m) {
        const value = trimEndSet(m[1], '|'); // a table row's closing pipe
        status = statusFromWord(value);
        rest = value.replace(/^[A-Za-z' ]+?(?=$|[—–:;,.(-]|\s(?:by|in favou?r|because|due)\b)/i, '');
        if (status) break;
      }
    }
  }
  if (!status) {
    const section = statusSection(lines);
    if (section) ({ status, rest } = section);
  }
  if (!status) {
    const sup = supersededBy(body.slice(0, 3000));
    if (sup) return { status: 'superseded', reason: `Superseded by ${sup}` };
  }
  let reason = status ? cleanReason(rest) : null;
  if (status === 'rejected' && !reason) reason = findRejectionReason(lines);
  if (status === 'superseded' && !reason) {
    const sup = supersededBy(body);
    if (sup) reason = `Superseded by ${sup}`;
  }
  return { status, reason };
}

/**
 * A `## Status` section (Nygard's template, adr-tools, log4brains), or `## Status: Accepted`:
 * its first line of text is the status when it is a status word standing alone ("Accepted",
 * "Done: shipped in 2.3", "Superceded by [3. Use Kafka](0003-use-kafka.md)"), not a sentence
 * ("Rejected alternatives: see below"). adr-tools adds "Superceded by" beside the "Accepted"
 * it means to replace, so that line, later in the section, wins.
 */
function statusSection(lines: string[]): { status: DocStatus; rest: string } | null {
  let at = -1;
  let inline = '';
  for (let i = 0; i < Math.min(lines.length, 80); i++) {
    // One run of blanks and colons, then the rest: linear on a 1 MB line (two runs around an optional `:` were quadratic).
    const m = /^#{2,4}[ \t]+status(?![\w])[ \t:]*(.*)$/i.exec(lines[i]);
    if (m) {
      at = i;
      inline = m[1];
      break;
    }
  }
  if (at < 0) return null;
  const section: string[] = [];
  for (const raw of lines.slice(at + 1, at + 16)) {
    if (/^#{1,6}\s/.test(raw)) break;
    section.push(raw);
  }
  // A link keeps its target: "Superceded by 3. Use Kafka (0003-use-kafka.md)" names the file that supersedes it.
  const text = [inline, ...section]
    .map((l) =>
      stripMd(l.replace(/\[([^[\]]*)\]\(([^()]*)\)/g, '$1 ($2)'))
        .replace(/^\s*[-*>]\s*/, '')
        .trim(),
    )
    .filter(Boolean);
  const superseded = text.slice(1).find((l) => /^super[sc]eded\s+by\b/i.test(l));
  return standingAlone(superseded ?? text[0] ?? '');
}

/** "Accepted", "Done: shipped", "Superseded by ADR-9": a status word, then nothing, punctuation or its reason. Not "Rejected alternatives …". */
function standingAlone(line: string): { status: DocStatus; rest: string } | null {
  const m = /^(won'?t ?do|in progress|in review|[a-z]+)(.*)$/i.exec(line);
  if (!m || !/^(?:$|\s*[—–:;,.(-]|\s+(?:by|in favou?r|because|due)\b)/i.test(m[2])) return null;
  const status = statusFromWord(m[1]);
  return status ? { status, rest: m[2] } : null;
}

function cleanReason(rest: string): string | null {
  const r = trimEndSet(stripMd(rest).replace(/^[\s—–:;,.()-]+/, ''), '|');
  if (r.length < 4) return null;
  const sentence = /^by\b/i.test(r) ? `Superseded ${r}` : r;
  return truncate(sentence.charAt(0).toUpperCase() + sentence.slice(1), 240);
}

function findRejectionReason(lines: string[]): string | null {
  for (const raw of lines) {
    const line = stripMd(raw).replace(/^\s*[-*>]\s*/, '');
    const m =
      /^(?:rejection reason|reason(?: for rejection)?|rejected because|why (?:it was )?rejected|rejected)\s*[:—–-]\s*(.{8,})$/i.exec(
        line,
      );
    if (m) return truncate(m[1], 240);
  }
  // A section about the rejection/decision: its first paragraph.
  for (let i = 0; i < lines.length; i++) {
    // `\s` not `\s+` before `.*`: both could take the padding of `##` + 500,000 spaces (quadratic).
    if (/^#{2,3}\s.*(reject|why not|decision|outcome|resolution)/i.test(lines[i])) {
      const para = firstParagraph(lines, i + 1);
      if (para) return truncate(para, 240);
    }
  }
  return null;
}

const SUMMARY_HEADINGS =
  /^#{2,3}\s+(?:\d+(?:\.\d+)*\.?\s*)?(objective|summary|goal|context(?: & goal)?|problem|overview|user story|tl;?dr|abstract)\b/i;

/** The objective/summary section's first paragraph, else the first paragraph; about 300 chars. */
export function extractSummary(body: string): string {
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (SUMMARY_HEADINGS.test(lines[i])) {
      const para = firstParagraph(lines, i + 1);
      if (para) return truncate(para, SUMMARY_CHARS);
    }
  }
  return truncate(firstParagraph(lines, 0) ?? '', SUMMARY_CHARS);
}

/**
 * First run of prose lines from `lines[start]`: not a heading, list-of-metadata, table,
 * fence or status line. Takes the lines, not a joined slice: re-joining the rest of the
 * document for each of 10,000 headings was quadratic.
 */
function firstParagraph(lines: string[], start: number): string | null {
  const out: string[] = [];
  let inFence = false;
  let outChars = 0;
  for (let i = start; i < lines.length; i++) {
    const line = lines[i].trim();
    if (/^(```|~~~)/.test(line)) {
      inFence = !inFence;
      if (out.length) break;
      continue;
    }
    if (inFence) continue;
    if (line === '' || /^#/.test(line) || /^\|/.test(line) || /^<!--/.test(line) || /^---+$/.test(line)) {
      if (out.length) break;
      continue;
    }
    if (out.length === 0 && /^[-*]?\s*\**(status|date|author|owner|issue|labels?|deciders|priority)\**\s*:/i.test(line))
      continue;
    const piece = stripMd(line.replace(/^[-*]\s+/, '').slice(0, SUMMARY_CHARS * 4));
    out.push(piece);
    outChars += piece.length + 1;
    if (outChars > SUMMARY_CHARS * 2) break;
  }
  return out.length ? out.join(' ').replace(/\s+/g, ' ') : null;
}

export function truncate(s: string, n: number): string {
  if (s.length <= n) return s;
  const cut = s.slice(0, n - 1);
  const sp = cut.lastIndexOf(' ');
  return trimEndSet(sp > n * 0.6 ? cut.slice(0, sp) : cut, ',;:.') + '…';
}

/** `Key: value`, `**Key:** value`, `- Key: value`, `| Key | value |` — a metadata line of a wrapper header. */
const KEY_VALUE = /^\s*(?:[-*]\s+)?(?:\*\*|__)?[A-Za-z][\w .\-/]{0,40}?(?:\*\*|__)?\s*:(?:\*\*|__)?\s*\S/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;

/**
 * Some tools wrap a document in a header of their own: a first H1 ("LLD
 * Finalized"), key/value lines (Path:, Status:, Date:), then the document's
 * real H1. The wrapper's H1 is not the title. Returns the body from the real H1
 * on (the wrapper lines as `header`), or the body unchanged.
 */
export function stripWrapperHeader(body: string): { body: string; header: string | null } {
  const lines = body.split('\n');
  let i = 0;
  while (i < lines.length && lines[i].trim() === '') i++;
  if (i >= lines.length || !/^#\s+\S/.test(lines[i])) return { body, header: null };
  let keyValues = 0;
  for (let j = i + 1; j < lines.length; j++) {
    const line = lines[j];
    if (/^#\s+\S/.test(line)) {
      if (keyValues === 0) return { body, header: null };
      return { body: lines.slice(j).join('\n'), header: lines.slice(i, j).join('\n') };
    }
    if (line.trim() === '' || /^\s*(---+|\*\*\*+|___+)\s*$/.test(line)) continue;
    if (KEY_VALUE.test(line) || TABLE_ROW.test(line)) {
      keyValues++;
      continue;
    }
    return { body, header: null };
  }
  return { body, header: null };
}
