import { CHANGE_WORDS_SECTION } from '../sources/types.js';
import type { CorpusType } from '../corpus/types.js';
import type { VectorIndex } from '../index/types.js';
import { lexicalTokens, type LexicalView } from '../lexical/file.js';
import { byScore, groupByWork, withExcerpt } from './group.js';
import { lexicalOnly } from './lexical-only.js';
import { stripTemplates } from '../lexical/templates.js';
import { nearestDocuments, toMatch, workKey, type HistoryMatch } from './match.js';
import { fuse, referenceOf, type ScoringMethod } from './fused.js';
import { computeFeatures, type TermWeights } from './features.js';
import type { Bm25Index } from '../lexical/bm25.js';
import { copyLeaders, titleKey } from './copies.js';
import type { LogisticModel } from './calibration-types.js';
import {
  calibratedScore,
  commitSameWorkModel,
  governsModel,
  sameWorkModel,
  trackerSameWorkModel,
  whyInWords,
} from './calibrated.js';
import { dot, meanVector } from '../embeddings/embedder.js';
import { nearestOtherWork } from './neighbours.js';
import { isOwnIssue, namesAsRelated, type BriefRelations } from '../corpus/relations.js';
import { placeOf, type FilingPlace } from './filing.js';

/** How the check scores: the method, the lexical index (null when absent) and the brief. */
export interface Scoring {
  method: ScoringMethod | 'lexical';
  lexical: LexicalView | null;
  briefText: string;
  /** The brief's chunk texts, parallel to its vectors (for briefExcerpt). */
  briefChunks?: string[];
  /** The brief's title (its H1 or first line), for the title feature. */
  briefTitle?: string;
  /** The brief's own issue id and the work it names as related (a sibling is never its copy). */
  briefRelations?: BriefRelations;
  /** The brief's place in its tracker's filing order when it is itself a report (`agentos ci`, evaluation); absent: a new brief (filing.ts). */
  briefFiled?: FilingPlace | null;
  /** The lines the calibrated score's semantic floors protect, per corpus type (config thresholds). */
  lines?: Partial<Record<CorpusType, { duplicate: number; related: number }>>;
  /** Documents never to return (leave-one-out evaluation excludes the brief's own work). */
  exclude?: (filePath: string) => boolean;
  /**
   * `all` (evaluation): read every candidate's whole text, not only those near the shipped related
   * floor, so that the features `eval --save` records, and a refit from them, do not depend on the
   * calibration that was shipped when they were measured.
   */
  wholeText?: 'all';
  /**
   * Evaluation: every candidate the two retrievers proposed, best first, not only the k best:
   * `eval --save` then keeps the rows a refit reads (the nearest by cosine and by lexical share)
   * whatever the shipped score made of them.
   */
  keepAll?: boolean;
  /** The project's own line for a tracker's reports (`agentos calibrate --write`, project-line.ts); absent: the shipped model. */
  trackerModel?: LogisticModel;
}

/** Documents scored per query before the best k are kept: both retrievers' top lists are merged. */
const CANDIDATES = 20;
/** Documents each retriever proposes for the k best (the org-scope check fetches as many from the team store). */
export function candidateDepth(k: number, s: Pick<Scoring, 'exclude'>): number {
  return Math.max(k * 2, CANDIDATES) + (s.exclude ? 4 : 0);
}

/** Documents the keyword fallback reads for the k best. */
export function lexicalOnlyDepth(k: number): number {
  return Math.max(k * 4, CANDIDATES) * 2;
}

/**
 * Score the union of the semantic and lexical candidates with the configured
 * method and keep the k best documents. Documents found only lexically get
 * their exact best-chunk cosine from the index.
 */
export function rescore(
  index: VectorIndex | null,
  allVectors: Float32Array[],
  k: number,
  type: CorpusType,
  s: Scoring,
): HistoryMatch[] {
  if (s.method === 'lexical' || !index) return lexicalOnly(index, k, lexicalOnlyDepth(k), type, s);
  const c = candidatesOf(index, allVectors, k, type, s);
  const ranked = (scored: HistoryMatch[]) => groupByWork(scored.sort(byScore)).slice(0, s.keepAll ? undefined : k);
  if (s.method === 'cosine') return ranked(c.parts.map(({ m, base }) => withExcerpt({ ...m, components: base }, s)));
  if (s.method === 'fused') {
    // The issue-11 score, kept to compare against: both parts relative to the brief's 4th-best candidate.
    const reference = referenceOf(c.parts.map(({ base }) => base));
    return ranked(
      c.parts.map(({ m, base }) =>
        withExcerpt({ ...m, score: fuse(base, 'calibrated', reference), components: { ...base, reference } }, s),
      ),
    );
  }
  return ranked(calibratedMatches(index, c, type, s));
}

