import path from 'node:path';
import { decodeText } from '../corpus/read.js';
import { extractMetadata } from '../corpus/metadata.js';
import type { DocStatus } from '../corpus/types.js';
import { UsageError } from '../../shared/errors.js';
import { BoundedReadError, readRegularFile } from '../../shared/fsutil/bounded-read.js';
import type { StoredDoc, VectorIndex } from '../index/types.js';
import { nearestDocuments } from './history.js';
import { rescore, type Scoring } from '../scoring/rank.js';
import type { HistoryMatch } from '../scoring/match.js';
import { namedStandards, type Citations } from '../corpus/citations.js';

/** A brief's context: one ADR, standard or document attached to it, retrieved, cited, or given by hand (`--context <file>`). */
export interface StandardContext {
  filePath: string;
  title: string;
  section: string;
  /** null where nobody scored it: manual context, or a standard the brief names that retrieval did not reach. */
  score: number | null;
  snippet: string;
  status: DocStatus | null;
  /**
   * manual: `--context FILE`; cited: the brief names it (corpus/citations.ts); retrieved: the rule below
   * found it; successor: it superseded an attached standard (`supersedes`, withSuccessors).
   */
  source: 'manual' | 'cited' | 'retrieved' | 'standout' | 'successor';
  /** A successor's: the path of the standard it superseded. */
  supersedes?: string;
}

export interface StandardsRule {
  candidates: number;
  threshold: number;
  k: number;
}

/**
 * The ADRs and standards that stand far above the project's other ADRs and standards for a brief:
 * attached even under the line (`source: standout`). The governs score has no evidence relative to the
 * other candidates, and a brief that proposes node-fetch scores 0.50 and 0.48 on Backstage's two ADRs
 * about fetching, 0.05 on the next (a user trial, 2026-11-27). The top group (at most `group`) is
 * attached when its last member scores at least `floor` and `ratio` times the next ADR or standard
 * among the `window` best candidates; with none after it in view, the lowest score in a full view
 * stands in (the next one scores no more), and 0 when the view holds every candidate. A project with
 * fewer than `minStandards` ADRs and standards has nothing to stand out from. Designs are not in it:
 * they are judged as past work (retrieveStandards).
 */
export const STANDOUT = { floor: 0.3, ratio: 4, group: 2, window: 10, minStandards: 3 };

export function standingOut<T extends { documentType: string; score: number }>(
  view: readonly T[],
  standards: number,
): T[] {
  if (standards < STANDOUT.minStandards) return [];
  const ranked = view.filter((m) => !isDesign(m)).sort((a, b) => b.score - a.score);
  const beyond = view.length >= STANDOUT.window ? Math.min(...view.map((m) => m.score)) : 0;
  for (let i = 0; i < Math.min(STANDOUT.group, ranked.length); i++) {
    // Far above the next: a probability near zero (0.01 at least) is no reference to stand out from by a ratio.
    const next = Math.max(ranked[i + 1]?.score ?? beyond, 0.01);
    if (ranked[i].score >= STANDOUT.floor && ranked[i].score >= STANDOUT.ratio * next) return ranked.slice(0, i + 1);
  }
  return [];
}

/** ADRs and standards in the index: what one may stand out from. */
export function standardCount(index: VectorIndex): number {
  return (index.documents?.('standard') ?? []).filter((d) => !isDesign(d)).length;
}

/**
 * The standards check's rule: ask for `candidates` standards, keep those scoring at
 * least `threshold`, take the best `k`. One entry per document (its best section).
 * The ADRs and standards the brief names (`cited`, standardsNamedIn) come first,
 * whatever their score and not counted against `k`: the author said they govern.
 *
 * A standard that is also past work (a finished design indexed as history too)
 * is kept only when `relatedWork` holds it: the history check placed it at or
 * above the related line. The governs score has no evidence relative to the
 * other candidates, so over many designs one of them clears its line by chance:
 * with every Aletheia design indexed (59), 50% of another project's briefs got
 * one attached, against 0.7% from ADRs and standards alone (docs/scoring.md).
 * The history score is placed for the project's size; the design is judged as
 * past work, where it is past work.
 */
