/**
 * What the org-scope check reads from the team store (issue 23): the other
 * repositories it may compare with, the candidates each retriever proposes there
 * (pgvector's HNSW for the vectors; BM25 over the term tables for the words, in
 * fetch-lexical.ts), and
 * those candidates whole: metadata, chunk vectors, term counts. Everything else
 * (the scoring) happens on the client, exactly as for the local index.
 * Every value is a query parameter.
 */
import { isNormalRepositoryName } from '../../shared/team-store/repository.js';
import { checkedMetadata, count, vectorProblem } from './checked.js';
import { oneLine } from '../../shared/sanitize.js';
import type { TeamStoreClient } from '../../shared/team-store/connect.js';
import { vectorFromBinary, vectorText } from '../../shared/team-store/vector.js';
import { DOCUMENT_LIMITS } from '../../shared/team-store/limits.js';
import type { CorpusType, DocMetadata } from '../corpus/types.js';

export interface OrgRepository {
  id: string;
  name: string;
  docs: number;
  historyDocs: number;
  standardDocs: number;
  lexicalLen: number;
}

/** Which model's vectors a repository must hold to be compared with this one's. */
export interface ModelMatch {
  modelId: string;
  modelFingerprint: string;
  dimensions: number;
}

/** The other repositories, split into those whose vectors compare with this model's and those indexed another way. */
export async function orgRepositories(
  client: TeamStoreClient,
  self: string | null,
  model: ModelMatch,
): Promise<{ usable: OrgRepository[]; otherModel: string[]; broken: string[] }> {
  const rows = await client.query<{
    id: string;
    name: string;
    model_id: string | null;
    model_fingerprint: string | null;
    dimensions: number | null;
    docs: number;
    history_docs: number;
    standard_docs: number;
    lexical_len: string;
  }>(
    `SELECT id, name, model_id, model_fingerprint, dimensions, docs, history_docs, standard_docs, lexical_len FROM repositories WHERE name IS DISTINCT FROM $1 AND model_id IS NOT NULL AND docs <> 0 AND counted ORDER BY name`,
    [self],
  );
  const usable: OrgRepository[] = [];
  const otherModel: string[] = [];
  const broken: string[] = [];
  for (const r of rows.rows) {
    // A look-alike name (a zero-width space, another case of the host, a compatibility form) stands beside the one it imitates.
    if (!isNormalRepositoryName(r.name)) {
      broken.push(
        `team store: skipped repository ${named(r.name)}: its name holds invisible characters or is not in the form the store keeps (a look-alike of another name)`,
      );
      continue;
    }
    // Totals the scores depend on (corpus size, mean length): a negative or absurd one would skew every score.
    const totals = [r.docs, r.history_docs, r.standard_docs, r.lexical_len].map(count);
    if (totals.some((x) => x === null)) {
      broken.push(`team store: skipped repository ${named(r.name)}: its document totals are not non-negative counts`);
      continue;
    }
    const sameWeights =
      r.model_fingerprint === model.modelFingerprint ||
      r.model_fingerprint === 'unknown' ||
      model.modelFingerprint === 'unknown';
    if (r.model_id !== model.modelId || r.dimensions !== model.dimensions || !sameWeights)
      otherModel.push(named(r.name));
    else
      usable.push({
        id: r.id,
        name: r.name,
        docs: r.docs,
        historyDocs: r.history_docs,
        standardDocs: r.standard_docs,
        lexicalLen: Number(r.lexical_len),
      });
  }
  return { usable, otherModel, broken };
}

/** pgvector's HNSW returns at most ef_search rows, and accepts at most 1000. */
const MAX_CHUNKS = 1000;
/** Chunks read per wanted document at first (one long document can hold many of the nearest chunks). */
const CHUNKS_PER_DOC = 8;

/**
 * The documents of the given repositories nearest each brief vector (by best chunk), at
 * least `want` of `type` when the store holds them: the search widens as the local one
 * does (src/work-memory/scoring/match.ts), up to pgvector's limit.
 */
export async function vectorCandidates(
  client: TeamStoreClient,
  vectors: Float32Array[],
  want: number,
  type: CorpusType,
  repositories: Set<string>,
): Promise<Set<string>> {
  const found = new Set<string>();
  for (const v of vectors) {
    const literal = vectorText(v);
    for (let limit = Math.min(MAX_CHUNKS, want * CHUNKS_PER_DOC); ; limit = Math.min(MAX_CHUNKS, limit * 4)) {
      await client.query(`SET hnsw.ef_search = ${Math.max(40, limit)}`); // an integer we computed, not input
      const rows = await client.query<{ document_id: string; repository_id: string; types: CorpusType[] }>(
        `WITH nn AS MATERIALIZED (SELECT document_id FROM chunks ORDER BY embedding <#> $1::vector LIMIT $2)
         SELECT nn.document_id, d.repository_id, d.types FROM nn JOIN documents d ON d.id = nn.document_id`,
        [literal, limit],
      );
      const mine = new Set(
        rows.rows.filter((r) => repositories.has(r.repository_id) && r.types.includes(type)).map((r) => r.document_id),
      );
      // Enough documents, or the whole store read (fewer chunks than asked for).
      if (mine.size >= want || rows.rows.length < limit) {
        for (const id of mine) found.add(id);
        break;
      }
      if (limit >= MAX_CHUNKS) {
        // pgvector's limit reached with too few of them (other repositories' or the other type's chunks
        // are nearer): an exact scan of just these repositories and this type, slower but complete.
        for (const id of await exactCandidates(client, literal, want, type, [...repositories])) found.add(id);
        break;
      }
    }
  }
  return found;
}