/** A candidate and the parts every method reports: best-passage cosine, lexical share, shared rare terms. */
interface Part {
  m: HistoryMatch;
  base: { cosine: number; lexical: number; shared: string[] };
}

/** The brief's candidates (both retrievers' best), with what every method reads of them. */
interface Candidates {
  parts: Part[];
  /** The brief's informative chunk vectors, and its lexical tokens. */
  briefVectors: Float32Array[];
  tokens: string[];
}

function candidatesOf(
  index: VectorIndex,
  allVectors: Float32Array[],
  k: number,
  type: CorpusType,
  s: Scoring,
): Candidates {
  const kept = informativeChunks(allVectors, s);
  const briefVectors = kept.map((i) => allVectors[i]);
  const want = candidateDepth(k, s);
  const byPath = new Map(nearestDocuments(index, briefVectors, want, type).map((m) => [m.filePath, m]));
  const tokens = s.lexical ? lexicalTokens(s.briefText, s.lexical.templates) : [];
  if (s.lexical && index.scoreDoc) {
    for (const h of s.lexical.bm25.search(tokens, want)) {
      if (byPath.has(h.path)) continue;
      const hit = index.scoreDoc(h.path, briefVectors);
      if (hit && hit.doc.types.includes(type)) byPath.set(h.path, { ...toMatch(hit), briefChunk: hit.vectorIndex });
      if (byPath.size >= want * 2) break;
    }
  }
  const parts = [...byPath.values()]
    .filter((m) => !s.exclude?.(m.filePath))
    .map((m) => {
      const lex = s.lexical?.bm25.scoreDoc(tokens, m.filePath) ?? null;
      const base = { cosine: m.score, lexical: lex?.norm ?? 0, shared: lex?.shared ?? [] };
      // Back to the brief's own chunk numbering (briefExcerpt).
      return { m: m.briefChunk !== undefined ? { ...m, briefChunk: kept[m.briefChunk] } : m, base };
    });
  return { parts, briefVectors, tokens };
}

/**
 * The model a candidate is scored by. Work read from git and a tracker's reports have their own fits: a
 * brief covers a short commit's vocabulary easily, and bug reports are placed on their own lines (calibrated.ts).
 */
function modelOf(part: Part, type: CorpusType, s: Scoring): LogisticModel {
  if (type === 'standard') return governsModel();
  const origin = part.m.origin;
  if (type !== 'history' || !origin) return sameWorkModel();
  if (origin.source === 'git') return commitSameWorkModel();
  return origin.kind === 'issue' ? (s.trackerModel ?? trackerSameWorkModel()) : sameWorkModel();
}