export function retrieveStandards(
  index: VectorIndex,
  briefVectors: Float32Array[],
  rule: StandardsRule,
  scoring?: Scoring,
  relatedWork?: ReadonlySet<string>,
  cited: readonly string[] = [],
): StandardContext[] {
  // A wider look than `candidates` for what stands out (STANDOUT); the line is applied to the best `candidates` as before.
  const calibrated = scoring?.method === 'calibrated';
  const wide = scoring
    ? rescore(
        index,
        briefVectors,
        calibrated ? Math.max(rule.candidates, STANDOUT.window) : rule.candidates,
        'standard',
        scoring,
      )
    : nearestDocuments(index, briefVectors, rule.candidates, 'standard');
  const nearest = wide.slice(0, rule.candidates);
  // A design or issue also indexed as history (ADRs and standards are never gated, whatever globs match them).
  const pastWork = (m: { filePath: string; documentType: string }) =>
    isDesign(m) && (index.doc?.(m.filePath)?.types.includes('history') ?? true);
  const named = new Set(cited);
  const scored = new Map(nearest.map((m) => [m.filePath, m]));
  // What the brief names comes first and is not counted against `k`: the author said it governs.
  const own = [...named]
    .flatMap((p): StandardContext[] => {
      const m = scored.get(p);
      if (m)
        return [
          {
            filePath: p,
            title: m.title,
            section: m.section,
            score: m.score,
            snippet: snippetOf(m),
            status: m.status,
            source: 'cited',
          },
        ];
      const d = index.doc?.(p);
      return d ? [unscored(d, 'cited')] : [];
    })
    .slice(0, MAX_CITED);
  const attached = new Set(own.map((s) => s.filePath));
  const standout = new Set(calibrated ? standingOut(wide, standardCount(index)).map((m) => m.filePath) : []);
  const overLine = (m: HistoryMatch) =>
    nearest.includes(m) && m.score >= rule.threshold && (!relatedWork || !pastWork(m) || relatedWork.has(m.filePath));
  const kept = wide.filter((m) => !attached.has(m.filePath) && (overLine(m) || standout.has(m.filePath)));
  // The best `candidates` by score, then the line, then ADRs/standards before designs: a design above
  // the line is never cut for an ADR below it.
  return [
    ...own,
    ...standardsOrder(kept)
      .slice(0, rule.k)
      .map((m) => ({
        filePath: m.filePath,
        title: m.title,
        section: m.section,
        score: m.score,
        snippet: snippetOf(m),
        status: m.status,
        source: overLine(m) ? ('retrieved' as const) : ('standout' as const),
      })),
  ];
}

/**
 * A superseded standard brings the one that superseded it, and that one's successor in turn:
 * the decision in force is what the work must follow, and re-litigating it is what this tool
 * is for. The successor is read from the status reason: the file its link points to (adr-tools:
 * "Superceded by [3. Use Redis Streams](0003-use-redis-streams.md)"), else an ADR it names
 * ("Superseded by ADR-0009"), else the longest title of another standard found in it.
 * Each successor says which document it supersedes, so a list reordered or filtered later
 * (a manual `--context` copy, a design shown as past work) still reads right.
 */
export function withSuccessors(index: VectorIndex, items: StandardContext[]): StandardContext[] {
  if (!items.some((s) => s.status === 'superseded')) return items;
  const docs = (index.documents?.('standard') ?? []).filter(
    (d) => d.documentType === 'adr' || d.documentType === 'standard',
  );
  const listed = new Set(items.map((s) => s.filePath));
  const out: StandardContext[] = [];
  for (const item of items) {
    out.push(item);
    let s = item;
    for (let step = 0; step < MAX_CHAIN && s.status === 'superseded'; step++) {
      const next = successorOf(s.filePath, index.doc?.(s.filePath)?.statusReason ?? null, docs);
      const d = next && !listed.has(next) ? index.doc?.(next) : undefined;
      if (!d) break;
      listed.add(d.filePath);
      s = { ...unscored(d, 'successor'), supersedes: s.filePath };
      out.push(s);
    }
  }
  return out;
}
/** A standard attached for what was said of it, not for a score: its metadata stands in for a passage. */
function unscored(d: StoredDoc, source: 'cited' | 'successor'): StandardContext {
  return {
    filePath: d.filePath,
    title: d.title,
    section: d.title,
    score: null,
    snippet: d.summary,
    status: d.status,
    source,
  };
}

/** Steps followed along a chain of supersessions (2 by 3 by 4 …). */
const MAX_CHAIN = 5;
/** A title this long, found in a status reason, names that document ("Use Redis" would name too many). */
const MIN_TITLE_MATCH = 12;

