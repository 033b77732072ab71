/**
 * The evidence that a past document is the same work as a new brief (issue 20).
 * Each feature is a plain number with an absolute meaning or a stated
 * reference; the calibrated model (calibrated.ts) weighs them. Which earn
 * their place was measured on the development sets (docs/scoring.md).
 */
import { tokenize } from '../lexical/tokenize.js';
import { PRIOR_REFERENCE, REF_RANK } from './fused.js';
import { filedNear, type FilingPlace } from './filing.js';

export const FEATURE_NAMES = [
  'cosine', // best (brief chunk, document chunk) MiniLM cosine: absolute semantic evidence
  'cosineMean', // cosine of the mean brief vector and the mean document vector: the texts as wholes
  'lexBrief', // BM25 share of the brief the document matches, in [0, 1]
  'lexDoc', // IDF-weighted share of the document's distinct terms the brief contains, in [0, 1]
  'title', // overlap (Dice) of the content words of the two titles, in [0, 1]
  'titleCover', // share of the document title's content words the brief uses anywhere (a standard named by its subject)
  'identifiers', // shared identifiers (`spotbugs-maven-plugin`, `4.1.46`, `LLD-193`) rare in the corpus, 3 = capped
  'standout', // cosine above the brief's 4th-best candidate (per-query reference)
  'gap', // cosine above the best OTHER candidate, or above GAP_REFERENCE_MIN if that is higher (negative when another scores higher)
  'corpusDocs', // log10 of the documents of this type in the index
  'briefTerms', // log10 of the brief's lexical tokens
  'docChunks', // log2 of the document's chunks (best-of-many-chunks inflates the cosine)
  'rareCover', // IDF-weighted share of the brief's most distinctive terms the document also has (what a sibling lacks: `529` against `429`)
  'docRareCover', // the same the other way: the document's most distinctive terms the brief also has
  'namedRelated', // 1 when either text names the other as related, prerequisite or followed-up work (corpus/relations.ts): a cap, not a weight
  'sameIssue', // 1 when the brief and the document state the same issue as their own (corpus/relations.ts isOwnIssue): a floor, not a weight
  'neighbourGap', // cosineMean less the document's nearest OTHER work's cosine to it, never measured from below NEIGHBOUR_REFERENCE_MIN (neighbours.ts)
  'filedNear', // how near the brief a tracker's report was filed among the candidates of its tracker, 1 the nearest (filing.ts): measured, not weighed (docs/scoring.md)
] as const;

export type FeatureName = (typeof FEATURE_NAMES)[number];
export type Features = Record<FeatureName, number>;

/** The brief's reference (the 4th-best candidate, and the prior with fewer): the fused score's own (fused.ts). */
export { REF_RANK } from './fused.js';
export const PRIOR_REFERENCE_COSINE = PRIOR_REFERENCE.cosine;
/** An identifier shared by more than this share of the corpus's documents says nothing about which work. */
const IDENTIFIER_MAX_DF = 0.05;
export const IDENTIFIER_CAP = 3;
/**
 * The gap is never measured from below this cosine: in a project of five
 * documents the next candidate is unrelated, and a moderate match would
 * "stand out" from it (issue 20's small-project false alerts). A typical
 * unrelated best neighbour of a brief is at 0.45-0.6 on the development sets.
 */
export const GAP_REFERENCE_MIN = 0.5;
/**
 * A document's nearest other work is never measured from below this cosine (as GAP_REFERENCE_MIN for
 * the brief's): in a project of five reports every report's nearest other is far, and that says the
 * project is small, not that the report stands out (read raw, false alerts at 5 reports rose from 4.7%
 * to 9.8%). It is about the nearest other of a typical report in a tracker of 800 (0.63 on dupes-dev):
 * a report counts as crowded only when its neighbour is nearer than that.
 */
export const NEIGHBOUR_REFERENCE_MIN = 0.6;
/** `filedNear` of a candidate with no place in a tracker's order, or none to compare with: the middle of the rank. */
export const FILED_NEAR_UNKNOWN = 0.5;

/** What the feature pass needs of one candidate. */
export interface CandidateEvidence {
  path?: string;
  /** The piece of work it belongs to (an issue and its design share one); null: its own. */
  work?: string | null;
  /** Another repository's copy of an earlier candidate (copies.ts): not counted again in the brief's reference. */
  copy?: boolean;
  cosine: number;
  cosineMean: number;
  lexBrief: number;
  title: string;
  terms: ReadonlyMap<string, number> | undefined;
  chunks: number;
  /** Either text names the other as related or prerequisite work. */
  namedRelated?: boolean;
  /** Both texts state the same issue as their own. */
  sameIssue?: boolean;
  /** The cosine of the document's nearest other piece of work to it (neighbours.ts); null: none; absent: not read. */
  nearestOther?: number | null;
  /** A tracker's report: where it stands in its tracker's filing order (filing.ts). */
  filed?: FilingPlace | null;
  /** How its own collection weighs terms, when not as the query's (the org view weighs each repository by its own). */
  weights?: TermWeights;
}

