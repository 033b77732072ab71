/**
 * What the document index tells a new session, derived once per index
 * generation and cached in `.agentos/cache/knowledge.json`:
 * - completed work (history documents) with a date, newest first;
 * - topics: clusters of the history documents' vectors (src/knowledge/cluster.ts);
 * - the standards that apply most widely (nearest standard of the most history documents).
 *
 * The index is read without the model: CURRENT, manifest and meta.json, plus
 * the stored vectors through hnswlib only when the cache is stale. A session
 * start with a fresh cache reads two small files.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { splitFrontmatter } from '../work-memory/corpus/frontmatter.js';
import type { DocStatus, DocumentType } from '../work-memory/corpus/types.js';
import { openGeneration, readCurrent } from '../work-memory/index/hnsw-index.js';
import type { StoredDoc } from '../work-memory/index/types.js';
import { clusterVectors, normalize } from './cluster.js';
import { dot } from '../work-memory/embeddings/embedder.js';
import { writeCache } from '../shared/fsutil/cache-file.js';
import { compareText } from '../shared/text/compare.js';

export interface KnownDoc {
  path: string;
  id: string | null;
  title: string;
  status: DocStatus | null;
  statusReason: string | null;
  documentType: DocumentType;
  /** YYYY-MM-DD: frontmatter closed/completed/date/created, else a dated line near the top, else the file's mtime. */
  date: string | null;
  dateSource: 'frontmatter' | 'text' | 'mtime' | 'source' | null;
}

export interface Topic {
  label: string;
  /** Indices into `history`. */
  items: number[];
  cohesion: number;
  from: string | null;
  to: string | null;
}

export interface WideStandard extends KnownDoc {
  /** History documents whose nearest standard this is. */
  votes: number;
  meanScore: number;
}

export interface IndexKnowledge {
  generation: string;
  /** Newest first (undated last). */
  history: KnownDoc[];
  topics: Topic[];
  clusterThreshold: number | null;
  standards: WideStandard[];
}

const CACHE_VERSION = 3;
const DATE_KEYS = ['closed', 'completed', 'done', 'resolved', 'date', 'updated', 'created'];
/** "Closed 2023-10-06", "**Date:** 2024-01-19", "Opened 2023-06-15": completion words first. */
const BODY_DATES = [
  /\b(?:closed|completed|resolved|done|merged|shipped|finished|decided|accepted)\b[^0-9\n]{0,20}(\d{4}-\d{2}-\d{2})/i,
  /\b(?:date|updated)\b[^0-9\n]{0,20}(\d{4}-\d{2}-\d{2})/i,
  /\b(?:opened|created)\b[^0-9\n]{0,20}(\d{4}-\d{2}-\d{2})/i,
];

export function knowledgeCachePath(root: string): string {
  return path.join(root, '.agentos', 'cache', 'knowledge.json');
}

/** The index's knowledge, from cache when the generation is unchanged. Null when there is no index. */
export async function indexKnowledge(root: string): Promise<{ knowledge: IndexKnowledge; cached: boolean } | null> {
  const generation = readCurrent(root);
  if (!generation) return null;
  const file = knowledgeCachePath(root);
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as { version: number; knowledge: IndexKnowledge };
    if (c.version === CACHE_VERSION && c.knowledge.generation === generation)
      return { knowledge: c.knowledge, cached: true };
  } catch {
    /* stale or absent */
  }
  const knowledge = await computeKnowledge(root, generation);
  writeCache(file, { version: CACHE_VERSION, knowledge });
  return { knowledge, cached: false };
}

