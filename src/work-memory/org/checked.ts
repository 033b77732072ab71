/**
 * The team store is other people's input (issue 30): one person's careless or
 * hostile row must fail alone, be named, and never change anybody else's check.
 * Each document fetched for a check is checked whole here before it can be
 * scored: its metadata has the shape the index writes, every vector has the
 * model's dimension and unit length (a vector scaled by 50 would out-score every
 * real match), every count is a non-negative integer. A document that fails is
 * dropped with one line saying which and why.
 */
import type { CorpusType, DocMetadata, DocStatus, DocumentType } from '../corpus/types.js';
import { MAX_TITLE_CHARS } from '../corpus/heading.js';
import { checkedOrigin } from '../sources/types.js';

/** How far from unit length a stored vector may be: float4 rounding is ~1e-6; a real embedder normalises to 1e-3. */
export const UNIT_TOLERANCE = 0.01;

const DOC_TYPES: ReadonlySet<string> = new Set<DocumentType>(['issue', 'lld', 'standard', 'adr']);
const STATUSES: ReadonlySet<string> = new Set<DocStatus>([
  'done',
  'accepted',
  'rejected',
  'superseded',
  'deprecated',
  'proposed',
  'open',
]);
const CORPUS_TYPES: ReadonlySet<string> = new Set<CorpusType>(['history', 'standard']);
const MAX_SUMMARY_CHARS = 2000;

export interface RawDocRow {
  repository: string;
  path: string;
  types: unknown;
  metadata: unknown;
  lexical_len: unknown;
}

const isString = (v: unknown, max: number): v is string => typeof v === 'string' && v.length <= max;
const nullableString = (v: unknown, max: number) => v === null || v === undefined || isString(v, max);

/** The row's metadata as the index writes it, or why not. Optional fields the index may omit default as it would. */
export function checkedMetadata(row: RawDocRow): { metadata: DocMetadata } | { problem: string } {
  const types = row.types;
  if (!Array.isArray(types) || types.length === 0 || !types.every((t) => CORPUS_TYPES.has(t as string)))
    return { problem: 'types is not a list of history/standard' };
  const m = row.metadata;
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return { problem: 'metadata is not an object' };
  const o = m as Record<string, unknown>;
  if (typeof o.title !== 'string' || o.title.trim() === '') return { problem: 'metadata has no title' };
  if (!DOC_TYPES.has(o.documentType as string)) return { problem: 'metadata has no known documentType' };
  if (!nullableString(o.issueId, 64)) return { problem: 'metadata issueId is not text' };
  if (o.summary !== undefined && typeof o.summary !== 'string') return { problem: 'metadata summary is not text' };
  if (o.status !== undefined && o.status !== null && !STATUSES.has(o.status as string))
    return { problem: 'metadata status is not a known status' };
  if (!nullableString(o.statusReason, MAX_SUMMARY_CHARS)) return { problem: 'metadata statusReason is not text' };
  if (
    o.related !== undefined &&
    !(Array.isArray(o.related) && o.related.length <= 200 && o.related.every((x) => isString(x, 16)))
  )
    return { problem: 'metadata related is not a list of ids' };
  if (o.ownIssue !== undefined && !(typeof o.ownIssue === 'string' && /^[1-9]\d{0,6}$/.test(o.ownIssue)))
    return { problem: 'metadata ownIssue is not an issue number' };
  const origin = checkedOrigin(o.origin);
  const metadata: DocMetadata = {
    filePath: row.path,
    types: types as CorpusType[],
    documentType: o.documentType as DocumentType,
    issueId: (o.issueId as string | null | undefined) ?? null,
    // Cut as the local index cuts what it reads: a megabyte title is someone's mistake, not a reason to fail.
    title: o.title.slice(0, MAX_TITLE_CHARS),
    summary: ((o.summary as string | undefined) ?? '').slice(0, MAX_SUMMARY_CHARS),
    status: (o.status as DocStatus | null | undefined) ?? null,
    statusReason: (o.statusReason as string | null | undefined) ?? null,
    contentHash: typeof o.contentHash === 'string' ? o.contentHash.slice(0, 128) : '',
    ...(Array.isArray(o.related) && o.related.length ? { related: o.related as string[] } : {}),
    ...(typeof o.ownIssue === 'string' ? { ownIssue: o.ownIssue } : {}),
    ...(origin ? { origin } : {}),
  };
  return { metadata };
}

/** A non-negative safe integer (a count, a length), else null. */
export function count(v: unknown): number | null {
  const n = typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/** Why a stored vector cannot be compared with the brief's, or null when it can. */
export function vectorProblem(v: Float32Array, dimensions: number): string | null {
  if (v.length !== dimensions) return `a vector of ${v.length} values, not ${dimensions}`;
  let norm = 0;
  for (let i = 0; i < v.length; i++) {
    if (!Number.isFinite(v[i])) return 'a vector with a value that is not a number';
    norm += v[i] * v[i];
  }
  norm = Math.sqrt(norm);
  return Math.abs(norm - 1) > UNIT_TOLERANCE ? `a vector of length ${norm.toFixed(2)}, not 1` : null;
}