/** How a collection weighs terms: what every IDF-weighted feature reads. */
export interface TermWeights {
  /** IDF of a term in the corpus (0 when unseen). */
  idf(term: string): number;
  /** Share of the corpus's documents holding a term. */
  df(term: string): number;
  /** Sum of the IDF of a document's distinct terms, when the lexical index keeps it (else computed from `terms`). */
  idfSum?(path: string): number;
  /**
   * The object whose statistics `idf` and `df` read (the lexical index). Given, a document's
   * distinctive terms are kept per document for as long as it lives: they depend on the
   * document and those statistics only, and a long-lived server asks for them on every check.
   */
  stats?: object;
}

/** What the feature pass needs of the brief and the corpus (its weights: those of a candidate without its own). */
export interface QueryEvidence extends TermWeights {
  briefTitle: string;
  briefTokens: string[];
  corpusDocs: number;
  /** The brief's own place when it is itself a report (filing.ts); absent: a new brief, filed after everything. */
  briefFiled?: FilingPlace | null;
}

/** Documents' distinctive terms, per statistics object, per document's term map (both held weakly). */
const distinctiveMemo = new WeakMap<object, WeakMap<object, string[]>>();

function docDistinctive(terms: ReadonlyMap<string, number>, q: TermWeights): string[] {
  if (!q.stats) return distinctive(terms, q);
  let byDoc = distinctiveMemo.get(q.stats);
  if (!byDoc) distinctiveMemo.set(q.stats, (byDoc = new WeakMap()));
  let d = byDoc.get(terms);
  if (!d) byDoc.set(terms, (d = distinctive(terms, q)));
  return d;
}

/** Tokens that name a thing: separators or letters mixed with digits (the lexical tokenizer keeps them whole). */
export function looksLikeIdentifier(token: string): boolean {
  return /[._\-/:]/.test(token) || (/\p{L}/u.test(token) && /\p{N}/u.test(token));
}

const stem = (t: string) => (t.length > 3 && t.endsWith('s') && !t.endsWith('ss') ? t.slice(0, -1) : t);

/** Content words of a title, plural-insensitive ("sessions" meets "session", "tokens" meets "token"). */
export function titleWords(title: string): Set<string> {
  return new Set(
    tokenize(title)
      .filter((t) => t.length > 2 && !/^\d+$/.test(t) && !TITLE_NOISE.has(t) && !TITLE_NOISE.has(t.split(/[-_.:/]/)[0]))
      .map(stem),
  );
}

/** Words every ADR or design title carries: they say nothing about the subject. */
const TITLE_NOISE = new Set(['adr', 'lld', 'rfc', 'issue', 'design', 'standard', 'decision', 'feat', 'fix']);

/** Share of `words` present in `set`. */
function cover(words: Set<string>, set: Set<string>): number {
  if (words.size === 0) return 0;
  let n = 0;
  for (const w of words) if (set.has(w)) n++;
  return n / words.size;
}

export function dice(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  return (2 * shared) / (a.size + b.size);
}