/** The calibrated score of every candidate (calibrated.ts), with its features, contributions and why. */
function calibratedMatches(index: VectorIndex, c: Candidates, type: CorpusType, s: Scoring): HistoryMatch[] {
  const { parts } = c;
  const models = parts.map((p) => modelOf(p, type, s));
  // Each candidate is read whole down to its own model's related floor: a refit of the trackers' model
  // moves no markdown score (calibrate keeps a model's labels across versions only while that holds).
  const whole =
    s.wholeText === 'all'
      ? new Set(parts.map((_, i) => i))
      : wholeTextSet(
          parts.map(({ base }) => base),
          models.map((m) => m.floors.related - WHOLE_TEXT_MARGIN),
        );
  // The whole text is read back only where it can matter: a candidate under the related floor
  // cannot reach "related" whatever its other features, and its own cosine stands in.
  const docMeans = parts.map(({ m }, i) => (whole.has(i) ? (index.docMean?.(m.filePath) ?? null) : null));
  const works = worksOf(index, parts, docMeans);
  // A graph search per candidate, only where its model reads it (bug reports; eval: every past work).
  // Another repository's (org scope) is not searched: its repository's other work is not at hand.
  const wanted = (i: number) => type === 'history' && (s.wholeText === 'all' || readsNeighbours(models[i]));
  const nearest = parts.map(({ m }, i) => {
    const docMean = docMeans[i];
    return docMean && wanted(i) && !m.repository ? nearestOtherWork(index, type, m, docMean, s.exclude) : undefined;
  });
  const evidence = evidenceOf(index, c, type, s, { docMeans, works, nearest });
  const lines =
    s.lines?.[type] ?? (type === 'standard' ? { duplicate: 0.5, related: 0.5 } : { duplicate: 0.85, related: 0.5 });
  // Where a model reads the nearest other work and it was not read (the whole text not read, another
  // repository's document), it is not known: it reads as the fit's average document.
  evidence.forEach(({ features }, i) => {
    const weighed = models[i].features.neighbourGap;
    if (nearest[i] === undefined && weighed) features.neighbourGap = weighed.mean;
  });
  const explained = parts.map((_, i) => calibratedScore(models[i], evidence[i].features, lines));
  // Candidates whose whole text was not read (far under the related floor) stood in with their best
  // passage, which flatters them: they never rank above one that was scored on the whole evidence.
  const floorOfFull = Math.min(...explained.filter((_, i) => whole.has(i)).map((e) => e.score));
  return parts.map(({ m, base }, i) => {
    const { features, sharedIdentifiers } = evidence[i];
    const e = explained[i];
    // The line the brief's own issue was raised to rests on facts the stand-in does not flatter (its id, its best
    // passage): that much it keeps; anything above it came from the flattered features and is held like the rest.
    const score =
      whole.has(i) || !Number.isFinite(floorOfFull)
        ? e.score
        : Math.max(e.raisedTo, Math.min(e.score, floorOfFull * (1 - 1e-6)));
    const components = {
      ...base,
      features,
      contributions: e.contributions,
      probability: e.probability,
      cappedBy: e.cappedBy,
      raisedBy: e.raisedBy,
      sharedIdentifiers,
      // Which part of a commit matched: its message, or what its diff adds (docs lines, names: git-source.ts).
      why: [
        ...(m.section === CHANGE_WORDS_SECTION ? [CHANGE_WORDS_WHY] : []),
        ...whyInWords(e, features, sharedIdentifiers, models[i]),
      ].slice(0, 3),
    };
    return withExcerpt({ ...m, score, components }, s);
  });
}

/**
 * The piece of work each candidate belongs to. Another repository's copy of a candidate is the same work:
 * neither its competitor nor the brief's reference twice (copies.ts). A copy may rank below where whole
 * texts are read: another repository's candidate under a title another candidate has is read for this alone.
 */
function worksOf(index: VectorIndex, parts: Part[], docMeans: Array<Float32Array | null>): Works {
  const titles = parts.map(({ m }) => titleKey(m.title));
  const titled = new Map<string, number>();
  for (const t of titles) titled.set(t, (titled.get(t) ?? 0) + 1);
  const leaders = copyLeaders(
    parts.map(({ m }) => m),
    parts.map(
      ({ m }, i) =>
        docMeans[i] ??
        (m.repository && (titled.get(titles[i]) ?? 0) > 1 ? (index.docMean?.(m.filePath) ?? null) : null),
    ),
  );
  // A copy joins its leader's work (the leader keeps its own: an issue and its design stay one work).
  const copied = new Set(leaders.filter((l) => l >= 0));
  const groupKey = (l: number) => workKey(parts[l].m) ?? `copy:${parts[l].m.filePath}`;
  const workOf = (i: number) =>
    leaders[i] >= 0 ? groupKey(leaders[i]) : copied.has(i) ? groupKey(i) : workKey(parts[i].m);
  return { workOf, leaders };
}

/** Each candidate's piece of work, and for a copy the candidate it copies (copies.ts; -1: none). */
interface Works {
  workOf: (i: number) => string | null;
  leaders: number[];
}

