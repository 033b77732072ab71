/**
 * The org-scope check's lexical side in the team store (issue 47): each repository's own document
 * frequencies, and the candidates BM25 proposes there, every repository's documents weighed by its own
 * statistics. Every value is a query parameter.
 */
import type { TeamStoreClient } from '../../shared/team-store/connect.js';
import { B, K1 } from '../lexical/bm25.js';
import { withPlannerSetting } from './fetch.js';

/** Each repository's documents holding a term: repository id → term → count. */
export type RepositoryFrequencies = Map<string, Map<string, number>>;

/**
 * Documents holding each of the brief's terms, in each repository (issue 47: each repository's documents are
 * weighed by its own statistics; a fetched document's other terms come with its term counts, fetch.ts).
 * Added to `into`.
 */
export async function repositoryDocumentFrequencies(
  client: TeamStoreClient,
  q: { terms: string[]; repositories: string[] },
  into: RepositoryFrequencies,
): Promise<void> {
  if (!q.terms.length || !q.repositories.length) return;
  const rows = await client.query<{ repository_id: string; term: string; df: number }>(
    // Each count held to [0, its repository's documents]: a wrong statistic cannot turn a score into NaN.
    `SELECT t.repository_id::text AS repository_id, t.term, LEAST(GREATEST(t.df, 0), GREATEST(r.docs, 0)) AS df
     FROM repository_terms t JOIN repositories r ON r.id = t.repository_id
     WHERE t.term = ANY($2::text[]) AND t.repository_id = ANY($1::bigint[])`,
    [q.repositories, q.terms],
  );
  for (const r of rows.rows) {
    let m = into.get(r.repository_id);
    if (!m) into.set(r.repository_id, (m = new Map()));
    m.set(r.term, Number(r.df));
  }
}

/**
 * Postings read per lexical candidate query at most: the brief's weightiest terms are
 * kept until their documents add up to this; the commonest (which move a BM25 score
 * least) are dropped from candidate generation only, and every candidate is then
 * scored on all its terms by the client. The statement's time grows with the postings
 * it sums: at 1M chunks 237 ms a check at 200,000, 116 ms at 50,000. The 50 checks of
 * bench/store-bench.mjs answered the same at both (status, first five matches, scores;
 * at 100,000 and at 1M chunks).
 */
export const LEXICAL_POSTINGS_BUDGET = 50_000;

/**
 * Above this many postings the lexical candidates' statement turns nested loops off: at 191,000 postings one
 * document lookup each cost 413 ms against a hash join's ~100 ms (1M chunks); at a few hundred the lookups
 * are the cheaper plan, and the planner, told the terms (`= ANY`), picks them.
 */
const NESTED_LOOP_POSTINGS = 10_000;

/** One term as one repository weighs it: its IDF there, and its weight in the query's share (IDF over the query's self-score there). */
export interface RepositoryTerm {
  repository: string;
  term: string;
  idf: number;
  df: number;
  weight: number;
  avgLen: number;
}

/**
 * The best `want` documents of the given repositories by the share of the brief's BM25 each matches, every
 * repository's documents weighed by that repository's own statistics (issue 47: a flood of documents holding
 * a teammate's words makes them common in the flooder's repository only, and her documents rank lower for it).
 */
export async function lexicalCandidates(
  client: TeamStoreClient,
  weighted: RepositoryTerm[],
  want: number,
): Promise<Set<string>> {
  // A term's postings are read for every repository at once (the terms index), so the budget is spent by term:
  // the terms that carry most of the query's weight in some repository first (the rarest there), until their
  // documents add up to the budget. Weights, not IDFs, are compared: a small repository's IDFs are smaller
  // throughout. Each posting then counts by its own repository's weight: a term made common in one repository
  // weighs next to nothing there, and what it weighs elsewhere is unchanged.
  const byTerm = new Map<string, { pairs: RepositoryTerm[]; postings: number; weight: number }>();
  for (const w of weighted) {
    if (!(w.idf > 0 && w.df > 0)) continue;
    const t = byTerm.get(w.term) ?? { pairs: [], postings: 0, weight: 0 };
    t.pairs.push(w);
    t.postings += w.df;
    t.weight = Math.max(t.weight, w.weight);
    byTerm.set(w.term, t);
  }
  const terms: RepositoryTerm[] = [];
  const chosen: string[] = [];
  let postings = 0;
  for (const [term, t] of [...byTerm].sort(
    ([ta, a], [tb, b]) => b.weight - a.weight || a.postings - b.postings || (ta < tb ? -1 : ta > tb ? 1 : 0),
  )) {
    if (chosen.length && postings + t.postings > LEXICAL_POSTINGS_BUDGET) break;
    chosen.push(term);
    terms.push(...t.pairs);
    postings += t.postings;
  }
  if (!terms.length) return new Set();
  // The terms' postings through their index, then hashed against the documents: joined only through the
  // unnested list, the planner could not see how few rows the terms hold and scanned every posting of the
  // store (6M rows, 300 ms a check at 1M chunks); told the terms (`= ANY`) it reads theirs, but one document
  // lookup per posting unless nested loops are off (bench/store-bench.mjs --explain: 309 -> 166 ms at 191,000 postings).
  // Nested loops off only for many postings: for a few, one lookup each beats hashing every document of the organisation.
  const rows = await withPlannerSetting(
    client,
    'lexical',
    // Postings matched to their weights by hashing: merging sorted 50,000 postings by their text (25 of 72 ms).
    postings > NESTED_LOOP_POSTINGS ? ['enable_nestloop = off', 'enable_mergejoin = off'] : 'enable_mergejoin = off',
    () =>
      client.query<{ document_id: string }>(
        // tf and lengths held non-negative: a forged row cannot rank itself first with a negative denominator.
        // The postings first (as before weights were per repository), then each weighed by its repository's weight
        // for its term: joined in one statement, the planner paired every document with every weight first.
        `WITH p AS MATERIALIZED (
           SELECT t.document_id, t.term, GREATEST(t.tf, 0) AS tf, d.repository_id, GREATEST(d.lexical_len, 0) AS len
           FROM document_terms t JOIN documents d ON d.id = t.document_id
           WHERE t.term = ANY($8::text[]) AND d.repository_id = ANY($9::bigint[]))
         SELECT p.document_id, sum(q.weight * (p.tf * ($5::float8 + 1)) / (p.tf + $5::float8 * (1 - $6::float8 + $6::float8 * p.len / q.avg_len) + 1e-9)) AS s
         FROM p JOIN ROWS FROM (pg_catalog.unnest($1::text[]), pg_catalog.unnest($2::bigint[]), pg_catalog.unnest($3::float8[]), pg_catalog.unnest($4::float8[])) AS q(term, repository_id, weight, avg_len)
           ON q.term = p.term AND q.repository_id = p.repository_id
         GROUP BY p.document_id ORDER BY s DESC, p.document_id LIMIT $7`,
        [
          terms.map((t) => t.term),
          terms.map((t) => t.repository),
          terms.map((t) => t.weight),
          terms.map((t) => t.avgLen),
          K1,
          B,
          want,
          chosen,
          [...new Set(terms.map((t) => t.repository))],
        ],
      ),
  );
  return new Set(rows.rows.map((r) => r.document_id));
}