function successorOf(self: string, reason: string | null, docs: StoredDoc[]): string | null {
  if (!reason) return null;
  const others = docs.filter((d) => d.filePath !== self);
  const targets = [...reason.matchAll(/\(([^()\s]+\.md)(?:#[^()\s]*)?\)/gi)].map((m) => m[1]).join(' ');
  const byFile = targets ? namedStandards(targets, others)[0] : undefined;
  if (byFile) return byFile;
  const byNumber = namedStandards(reason, others)[0];
  if (byNumber) return byNumber;
  const lower = ` ${reason.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ')} `;
  const byTitle = others
    .filter(
      (d) =>
        d.title.length >= MIN_TITLE_MATCH &&
        lower.includes(
          ` ${d.title
            .toLowerCase()
            .replace(/[^\p{L}\p{N}]+/gu, ' ')
            .trim()} `,
        ),
    )
    .sort((a, b) => b.title.length - a.title.length)[0];
  return byTitle?.filePath ?? null;
}

/**
 * The passage that matched, unless it says nothing: the first section of an ADR in
 * Nygard's template is its date and "Accepted" ("Date: 2024-04-11 Accepted"), and the
 * document's summary (its Context, corpus/metadata.ts) tells the reader more.
 */
export function snippetOf(m: { excerpt: string; summary: string }): string {
  // Only a document's own bookkeeping goes: "Decision: PostgreSQL." or "timeout: 30s" is content.
  const rest = m.excerpt
    .replace(/\b(?:date|status|authors?|deciders?|owners?|created|updated|last[ -]updated|id|tags?)\s*:\s*\S+/gi, ' ')
    .replace(/\b(?:accepted|proposed|approved|draft|status|deprecated|superseded|rejected|done)\b/gi, ' ');
  return !/\p{L}{2,}/u.test(rest) && m.summary ? m.summary : m.excerpt;
}

/** A brief that names more than this many standards is a list of them, not a brief: the first ones are attached. */
export const MAX_CITED = 5;

/** The ADRs and standards of the index that the brief names (its citations, read once: check/parsed-brief.ts). */
export function standardsNamedIn(index: VectorIndex, cited: Citations): string[] {
  const docs = index.documents?.('standard') ?? [];
  return docs.length ? namedStandards(cited, docs) : [];
}

/**
 * ADRs and standards before finished designs: a design is also past work
 * (the history check shows it), while the decisions that govern a brief are
 * what only this section brings. Measured on markdown-dev, designs otherwise
 * took the first places and pushed the governing ADR to 4th-9th.
 */
export function standardsOrder<T extends { documentType: string; score: number }>(matches: T[]): T[] {
  return [...matches].sort((a, b) => Number(isDesign(a)) - Number(isDesign(b)) || b.score - a.score);
}

/** A finished design or an issue: past work, not a decision. */
export const isDesign = (m: { documentType: string }) => m.documentType === 'lld' || m.documentType === 'issue';

/** Manual context comes first and wins: a retrieved document with the same path is dropped. */
export function mergeContext(manual: StandardContext[], retrieved: StandardContext[]): StandardContext[] {
  const seen = new Set(manual.map((m) => m.filePath));
  const out = [...manual];
  for (const r of retrieved) {
    if (!seen.has(r.filePath)) {
      seen.add(r.filePath);
      out.push(r);
    }
  }
  return out;
}

/** Read `--context FILE` documents; an unreadable one is a usage error naming it. */
export async function readManualContext(files: string[], cwd: string, root: string): Promise<StandardContext[]> {
  const out: StandardContext[] = [];
  for (const f of files) {
    const abs = path.resolve(cwd, f);
    let buf: Buffer;
    try {
      buf = await readRegularFile(abs, 1024 * 1024);
    } catch (e) {
      if (e instanceof BoundedReadError) throw new UsageError(`${f}: cannot read context file: ${e.reason}`);
      throw new UsageError(
        `${f}: cannot read context file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      );
    }
    const decoded = decodeText(buf, 1024 * 1024);
    if (!decoded.ok) throw new UsageError(`${f}: cannot use context file: ${decoded.reason}`);
    const rel = path.relative(root, abs);
    const filePath = rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel.split(path.sep).join('/');
    const { metadata } = extractMetadata(filePath, decoded.text, ['standard'], decoded.hash);
    out.push({
      filePath,
      title: metadata.title,
      section: metadata.title,
      score: null,
      snippet: metadata.summary,
      status: metadata.status,
      source: 'manual',
    });
  }
  return out;
}
