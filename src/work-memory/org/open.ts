/**
 * Build the organisation's view for one check: ask the team store for the other
 * repositories' candidates, in one read-only snapshot of it (a sync committing
 * meanwhile is seen whole or not at all), and join them to the local index.
 */
import type { TeamStoreClient } from '../../shared/team-store/connect.js';
import type { CorpusType } from '../corpus/types.js';
import type { VectorIndex } from '../index/types.js';
import { lexicalTokens, type LexicalData, type LexicalView } from '../lexical/file.js';
import { candidateDepth, informativeChunks, lexicalOnlyDepth, type Scoring } from '../scoring/rank.js';
import { fetchDocuments, orgRepositories, vectorCandidates, type FetchedDoc, type ModelMatch } from './fetch.js';
import { lexicalCandidates, repositoryDocumentFrequencies, type RepositoryFrequencies } from './fetch-lexical.js';
import { foreignKey, ForeignDocs, OrgVectorIndex, orgLexical, repositoryTerms } from './org-view.js';
import { oneLine } from '../../shared/sanitize.js';

export interface OrgRequest {
  /** This repository's name in the store (its documents come from the local index instead), null when it has none. */
  self: string | null;
  model: ModelMatch;
  local: VectorIndex;
  localLexical: LexicalData | null;
  /** No local index (an empty one stands in): this repository's own published documents come from the store too. */
  noLocalIndex?: boolean;
  /** The brief's chunk vectors and the scoring the check will use (its text, chunks, exclusions). */
  vectors: Float32Array[];
  scoring: Scoring;
  k: number;
  type: CorpusType;
}

export interface OrgView {
  index: VectorIndex;
  lexical: LexicalView | null;
  /** The other repositories compared with. */
  repositories: string[];
  /** Repositories skipped: their vectors were made by another model. */
  otherModel: string[];
  /** Documents fetched from the store for this check. */
  fetched: number;
  /** What the caller should be told (shown as warnings). */
  notes: string[];
}

/** What a check or search tells its caller of the organisation it compared with (`--json` `org`). */
export interface OrgSummary {
  where: string;
  repositories: string[];
  otherModel: string[];
  fetched: number;
}

export function orgSummary(view: OrgView & { where: string }): OrgSummary {
  return { where: view.where, repositories: view.repositories, otherModel: view.otherModel, fetched: view.fetched };
}

export async function openOrgView(client: TeamStoreClient, q: OrgRequest): Promise<OrgView> {
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    const view = await readView(client, q);
    await client.query('COMMIT');
    return view;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

async function readView(client: TeamStoreClient, q: OrgRequest): Promise<OrgView> {
  const { usable, otherModel, broken } = await orgRepositories(client, q.self, q.model);
  const ids = usable.map((r) => r.id);
  const idSet = new Set(ids);
  const candidates = new Set<string>();
  if (q.scoring.method !== 'lexical' && q.vectors.length) {
    const kept = informativeChunks(q.vectors, q.scoring).map((i) => q.vectors[i]);
    for (const id of await vectorCandidates(client, kept, candidateDepth(q.k, q.scoring), q.type, idSet))
      candidates.add(id);
  }
  // Each repository's own document frequencies: its documents are weighed by its statistics alone (issue 47).
  const dfs: RepositoryFrequencies = new Map();
  if (q.localLexical) {
    const tokens = [...new Set(lexicalTokens(q.scoring.briefText, q.localLexical.templates))];
    await repositoryDocumentFrequencies(client, { terms: tokens, repositories: ids }, dfs);
    // As deep as rescore reads the lexical list: `want` with the model, the keyword fallback's depth without.
    const depth = q.scoring.method === 'lexical' ? lexicalOnlyDepth(q.k) : candidateDepth(q.k, q.scoring);
    for (const id of await lexicalCandidates(client, repositoryTerms(usable, dfs, tokens), depth)) candidates.add(id);
  }
  const { docs: all, skipped } = await fetchDocuments(client, [...candidates], q.model.dimensions);
  const { docs: fetched, ambiguous } = distinctKeys(all, (key) => q.local.doc?.(key) !== undefined);
  // Every term of the fetched documents is weighed (the reverse lexical share sums their IDF), by its repository:
  // their frequencies came with their term counts.
  const idOf = new Map(usable.map((r) => [r.name, r.id]));
  for (const f of fetched) {
    const repository = idOf.get(f.repository)!;
    let m = dfs.get(repository);
    if (!m) dfs.set(repository, (m = new Map()));
    for (const [term, df] of f.df ?? []) if (!m.has(term)) m.set(term, df);
  }
  const totals = { all: 0, history: 0, standard: 0 };
  for (const r of usable) {
    totals.all += r.docs;
    totals.history += r.historyDocs;
    totals.standard += r.standardDocs;
  }
  return {
    index: new OrgVectorIndex(q.local, new ForeignDocs(fetched), totals),
    lexical: q.localLexical ? orgLexical(q.localLexical, fetched, usable, dfs) : null,
    repositories: usable.map((r) => r.name),
    otherModel,
    fetched: fetched.length,
    // Each bad row or repository named once; a flood of them is counted, not listed.
    notes: capped([...broken, ...skipped, ...ambiguous], MAX_NOTES),
  };
}

/**
 * Documents of two repositories that would be shown under one key (`<repository>:<path>`: a name may hold a
 * colon, `git.example.com:8443/team/web`) are both left out and named: neither may pass for the other. So is a
 * fetched one whose key is one of this repository's own (a repository named `github` with the path `issue/7`
 * spells the local `github:issue/7`): the local document is never replaced.
 */
export function distinctKeys(
  docs: FetchedDoc[],
  isLocal: (key: string) => boolean = () => false,
): { docs: FetchedDoc[]; ambiguous: string[] } {
  const owners = new Map<string, Set<string>>();
  for (const d of docs) {
    const key = foreignKey(d.repository, d.path);
    owners.set(key, (owners.get(key) ?? new Set()).add(d.repository));
  }
  const clash = [...owners].filter(([key, repos]) => repos.size > 1 || isLocal(key));
  const ambiguous = clash.map(
    ([key, repos]) =>
      `team store: skipped ${oneLine(key, 200)}: one name for documents of ${[...(isLocal(key) ? ['this repository'] : []), ...[...repos].map((r) => oneLine(r, 100))].join(' and ')}`,
  );
  const left = new Set(clash.map(([key]) => key));
  return { docs: docs.filter((d) => !left.has(foreignKey(d.repository, d.path))), ambiguous };
}

const MAX_NOTES = 5;
function capped(notes: string[], max: number): string[] {
  return notes.length <= max
    ? notes
    : [...notes.slice(0, max), `team store: ${notes.length - max} more rows skipped for the same kinds of reasons`];
}