/** The `want` nearest documents of these repositories and type by a sequential scan (pgvector 0.6 filters only after its index). */
async function exactCandidates(
  client: TeamStoreClient,
  literal: string,
  want: number,
  type: CorpusType,
  repositories: string[],
): Promise<string[]> {
  const rows = await withPlannerSetting(client, 'exact', 'enable_indexscan = off', () =>
    client.query<{ document_id: string }>(
      `SELECT c.document_id, max(-(c.embedding <#> $1::vector)) AS s FROM chunks c JOIN documents d ON d.id = c.document_id
       WHERE d.repository_id = ANY($2::bigint[]) AND $3 = ANY(d.types) GROUP BY c.document_id ORDER BY s DESC LIMIT $4`,
      [literal, repositories, type, want],
    ),
  );
  return rows.rows.map((r) => r.document_id);
}

/**
 * One statement planned with settings of its own (`SET LOCAL` inside savepoint `name`; none when `setting` is
 * null or empty): rolling back to the savepoint ends them, and the rest of the read (one snapshot) plans as usual.
 */
export async function withPlannerSetting<T>(
  client: TeamStoreClient,
  name: string,
  setting: string | string[] | null,
  run: () => Promise<T>,
): Promise<T> {
  await client.query(`SAVEPOINT ${name}`); // names and settings are this file's literals, never input
  try {
    for (const s of setting === null ? [] : [setting].flat()) await client.query(`SET LOCAL ${s}`);
    return await run();
  } finally {
    await client.query(`ROLLBACK TO SAVEPOINT ${name}`);
  }
}

/** One candidate document whole, as the client scores it. */
export interface FetchedDoc {
  repository: string;
  path: string;
  metadata: DocMetadata;
  lexicalLen: number;
  chunks: Array<{ section: string; excerpt: string; vector: Float32Array }>;
  tf: Map<string, number>;
  /** Documents of its repository holding each of its terms (the repository's statistics, read with the terms). */
  df?: Map<string, number>;
}

/**
 * The candidates whole. Each is checked (org/checked.ts) before it is scored: a document
 * whose metadata, vectors or counts do not have their shape is left out, and named in `skipped`.
 */
export async function fetchDocuments(
  client: TeamStoreClient,
  ids: string[],
  dimensions: number,
): Promise<{ docs: FetchedDoc[]; skipped: string[] }> {
  if (!ids.length) return { docs: [], skipped: [] };
  const bad = new Map<string, string>();
  const byId = await documentsOf(client, ids, bad);
  await chunksOf(client, byId, dimensions, bad);
  await termsOf(client, byId, bad);
  return { docs: [...byId.values()], skipped: [...bad.values()] };
}

/** Why a document was left out, as a warning names it. */
const skippedLine = (doc: { repository: string; path: string }, problem: string) =>
  `team store: skipped ${named(doc.repository)}:${named(doc.path)}: ${problem}`;

/** The documents' own rows, each sized before any of it is read: a document of a million chunks or terms would hold up every check. */
async function documentsOf(client: TeamStoreClient, ids: string[], bad: Map<string, string>) {
  const docs = await client.query<{
    id: string;
    repository: string;
    path: string;
    types: unknown;
    metadata: unknown;
    lexical_len: unknown;
    chunks: string;
    terms: string;
    meta_bytes: number;
  }>(
    // pg_catalog's by name (a writer's public.pg_column_size("any") would win the match), and the text's length,
    // not the compressed size stored. Counted only one past the limit.
    `SELECT d.id, r.name AS repository, left(d.path, ${MAX_DOC.path + 1}) AS path, d.types,
            CASE WHEN pg_catalog.octet_length(d.metadata::text) <= ${MAX_DOC.metadataBytes} THEN d.metadata END AS metadata,
            pg_catalog.octet_length(d.metadata::text) AS meta_bytes, d.lexical_len,
            (SELECT count(*) FROM (SELECT 1 FROM chunks c WHERE c.document_id = d.id LIMIT ${MAX_DOC.chunks + 1}) x) AS chunks,
            (SELECT count(*) FROM (SELECT 1 FROM document_terms t WHERE t.document_id = d.id LIMIT ${MAX_DOC.terms + 1}) y) AS terms
     FROM documents d JOIN repositories r ON r.id = d.repository_id WHERE d.id = ANY($1::bigint[]) ORDER BY r.name, d.path`,
    [ids],
  );
  const byId = new Map<string, FetchedDoc>();
  for (const r of docs.rows) {
    const size = sizeProblem(r);
    if (size) {
      bad.set(r.id, skippedLine(r, size));
      continue;
    }
    const checked = checkedMetadata(r);
    const lexicalLen = count(r.lexical_len);
    if ('problem' in checked || lexicalLen === null) {
      bad.set(r.id, skippedLine(r, 'problem' in checked ? checked.problem : 'its lexical length is not a count'));
      continue;
    }
    const doc = { repository: r.repository, path: r.path, metadata: checked.metadata, lexicalLen };
    byId.set(r.id, { ...doc, chunks: [], tf: new Map(), df: new Map() });
  }
  return byId;
}