/** The features of every candidate against the brief (features.ts). */
function evidenceOf(
  index: VectorIndex,
  c: Candidates,
  type: CorpusType,
  s: Scoring,
  read: {
    docMeans: Array<Float32Array | null>;
    works: Works;
    nearest: Array<number | null | undefined>;
  },
): ReturnType<typeof computeFeatures> {
  const mean = meanVector(c.briefVectors);
  const weighers = new Map<Bm25Index, TermWeights>();
  // A document weighed by another collection than the brief's (the org view: its own repository's statistics).
  const weightsFor = (path: string): TermWeights | undefined => {
    const bm25 = s.lexical?.bm25;
    const own = bm25?.weigherOf(path);
    if (!bm25 || !own || own === bm25) return undefined;
    let w = weighers.get(own);
    if (!w)
      weighers.set(
        own,
        (w = { idf: (t) => own.idf(t), df: (t) => own.docShare(t), idfSum: (p) => own.idfSum(p), stats: own }),
      );
    return w;
  };
  return computeFeatures(
    {
      briefTitle: s.briefTitle ?? '',
      briefTokens: c.tokens,
      corpusDocs: index.docCount?.(type) ?? index.count(type),
      briefFiled: s.briefFiled,
      idf: (t) => s.lexical?.bm25.idf(t) ?? 0,
      df: (t) => s.lexical?.bm25.docShare(t) ?? 1,
      idfSum: s.lexical ? (p) => s.lexical!.bm25.idfSum(p) : undefined,
      stats: s.lexical?.bm25,
    },
    c.parts.map(({ m, base }, i) => {
      const doc = index.doc?.(m.filePath);
      const docMean = read.docMeans[i];
      return {
        path: m.filePath,
        work: read.works.workOf(i),
        copy: read.works.leaders[i] >= 0,
        cosine: m.score,
        cosineMean: docMean ? dot(mean, docMean) : m.score,
        lexBrief: base.lexical,
        title: m.title,
        terms: s.lexical?.bm25.termsOf(m.filePath),
        weights: weightsFor(m.filePath),
        chunks: doc?.labels.length ?? 1,
        // Issue numbers name work in this repository only: another repository's #12 is not the #12 a brief cites.
        namedRelated:
          s.briefRelations && !m.repository
            ? namesAsRelated(s.briefRelations, { issueId: m.issueId, related: doc?.related })
            : false,
        nearestOther: read.nearest[i],
        filed: type === 'history' ? placeOf(m.origin ?? doc?.origin, m.repository) : null,
        // A standard governs by its rule, not by its issue: only past work is the brief's own issue.
        sameIssue:
          type === 'history' && s.briefRelations && !m.repository
            ? isOwnIssue(s.briefRelations, { ownIssue: doc?.ownIssue, origin: m.origin ?? doc?.origin })
            : false,
      };
    }),
  );
}

/** Said first when a commit's best passage is what its diff adds, not its message. */
const CHANGE_WORDS_WHY = 'matched what the change adds to its docs and code';

/** A model that weighs where a document's nearest other work lies (scoring/neighbours.ts). */
const readsNeighbours = (model: LogisticModel) => 'neighbourGap' in model.features;

/** Whole-text cosines are computed for candidates down to this far under the model's related floor... */
const WHOLE_TEXT_MARGIN = 0.05;
/** ...and among the best by passage cosine or by lexical share: the only ones that can lead (each read costs ~35 µs a chunk). */
const WHOLE_TEXT_TOP = { cosine: 12, lexical: 6 };

function wholeTextSet(c: Array<{ cosine: number; lexical: number }>, minCosine: number[]): Set<number> {
  const idx = c.map((_, i) => i).filter((i) => c[i].cosine >= minCosine[i]);
  const best = (key: 'cosine' | 'lexical', n: number) => [...idx].sort((a, b) => c[b][key] - c[a][key]).slice(0, n);
  return new Set([...best('cosine', WHOLE_TEXT_TOP.cosine), ...best('lexical', WHOLE_TEXT_TOP.lexical)]);
}

/** A brief chunk at least this share boilerplate of the corpus (quoted context files, issue templates) does not pair. */
export const TEMPLATE_CHUNK_SHARE = 0.5;

/**
 * The brief's chunk vectors without those made mostly of the corpus's
 * boilerplate: a pasted reference file every issue quotes would otherwise
 * pair at cosine 0.98 with every issue that quotes it. All of them when
 * nothing else is left. Returns the indexes of the chunks kept.
 */
export function informativeChunks(vectors: Float32Array[], s: Scoring): number[] {
  const all = vectors.map((_, i) => i);
  const templates = s.lexical?.templates;
  if (!templates || templates.hashes.size === 0 || !s.briefChunks || s.briefChunks.length !== vectors.length)
    return all;
  const keep = all.filter((i) => stripTemplates(s.briefChunks![i], templates).share < TEMPLATE_CHUNK_SHARE);
  return keep.length ? keep : all;
}