async function computeKnowledge(root: string, generation: string): Promise<IndexKnowledge> {
  // The generation as every reader opens it (checked; the base and the work appended since, delta.ts).
  const index = await openGeneration(root, generation);
  const { manifest, meta } = index;
  const historyDocs = meta.docs.filter((d) => d.types.includes('history') && d.labels.length > 0);
  const standardDocs = meta.docs.filter((d) => d.types.includes('standard') && d.labels.length > 0);
  const known = (d: StoredDoc): KnownDoc => {
    // Work from git or a tracker is dated by its merge, commit or close (it has no file).
    const date = d.origin
      ? { date: d.origin.date?.slice(0, 10) ?? null, dateSource: d.origin.date ? ('source' as const) : null }
      : docDate(root, d.filePath, manifest.files[d.filePath]?.mtimeMs);
    return {
      path: d.filePath,
      id: d.issueId,
      title: d.title,
      status: d.status,
      statusReason: d.statusReason,
      documentType: d.documentType,
      ...date,
    };
  };
  const history = historyDocs.map(known);
  const order = history
    .map((_, i) => i)
    .sort(
      (a, b) =>
        compareText(history[b].date ?? '', history[a].date ?? '') || compareText(history[a].path, history[b].path),
    );
  const sortedHistory = order.map((i) => history[i]);
  const sortedDocs = order.map((i) => historyDocs[i]);
  if (sortedDocs.length === 0) {
    const standards = standardDocs.map((d) => ({ ...known(d), votes: 0, meanScore: 0 }));
    return { generation, history: sortedHistory, topics: [], clusterThreshold: null, standards };
  }
  const centroid = (d: StoredDoc) => {
    const v = new Float64Array(manifest.dimensions);
    for (const label of d.labels) {
      const p = index.vector(label);
      for (let i = 0; i < v.length; i++) v[i] += p[i];
    }
    return normalize(v);
  };
  const hv = sortedDocs.map(centroid);
  const result = clusterVectors(hv);
  const topics = result.clusters.map((c) => {
    const dates = c.members
      .map((i) => sortedHistory[i].date)
      .filter((x): x is string => x !== null)
      .sort();
    return {
      label: sortedHistory[c.central].title,
      items: c.members,
      cohesion: c.cohesion,
      from: dates[0] ?? null,
      to: dates[dates.length - 1] ?? null,
    };
  });
  const standards = standardsInForce(standardDocs, sortedDocs, hv, centroid, known);
  return { generation, history: sortedHistory, topics, clusterThreshold: result.threshold, standards };
}

/** Standards still in force, by votes: the nearest one of each history document gets a vote. */
function standardsInForce(
  standardDocs: StoredDoc[],
  historyDocs: StoredDoc[],
  hv: Float64Array[],
  centroid: (d: StoredDoc) => Float64Array,
  known: (d: StoredDoc) => KnownDoc,
): WideStandard[] {
  const live = standardDocs.filter((d) => !['rejected', 'superseded', 'deprecated'].includes(d.status ?? ''));
  const sv = live.map(centroid);
  const votes = new Array<number>(live.length).fill(0);
  const sums = new Array<number>(live.length).fill(0);
  hv.forEach((h, hi) => {
    const self = historyDocs[hi];
    let b = -1;
    let bs = -Infinity;
    sv.forEach((s, j) => {
      // A design indexed as both types must not vote for itself, nor for its own issue's documents.
      if (live[j].filePath === self.filePath || (self.issueId !== null && live[j].issueId === self.issueId)) return;
      const x = dot(h, s);
      sums[j] += x;
      if (x > bs) {
        bs = x;
        b = j;
      }
    });
    if (b >= 0) votes[b]++;
  });
  return live
    .map((d, j) => ({ ...known(d), votes: votes[j], meanScore: sums[j] / hv.length }))
    .sort((a, b) => b.votes - a.votes || b.meanScore - a.meanScore || compareText(a.path, b.path));
}

/** A document's date: a frontmatter date field, else the indexed mtime. */
export function docDate(
  root: string,
  relPath: string,
  mtimeMs: number | undefined,
): { date: string | null; dateSource: KnownDoc['dateSource'] } {
  try {
    const head = readFileSync(path.join(root, relPath), 'utf8').slice(0, 8192);
    const { data } = splitFrontmatter(head);
    for (const key of DATE_KEYS) {
      const v = data[key];
      const s = v instanceof Date ? v.toISOString() : typeof v === 'string' ? v : null;
      const m = s ? /^(\d{4}-\d{2}-\d{2})/.exec(s.trim()) : null;
      if (m) return { date: m[1], dateSource: 'frontmatter' };
    }
    const body = head.split('\n').slice(0, 80).join('\n');
    for (const re of BODY_DATES) {
      const m = re.exec(body);
      if (m) return { date: m[1], dateSource: 'text' };
    }
  } catch {
    /* unreadable: fall back to mtime */
  }
  if (mtimeMs !== undefined) return { date: new Date(mtimeMs).toISOString().slice(0, 10), dateSource: 'mtime' };
  return { date: null, dateSource: null };
}
