/**
 * Run a labelled set (sets.ts): build each project as a real scratch project
 * (files, config globs, the real index), ask every brief through the check's
 * own scoring, and keep per-brief results with every candidate's features
 * and label (the input of scripts/fit-calibration.mjs).
 */
import { parseBrief, type ParsedBrief } from '../check/parsed-brief.js';
import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { UsageError } from '../../shared/errors.js';
import path from 'node:path';
import { checkHistory, embedBriefChunks } from '../check/history.js';
import { matchPaths } from '../scoring/match.js';
import { isDesign, STANDOUT, standardCount, standardsNamedIn } from '../check/standards.js';
import { scoringFor } from '../check/run.js';
import type { Config } from '../../shared/config/schema.js';
import type { Embedder } from '../embeddings/embedder.js';
import { buildIndex, type ModelIdentity } from '../index/build.js';
import { openIndex, type HnswIndex } from '../index/hnsw-index.js';
import { openLexical, type LexicalData } from '../lexical/file.js';
import type { Features } from '../scoring/features.js';
import { rescore, type Scoring } from '../scoring/rank.js';
import { briefPlace } from '../scoring/filing.js';
import { literalGlob } from '../corpus/glob-counts.js';
import { CachingEmbedder } from './cache.js';
import type { QueryResult } from './metrics.js';
import type { EvalCase, EvalProject } from './sets.js';

/** Candidates kept per brief for offline refits. */
const CANDIDATES = 30;
const NEAREST = 10;
/** Standards kept per brief: as many as the standards check looks at for what stands out (check/standards.ts STANDOUT). */
const STANDARD_CANDIDATES = STANDOUT.window;
const SLICE = 64;

export interface Candidate {
  path: string;
  /** 1: the same work (history) or a governing standard (standards); 0: not. */
  label: 0 | 1;
  score: number;
  features: Features | null;
  /** For the standards check's order (designs after ADRs and standards). */
  documentType?: string;
  /** Standards only, for one that is also past work: did the history check place it at or above the related line? (check/standards.ts) */
  relatedWork?: boolean;
  /** Its same-work score as the history check ranked it (null: not among the history check's nearest). */
  historyScore?: number | null;
  /** Standards only: the brief names it, the how-many-th (attached first in that order, whatever its score; corpus/citations.ts). Score 0 and no features when retrieval did not reach it. */
  cited?: number;
  /** A named standard retrieval did not reach: added for the cited rule, no candidate of the retrieved list. */
  unreached?: boolean;
}

export interface CaseResult extends QueryResult {
  project: string;
  kind: string;
  group: string;
  /** Paths of every expected document. */
  targets: string[];
  /** Every path of the top match (an issue and its design are one match). */
  topPaths: string[];
  /** Doc paths "related" is right for. */
  relatedPaths: string[];
  history: Candidate[];
  /** `standardDocs`: the ADRs and standards the project holds (what one may stand out from; check/standards.ts STANDOUT). */
  standards?: { governing: string[]; candidates: Candidate[]; crossProject?: boolean; standardDocs?: number };
}

export interface SetRunOptions {
  projects: EvalProject[];
  /** Scratch folder: one project folder each, and the embedding cache. */
  work: string;
  config: Config;
  model: ModelIdentity;
  loadEmbedder: () => Promise<Embedder>;
  /** Also ask each project's briefs against the other projects' standards (unrelated briefs). */
  crossStandards?: boolean;
  onProgress?: (msg: string) => void;
}

export interface SetRun {
  results: CaseResult[];
  timings: { buildMs: number; embedMs: number; queryMs: number };
  indexed: number;
}

/** Where a tracker set's reports are written as an export (sources.trackers). */
const TRACKER_EXPORT = 'tracker-export.jsonl';

interface Built {
  project: EvalProject;
  root: string;
  index: HnswIndex;
  lexical: LexicalData;
  pathOf: Map<string, string>;
}