/** Features of every candidate of one query (relative ones need all of them). */
export function computeFeatures(
  q: QueryEvidence,
  cands: CandidateEvidence[],
): Array<{ features: Features; sharedIdentifiers: string[] }> {
  const cosines = cands
    .filter((c) => !c.copy)
    .map((c) => c.cosine)
    .sort((a, b) => b - a);
  const reference = cosines.length > REF_RANK ? cosines[REF_RANK] : PRIOR_REFERENCE_COSINE;
  const briefSet = new Set(q.briefTokens);
  const briefStems = new Set([...briefSet].map(stem));
  const briefTitle = titleWords(q.briefTitle);
  const briefCounts = termCounts(q.briefTokens);
  // The brief's identifiers and distinctive terms, as each collection weighs them (one collection but in the org view).
  const briefBy = new Map<TermWeights, { ids: string[]; rare: string[] }>();
  const briefAs = (w: TermWeights) => {
    let b = briefBy.get(w);
    if (!b) {
      const ids = [...briefSet].filter((t) => looksLikeIdentifier(t) && w.df(t) <= IDENTIFIER_MAX_DF);
      briefBy.set(w, (b = { ids, rare: distinctive(briefCounts, w) }));
    }
    return b;
  };
  const near = filedNear(
    q.briefFiled ?? null,
    cands.map((c) => c.filed ?? null),
  );
  return cands.map((c, i) => {
    // The next candidate of ANOTHER piece of work: an issue and its own design are not competitors.
    let other = cands.length > 1 ? -Infinity : reference;
    cands.forEach((o, j) => {
      if (j !== i && (c.work == null || o.work !== c.work) && o.cosine > other) other = o.cosine;
    });
    if (other === -Infinity) other = reference;
    const bestOther = Math.max(GAP_REFERENCE_MIN, other);
    const w = c.weights ?? q;
    const { ids: briefIds, rare: briefRare } = briefAs(w);
    const shared = c.terms ? briefIds.filter((t) => c.terms!.has(t)) : [];
    return {
      features: {
        cosine: c.cosine,
        cosineMean: c.cosineMean,
        lexBrief: c.lexBrief,
        lexDoc: reverseShare(c, briefSet, w),
        title: dice(briefTitle, titleWords(c.title)),
        titleCover: cover(titleWords(c.title), briefStems),
        identifiers: Math.min(IDENTIFIER_CAP, shared.length),
        standout: c.cosine - reference,
        gap: c.cosine - bestOther,
        corpusDocs: Math.log10(Math.max(1, q.corpusDocs)),
        briefTerms: Math.log10(Math.max(1, q.briefTokens.length)),
        docChunks: Math.log2(Math.max(1, c.chunks)),
        rareCover: c.terms ? weightedCover(briefRare, c.terms, w) : 0,
        docRareCover: c.terms ? weightedCover(docDistinctive(c.terms, w), briefSet, w) : 0,
        namedRelated: c.namedRelated ? 1 : 0,
        sameIssue: c.sameIssue ? 1 : 0,
        neighbourGap: c.cosineMean - Math.max(NEIGHBOUR_REFERENCE_MIN, c.nearestOther ?? 0),
        filedNear: near[i] ?? FILED_NEAR_UNKNOWN,
      },
      sharedIdentifiers: shared.sort((a, b) => w.idf(b) - w.idf(a)).slice(0, 5),
    };
  });
}

/** How much of the document's distinct vocabulary (IDF-weighted) the brief uses: the lexical share the other way. */
function reverseShare(c: CandidateEvidence, brief: Set<string>, q: TermWeights): number {
  const terms = c.terms;
  if (!terms || terms.size === 0) return 0;
  let shared = 0;
  // The brief's terms are few; the document's many: walk the brief, take the document's total from the index.
  for (const t of brief) if (terms.has(t)) shared += q.idf(t);
  let all = c.path !== undefined && q.idfSum ? q.idfSum(c.path) : 0;
  if (!all) for (const t of terms.keys()) all += q.idf(t);
  return all > 0 ? shared / all : 0;
}

/** The distinctive terms of a text: its DISTINCTIVE_TERMS best by tf·idf among terms the corpus holds (an unseen term tells no document apart). */
export const DISTINCTIVE_TERMS = 12;
function distinctive(tf: ReadonlyMap<string, number>, q: TermWeights): string[] {
  // The best DISTINCTIVE_TERMS kept in order as they come (a document holds hundreds of terms,
  // sorting them all was a cold check's largest scoring pass): the same terms in the same order
  // as sorting by tf·idf, ties by term.
  const top: string[] = [];
  const weights: number[] = [];
  for (const [t, n] of tf) {
    const idf = q.idf(t);
    if (!(idf > 0) || t.length < 2 || !(q.df(t) > 0) || (t.length <= 2 && /^\d{1,2}$/.test(t))) continue;
    const w = n * idf;
    let at = top.length;
    while (at > 0 && (weights[at - 1] < w || (weights[at - 1] === w && t < top[at - 1]))) at--;
    if (at >= DISTINCTIVE_TERMS) continue;
    top.splice(at, 0, t);
    weights.splice(at, 0, w);
    if (top.length > DISTINCTIVE_TERMS) {
      top.pop();
      weights.pop();
    }
  }
  return top;
}

/** IDF-weighted share of `terms` found in `other`. */
function weightedCover(terms: string[], other: { has(t: string): boolean }, q: TermWeights): number {
  let all = 0;
  let found = 0;
  for (const t of terms) {
    const w = q.idf(t);
    all += w;
    if (other.has(t)) found += w;
  }
  return all > 0 ? found / all : 0;
}

function termCounts(tokens: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}