/** Each document's chunks, in order, their vectors read in pgvector's binary form; a bad chunk leaves its document out. */
async function chunksOf(
  client: TeamStoreClient,
  byId: Map<string, FetchedDoc>,
  dimensions: number,
  bad: Map<string, string>,
): Promise<void> {
  const chunks = await client.query<{ document_id: string; section: unknown; excerpt: unknown; v: unknown }>(
    `SELECT document_id, left(section, ${MAX_DOC.section + 1}) AS section, left(excerpt, ${MAX_DOC.excerpt + 1}) AS excerpt, vector_send(embedding) AS v FROM chunks WHERE document_id = ANY($1::bigint[]) ORDER BY document_id, ordinal`,
    [[...byId.keys()]],
  );
  for (const c of chunks.rows) {
    const doc = byId.get(c.document_id);
    if (!doc) continue;
    // Binary: read a thousand chunks' vectors without parsing their decimals.
    const vector = c.v instanceof Uint8Array ? vectorFromBinary(c.v) : new Float32Array(0);
    const problem =
      vectorProblem(vector, dimensions) ??
      (typeof c.section !== 'string' || typeof c.excerpt !== 'string'
        ? 'a chunk without its text'
        : c.section.length > MAX_DOC.section || c.excerpt.length > MAX_DOC.excerpt
          ? 'a chunk whose text is longer than agentos writes'
          : null);
    if (problem) {
      bad.set(c.document_id, skippedLine(doc, problem));
      byId.delete(c.document_id);
      continue;
    }
    doc.chunks.push({ section: c.section as string, excerpt: c.excerpt as string, vector });
  }
}

/**
 * Each document's term counts, and how many documents of its repository hold each term (issue 47: it is
 * weighed by its repository's statistics; read here, not in a statement of their own: 40 ms a check at 1M
 * chunks). A count that is not a positive count leaves its document out.
 */
async function termsOf(
  client: TeamStoreClient,
  byId: Map<string, FetchedDoc>,
  bad: Map<string, string>,
): Promise<void> {
  const terms = await client.query<{ document_id: string; term: string; tf: unknown; df: number | null }>(
    // Each frequency held to [0, its repository's documents]: a wrong statistic cannot turn a score into NaN.
    // One lookup of the terms' primary key per term (a join hashed all 2M rows of repository_terms: 145 ms at 1M chunks).
    `SELECT t.document_id, t.term, t.tf,
       (SELECT LEAST(GREATEST(rt.df, 0), GREATEST(r.docs, 0)) FROM repository_terms rt JOIN repositories r ON r.id = rt.repository_id
        WHERE rt.term = t.term AND rt.repository_id = d.repository_id) AS df
     FROM document_terms t JOIN documents d ON d.id = t.document_id
     WHERE t.document_id = ANY($1::bigint[])`,
    [[...byId.keys()]],
  );
  for (const t of terms.rows) {
    const doc = byId.get(t.document_id);
    if (!doc) continue;
    const tf = count(t.tf);
    if (tf === null || tf === 0) {
      bad.set(t.document_id, skippedLine(doc, 'a term count that is not a positive count'));
      byId.delete(t.document_id);
      continue;
    }
    doc.tf.set(t.term, tf);
    if (t.df !== null) doc.df!.set(t.term, Number(t.df));
  }
}

/** The most a fetched document may hold (the server's statistics leave a larger one out too). */
const MAX_DOC = DOCUMENT_LIMITS;

function sizeProblem(r: { path: string; chunks: string; terms: string; meta_bytes: number }): string | null {
  if (r.path.length > MAX_DOC.path) return `its path is longer than ${MAX_DOC.path} characters`;
  if (Number(r.chunks) > MAX_DOC.chunks) return `more than ${MAX_DOC.chunks} chunks`;
  if (Number(r.terms) > MAX_DOC.terms) return `more than ${MAX_DOC.terms} terms`;
  if (Number(r.meta_bytes) > MAX_DOC.metadataBytes)
    return `metadata of ${r.meta_bytes} bytes (at most ${MAX_DOC.metadataBytes})`;
  return null;
}

/** A name or path another person wrote, as a warning may show it. */
const named = (s: string): string => oneLine(String(s), 200);