export async function runSet(o: SetRunOptions): Promise<SetRun> {
  let embedder: CachingEmbedder | null = null;
  const load = async () =>
    (embedder ??= new CachingEmbedder(
      await o.loadEmbedder(),
      path.join(o.work, `embeddings-${o.model.modelFingerprint}.bin`),
    ));
  const timings = { buildMs: 0, embedMs: 0, queryMs: 0 };
  const built: Built[] = [];
  for (const p of o.projects) {
    const t0 = performance.now();
    built.push(await buildProject(p, o, load));
    timings.buildMs += performance.now() - t0;
  }
  // Embed every brief's chunks in large batches first (cached), then ask one by one.
  const e = await load();
  const t1 = performance.now();
  await embedAll(
    o.projects.flatMap((p) => p.cases.map((c) => c.text)),
    e,
    o.onProgress,
  );
  timings.embedMs = performance.now() - t1;
  const results: CaseResult[] = [];
  const t2 = performance.now();
  for (const b of built) {
    o.onProgress?.(`asking ${b.project.cases.length} briefs of ${b.project.name} (${b.project.docs.length} documents)`);
    for (const c of b.project.cases) results.push(await ask(b, c, e, o.config));
  }
  if (o.crossStandards) {
    for (const b of built) {
      if (b.index.docCount('standard') === 0) continue;
      for (const other of built) {
        if (other === b) continue;
        for (const c of other.project.cases.filter((x) => x.kind !== 'design_cites_standard')) {
          const brief = parseBrief(c.text, { whole: true });
          const r = askStandards(b, c, { brief, ...(await embedBriefChunks(brief, e)) }, o.config, []);
          results.push({
            ...emptyResult(`${c.id}@${b.project.name}`, b.project.name, 'cross_project', c.group),
            standards: { governing: [], candidates: r, crossProject: true, standardDocs: standardCount(b.index) },
          });
        }
      }
    }
  }
  timings.queryMs = performance.now() - t2;
  return { results, timings, indexed: o.projects.reduce((n, p) => n + p.docs.length, 0) };
}

async function buildProject(p: EvalProject, o: SetRunOptions, load: () => Promise<Embedder>): Promise<Built> {
  const root = path.join(o.work, safeName(p.name), 'project');
  await rm(root, { recursive: true, force: true });
  const pathOf = new Map<string, string>();
  const records = p.docs.filter((d) => d.record);
  if (records.length) {
    // The tracker's export, one JSON line per closed report: ids must be what the export reader accepts.
    const lines = records.map((d) =>
      JSON.stringify({ id: d.id, title: d.record!.title, body: d.record!.body, closed: true }),
    );
    await mkdir(root, { recursive: true });
    await writeFile(path.join(root, TRACKER_EXPORT), lines.join('\n') + '\n');
    for (const d of records) pathOf.set(d.id, `tracker:${d.id}`);
  }
  for (const d of p.docs) {
    if (d.record) continue;
    const target = path.resolve(root, d.relPath);
    // A labelled set is input: its paths must stay inside the scratch project.
    if (path.isAbsolute(d.relPath) || !target.startsWith(root + path.sep))
      throw new UsageError(`${p.name}: document ${d.id} has a path outside the project (${d.relPath})`);
    pathOf.set(d.id, d.relPath);
    await mkdir(path.join(root, path.dirname(d.relPath)), { recursive: true });
    await writeFile(path.join(root, d.relPath), d.text);
  }
  const config: Config = {
    ...o.config,
    corpus: {
      ...o.config.corpus,
      history: p.docs.filter((d) => !d.record && d.types.includes('history')).map((d) => literalGlob(d.relPath)),
      standards: p.docs.filter((d) => !d.record && d.types.includes('standard')).map((d) => literalGlob(d.relPath)),
      exclude: [],
    },
    sources: {
      ...o.config.sources,
      git: { ...o.config.sources.git, enabled: false },
      github: false,
      trackers: records.length ? [TRACKER_EXPORT] : [],
    },
  };
  o.onProgress?.(`indexing ${p.name}: ${p.docs.length} documents`);
  const report = await buildIndex({
    root,
    config,
    includeHistory: true,
    full: true,
    model: o.model,
    loadEmbedder: load,
    lockWaitMs: 0,
  });
  const index = await openIndex(root);
  // A measurement over documents the index skipped measures nothing: say which, with the build's reason.
  const missing = p.docs.filter((d) => !index.doc(pathOf.get(d.id)!));
  if (missing.length) {
    const first = missing[0];
    // A file says why in `skipped`; a report of the export on the line the eval wrote it.
    const line = first.record ? records.indexOf(first) + 1 : 0;
    const why = first.record
      ? report.warnings.find((w) => w.startsWith(`${TRACKER_EXPORT}: line ${line}:`))
      : report.skipped.find((x) => x.relPath === first.relPath)?.reason;
    throw new UsageError(
      `${p.name}: ${missing.length} of ${p.docs.length} documents were not indexed (first: ${first.id}: ${why ?? 'no reason given'})`,
    );
  }
  return { project: p, root, index, lexical: openLexical(root), pathOf };
}

