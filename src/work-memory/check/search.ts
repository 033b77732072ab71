import type { Config } from '../../shared/config/schema.js';
import { parseBrief } from './parsed-brief.js';
import { errorMessage } from '../../shared/errors.js';
import type { CorpusType } from '../corpus/types.js';
import type { Embedder } from '../embeddings/embedder.js';
import type { LexicalData } from '../lexical/file.js';
import { scoringFor, type CheckDeps } from './run.js';
import type { OrgView } from '../org/open.js';
import type { VectorIndex } from '../index/types.js';
import { rescore, type Scoring } from '../scoring/rank.js';
import type { HistoryMatch } from '../scoring/match.js';

export interface SearchResult extends HistoryMatch {
  /** The index types this document is in (a document indexed as both is listed once). */
  types: CorpusType[];
}

/**
 * "Have we worked on X?" (`agentos search`, the MCP server's search_history): the best
 * documents across the index, past work scored as the check scores it (same work),
 * standards as the standards check does (governs), merged by path keeping the higher score.
 */
export function searchIndex(
  index: VectorIndex,
  vectors: Float32Array[],
  scoring: Scoring,
  o: { types: CorpusType[]; limit: number },
): SearchResult[] {
  return mergeByPath(o.types.map((type) => [type, rankType(index, vectors, scoring, type, o.limit)]));
}

/** One type's best documents, none when the index holds none of that type. */
function rankType(
  index: VectorIndex,
  vectors: Float32Array[],
  scoring: Scoring,
  type: CorpusType,
  limit: number,
): HistoryMatch[] {
  return index.count(type) === 0 ? [] : rescore(index, vectors, limit, type, scoring);
}

/** Each type's best documents as one list: a document in both types is listed once, with its higher score and both types. */
function mergeByPath(perType: Array<[CorpusType, HistoryMatch[]]>): SearchResult[] {
  const byPath = new Map<string, SearchResult>();
  for (const [type, matches] of perType) {
    for (const m of matches) {
      const prev = byPath.get(m.filePath);
      if (!prev || m.score > prev.score) byPath.set(m.filePath, { ...m, types: [type, ...(prev?.types ?? [])] });
      else if (!prev.types.includes(type)) prev.types.push(type);
    }
  }
  return [...byPath.values()].sort((a, b) => b.score - a.score);
}

/**
 * The lexical index for a query against an open index (`agentos search`, the MCP
 * server's search_history): it serves the calibrated score and, without the model,
 * answers alone, which a warning says; with neither, the model's error. Warnings are
 * returned for the caller to show where it shows them.
 */
export function queryLexical(
  loaded: { e: Embedder | null; error: unknown },
  open: () => LexicalData,
): { lexical: LexicalData | null; warnings: string[] } {
  const warnings: string[] = [];
  let lexical: LexicalData | null = null;
  try {
    lexical = open();
  } catch (e) {
    if (!loaded.e) throw loaded.error; // no model and no lexical index: the model's error
    warnings.push(`lexical index unavailable (${errorMessage(e)}); scoring by cosine alone`);
  }
  if (!loaded.e)
    warnings.push(
      `the model could not be loaded (${errorMessage(loaded.error)}); searching the lexical index (method: lexical)`,
    );
  return { lexical, warnings };
}

/** The query embedded (when there is a model) and ranked by the one scoring rule (run.ts scoringFor). */
export async function rankQuery(
  index: VectorIndex,
  embedder: Embedder | null,
  lexical: LexicalData | null,
  config: Config,
  query: string,
  o: { types: CorpusType[]; limit: number; org?: OrgSearch },
): Promise<SearchResult[]> {
  const vectors = embedder ? await embedder.embed([query]) : [];
  // A query is scored as a brief is (its title, the issue it states); it is embedded whole, as one passage.
  const scoring = scoringFor(config, parseBrief(query, { whole: true }), {
    lexical,
    chunks: [query],
    model: Boolean(embedder),
  });
  if (!o.org) return searchIndex(index, vectors, scoring, o);
  // Org scope: each type's candidates come from the team store; if it cannot answer, the local index does, and says so.
  const perType: Array<[CorpusType, HistoryMatch[]]> = [];
  for (const type of o.types) {
    try {
      const view = await o.org.open({ local: index, localLexical: lexical, vectors, scoring, k: o.limit, type });
      o.org.answered(view);
      perType.push([type, rankType(view.index, vectors, { ...scoring, lexical: view.lexical }, type, o.limit)]);
    } catch (e) {
      o.org.failed(e);
      perType.push([type, rankType(index, vectors, scoring, type, o.limit)]);
    }
  }
  return mergeByPath(perType);
}

/** How a search reaches the other repositories (`--scope org`), and where it reports what answered. */
export interface OrgSearch {
  open: NonNullable<CheckDeps['openOrg']>;
  answered: (view: OrgView & { where: string }) => void;
  failed: (e: unknown) => void;
}
