import path from 'node:path';
import { parseBrief } from '../check/parsed-brief.js';
import { checkHistory, embedBrief } from '../check/history.js';
import { matchPaths, type HistoryMatch } from '../scoring/match.js';
import { readLiveSources } from '../index/source-plan.js';
import { openIndex, readCurrent } from '../index/hnsw-index.js';
import type { Config } from '../../shared/config/schema.js';
import { readTextFile } from '../corpus/read.js';
import type { ModelSetup } from '../index/model-setup.js';
import { openLexical } from '../lexical/file.js';
import type { Scoring } from '../scoring/rank.js';
import { scoringFor } from '../check/run.js';
import { linkedPairs, type LinkDoc } from './links.js';
import type { QueryResult } from './metrics.js';
import { placeOf, placeOfKey } from '../scoring/filing.js';

export interface HistoryEvalRun {
  results: QueryResult[];
  timings: Record<string, number>;
  indexed: number;
}

const NEAREST = 10;
/** Candidates kept per brief for a refit (as eval/run-set.ts keeps). */
const CANDIDATES = 30;

/** The candidates as a refit reads them: path, label, score and features. */
function candidatesOf(all: HistoryMatch[], hit: (m: HistoryMatch) => boolean): NonNullable<QueryResult['history']> {
  return all.map((m) => ({
    path: m.filePath,
    label: hit(m) ? 1 : 0,
    score: m.score,
    features: m.components?.features ?? null,
  }));
}

/**
 * Leave-one-out on the project's own history: every past document is asked
 * as a brief (its stored chunk vectors, so the model is not loaded), with its
 * own work excluded at query time. Documents linked to others are the
 * duplicates; the rest count as "nothing to find" (an upper bound on noise:
 * unlabelled relations exist).
 */
export async function runHistoryEval(o: {
  root: string;
  config: Config;
  model: ModelSetup;
  onProgress?: (m: string) => void;
}): Promise<HistoryEvalRun> {
  const t0 = performance.now();
  const index = await openIndex(o.root, o.model.identity);
  let lexical = null;
  try {
    lexical = openLexical(o.root);
  } catch {
    lexical = null;
  }
  const history = index.meta.docs.filter((d) => d.types.includes('history'));
  const { texts, links, sources } = await historyTexts(o, index, history);
  const loadMs = performance.now() - t0;
  const results: QueryResult[] = [];
  const t1 = performance.now();
  for (const d of history) results.push(askOwnDocument(o.config, index, lexical, d, texts, links));
  // Reports a tracker closed as duplicates of indexed work: asked as briefs (embedded, the model loads), their original the target.
  const pairs = sources.duplicates.filter((p) => index.doc(p.of));
  if (pairs.length) {
    o.onProgress?.(`${pairs.length} reports the tracker closed as duplicates: checking each against the index`);
    const embedder = await o.model.load('query');
    for (const p of pairs) results.push(await askClosedDuplicate(o.config, index, lexical, embedder, p));
  }
  return { results, timings: { loadMs, queryMs: performance.now() - t1 }, indexed: history.length };
}

type EvalIndex = Awaited<ReturnType<typeof openIndex>>;
type HistoryDoc = EvalIndex['meta']['docs'][number];

/** Every past document's text (work from git or a tracker has no file: its text is kept in the generation), and which are linked. */
async function historyTexts(o: { root: string; config: Config }, index: EvalIndex, history: HistoryDoc[]) {
  const docs: LinkDoc[] = [];
  const texts = new Map<string, string>();
  const generation = readCurrent(o.root);
  const sources = generation
    ? await readLiveSources(o.root, generation, index.manifest)
    : { texts: new Map<string, string>(), duplicates: [] };
  for (const d of history) {
    const kept = d.origin ? sources.texts.get(d.filePath) : undefined;
    const read =
      kept !== undefined ? null : await readTextFile(path.join(o.root, d.filePath), o.config.corpus.maxFileBytes);
    const text = kept ?? (read?.ok ? read.text : d.title);
    texts.set(d.filePath, text);
    docs.push({ filePath: d.filePath, issueId: d.issueId, title: d.title, text });
  }
  return { texts, links: linkedPairs(docs), sources };
}

/** One past document asked as a brief, by its stored chunk vectors, its own work excluded. */
function askOwnDocument(
  config: Config,
  index: EvalIndex,
  lexical: Scoring['lexical'],
  d: HistoryDoc,
  texts: Map<string, string>,
  links: ReturnType<typeof linkedPairs>,
): QueryResult {
  const vectors = d.labels.map((l) => Float32Array.from(index.vector(l)));
  const sameWork = (p: string) => p === d.filePath || (d.issueId !== null && index.doc(p)?.issueId === d.issueId);
  // The product's own scoring rule (title, floors at the configured lines, cosine without a lexical index).
  // Every candidate kept (keepAll), its features read whole: the rows a refit of the project's line reads (eval/refit.ts).
  const scoring: Scoring = {
    ...scoringFor(config, parseBrief(texts.get(d.filePath) ?? '', { whole: true }), {
      lexical,
      model: true,
      filed: placeOf(d.origin),
    }),
    exclude: sameWork,
    keepAll: true,
    wholeText: 'all',
  };
  const s0 = performance.now();
  const { nearest: all } = checkHistory(index, vectors, CANDIDATES, config.thresholds, scoring);
  const nearest = all.slice(0, NEAREST);
  const targets = links.get(d.filePath);
  const rank = targets ? nearest.findIndex((m) => matchPaths(m).some((p) => targets.has(p))) : -1;
  const top = nearest[0];
  const target = targets ? (rank >= 0 ? nearest[rank].filePath : [...targets][0]) : null;
  return {
    id: d.filePath,
    target,
    top: top?.score ?? 0,
    topPath: top ? (targets && matchPaths(top).some((p) => targets.has(p)) ? target : top.filePath) : null,
    targetRank: rank >= 0 ? rank + 1 : null,
    targetScore: rank >= 0 ? nearest[rank].score : null,
    ms: performance.now() - s0,
    history: candidatesOf(all, (m) => Boolean(targets && matchPaths(m).some((p) => targets.has(p)))),
  };
}

/** A report the tracker closed as a duplicate, embedded and asked as a brief; its original is the target. */
async function askClosedDuplicate(
  config: Config,
  index: EvalIndex,
  lexical: Scoring['lexical'],
  embedder: Awaited<ReturnType<ModelSetup['load']>>,
  p: { key: string; of: string; text: string },
): Promise<QueryResult> {
  const s0 = performance.now();
  const brief = parseBrief(p.text, { whole: true });
  const vectors = await embedBrief(brief, embedder);
  const scoring: Scoring = {
    ...scoringFor(config, brief, { lexical, model: true, filed: placeOfKey(p.key) }),
    keepAll: true,
    wholeText: 'all',
  };
  const { nearest: all } = checkHistory(index, vectors, CANDIDATES, config.thresholds, scoring);
  const nearest = all.slice(0, NEAREST);
  const rank = nearest.findIndex((m) => matchPaths(m).includes(p.of));
  return {
    id: p.key,
    target: p.of,
    top: nearest[0]?.score ?? 0,
    topPath: nearest[0] ? (rank === 0 ? p.of : nearest[0].filePath) : null,
    targetRank: rank >= 0 ? rank + 1 : null,
    targetScore: rank >= 0 ? nearest[rank].score : null,
    ms: performance.now() - s0,
    history: candidatesOf(all, (m) => matchPaths(m).includes(p.of)),
  };
}