/** A folder name for a project: its name made safe, never `.`/`..`, and distinct per name (a short hash). */
function safeName(name: string): string {
  const base = name.replace(/[^\w.-]+/g, '-').replace(/^\.+/, '_') || '_';
  return `${base}-${createHash('sha1').update(name).digest('hex').slice(0, 6)}`;
}

async function embedAll(briefs: string[], e: Embedder, onProgress?: (m: string) => void): Promise<void> {
  const texts: string[] = [];
  const collector: Embedder = {
    modelId: e.modelId,
    modelFingerprint: e.modelFingerprint,
    dimensions: e.dimensions,
    maxTokens: e.maxTokens,
    countTokens: (t: string) => e.countTokens(t),
    embed: async (ts: string[]) => (texts.push(...ts), ts.map(() => new Float32Array(e.dimensions))),
  };
  for (const b of briefs) await embedBriefChunks(parseBrief(b, { whole: true }), collector);
  for (let i = 0; i < texts.length; i += SLICE) {
    await e.embed(texts.slice(i, i + SLICE));
    if (i % (SLICE * 10) === 0) onProgress?.(`embedding briefs ${i}/${texts.length}`);
  }
}

/** A case's result before anything is ranked: no target, nothing found (tests build on it too). */
export function emptyResult(id: string, project: string, kind: string, group: string): CaseResult {
  return {
    id,
    project,
    kind,
    group,
    target: null,
    top: 0,
    topPath: null,
    targetRank: null,
    targetScore: null,
    ms: 0,
    targets: [],
    topPaths: [],
    relatedPaths: [],
    history: [],
  };
}

function caseScoring(b: Built, c: EvalCase, brief: ParsedBrief, chunks: string[], config: Config): Scoring {
  const excluded = new Set(c.exclude.map((id) => b.pathOf.get(id)).filter((p): p is string => !!p));
  const filed = c.reportId !== undefined ? briefPlace('tracker', c.reportId) : null;
  return {
    ...scoringFor(config, brief, { lexical: b.lexical, chunks, model: true, filed }),
    exclude: excluded.size ? (p) => excluded.has(p) : undefined,
    wholeText: 'all',
  };
}

/** A brief as `eval --save` asks it: its candidates kept whole, so a refit does not start from what the shipped score chose. */
function savedScoring(b: Built, c: EvalCase, brief: ParsedBrief, chunks: string[], config: Config): Scoring {
  return { ...caseScoring(b, c, brief, chunks, config), keepAll: true };
}

async function ask(b: Built, c: EvalCase, e: Embedder, config: Config): Promise<CaseResult> {
  // Read once, as the product reads a brief; whole, as the eval always asked (its briefs are under the check's limit).
  const brief = parseBrief(c.text, { whole: true });
  const { texts, vectors } = await embedBriefChunks(brief, e);
  const s0 = performance.now();
  const scoring = savedScoring(b, c, brief, texts, config);
  const { nearest: all } = checkHistory(b.index, vectors, CANDIDATES, config.thresholds, scoring);
  const ms = performance.now() - s0;
  const targets = c.expected.map((id) => b.pathOf.get(id)).filter((p): p is string => !!p);
  const targetSet = new Set(targets);
  const hits = (m: { filePath: string; paths?: string[] }) => matchPaths(m).some((p) => targetSet.has(p));
  const nearest = all.slice(0, NEAREST);
  const rank = targets.length ? nearest.findIndex(hits) : -1;
  const top = nearest[0];
  const target = targets.length ? (rank >= 0 ? nearest[rank].filePath : targets[0]) : null;
  const governing = c.governing.map((id) => b.pathOf.get(id)).filter((p): p is string => !!p);
  return {
    id: c.id,
    project: b.project.name,
    kind: c.kind,
    group: c.group,
    target,
    targets,
    top: top?.score ?? 0,
    // A hit on any document of the expected work counts as the target (run-history does the same).
    topPath: top ? (hits(top) ? target : top.filePath) : null,
    topPaths: top ? matchPaths(top) : [],
    relatedPaths: c.related.map((id) => b.pathOf.get(id)).filter((p): p is string => !!p),
    targetRank: rank >= 0 ? rank + 1 : null,
    targetScore: rank >= 0 ? nearest[rank].score : null,
    ms,
    history: all.map((m) => ({
      path: m.filePath,
      label: hits(m) ? 1 : 0,
      score: m.score,
      features: m.components?.features ?? null,
    })),
    standards:
      b.index.docCount('standard') > 0
        ? {
            governing,
            candidates: askStandards(b, c, { brief, texts, vectors }, config, governing),
            standardDocs: standardCount(b.index),
          }
        : undefined,
  };
}

/** The standards check's candidates for a brief already read and embedded (ask). */
function askStandards(
  b: Built,
  c: EvalCase,
  asked: { brief: ParsedBrief; texts: string[]; vectors: Float32Array[] },
  config: Config,
  governing: string[],
): Candidate[] {
  const { brief, texts, vectors } = asked;
  const gov = new Set(governing);
  const scoring = caseScoring(b, c, brief, texts, config);
  // Every candidate the retrievers propose at the product's depth, not only the best by today's governs score: what
  // a refit reads is then the same whatever calibration ran the eval (the metrics take the best, as the product).
  const found = rescore(b.index, vectors, STANDARD_CANDIDATES, 'standard', savedScoring(b, c, brief, texts, config));
  // As the product: a standard that is also past work counts only where the history check places it as related (check/standards.ts).
  const history = checkHistory(b.index, vectors, config.history.k, config.thresholds, scoring);
  const related = new Set(history.matches.flatMap(matchPaths));
  const historyScore = new Map(history.nearest.flatMap((m) => matchPaths(m).map((p) => [p, m.score] as const)));
  const named = new Map(standardsNamedIn(b.index, brief.citations).map((p, i) => [p, i] as const));
  const out: Candidate[] = found.map((m) => ({
    path: m.filePath,
    label: gov.has(m.filePath) ? 1 : 0,
    score: m.score,
    features: m.components?.features ?? null,
    documentType: m.documentType,
    ...(isDesign(m) && b.index.doc?.(m.filePath)?.types.includes('history')
      ? { relatedWork: related.has(m.filePath), historyScore: historyScore.get(m.filePath) ?? null }
      : {}),
    ...(named.has(m.filePath) ? { cited: named.get(m.filePath) } : {}),
  }));
  const reached = new Set(found.map((m) => m.filePath));
  for (const [p, i] of named) {
    if (!reached.has(p))
      out.push({
        path: p,
        label: gov.has(p) ? 1 : 0,
        score: 0,
        features: null,
        documentType: b.index.doc?.(p)?.documentType,
        cited: i,
        unreached: true,
      });
  }
  return out;
}
