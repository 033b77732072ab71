#!/usr/bin/env node
// The team store at organisation scale (issue 23): a synthetic organisation of
// R repositories, D documents each, C chunks a document, pushed through the product's
// own sync (syncToTeamStore) into a real PostgreSQL with pgvector, then checked through the
// product's own org-scope read (openOrgView + checkHistory).
//
//   node bench/store-bench.mjs --bases-from <indexed root> [--repos 200] [--docs-per-repo 500]
//        [--chunks-per-doc 10] [--queries 50] [--local-max 200000] [--seed 11] [--cpu-profile FILE] [--explain]
//
// Figures:
//   ingest        documents and chunks a second through syncToTeamStore, the HNSW index dropped
//                 (a bulk first load), then with it in place (a repository added later)
//   hnsw build    CREATE INDEX … USING hnsw over every chunk (pgvector's defaults m=16, ef_construction=64)
//   recall@20     pgvector's HNSW against an exact scan of the same table, at ef_search 40
//                 (pgvector's default) and at the breadth the org check asks for (src/work-memory/org/fetch.ts)
//   org check     openOrgView + checkHistory from a project with no past work of its own
//                 (the warm part of `issue start --scope org`: no process start, no embedding), p50/p95,
//                 with the time of each statement it sends and of reading the store as a whole
//   local check   the same checks against one in-process HNSW index of the same documents (when
//                 the organisation has at most --local-max chunks), and how often both agree
//
// Vectors: real MiniLM embeddings read from an index agentos built (--bases-from), each
// synthetic chunk a base chunk plus Gaussian noise (cosine ~0.9 to its base), renormalised:
// clustered like a real organisation's history; random unit vectors would be a graph
// index's worst case and nobody's corpus. Terms: the base document's BM25 term counts plus
// a repository term and a document term. Queries: other noisy copies of base chunks, with
// their base document's terms as the brief's text.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { prng } from './generate-corpus.mjs';
import { MODEL_DIR, dist, emitResult, log, summarize } from './lib/common.mjs';
import { startBenchPostgres } from './lib/postgres.mjs';

const argv = process.argv.slice(2);
const opt = (n, d) => (argv.includes(`--${n}`) ? argv[argv.indexOf(`--${n}`) + 1] : d);
const R = Number(opt('repos', 200));
const DPR = Number(opt('docs-per-repo', 500));
const CPD = Number(opt('chunks-per-doc', 10));
const NQ = Number(opt('queries', 50));
const LOCAL_MAX = Number(opt('local-max', 200_000));
const basesFrom = opt('bases-from', null);
const rnd = prng(Number(opt('seed', 11)));
if (!basesFrom) throw new Error('store bench: --bases-from <indexed project> is required');
const D = 384;

const [
  { openIndex, HnswIndex },
  { syncToTeamStore },
  { migrate },
  { connectTeamStore },
  { openOrgView },
  { checkHistory },
  { scoringFor },
  { Bm25Index },
  { loadConfig },
  { modelSetup },
  lexFile,
  hnswlibMod,
] = await Promise.all([
  dist('work-memory/index/hnsw-index.js'),
  dist('work-memory/index/team-store-sync.js'),
  dist('shared/team-store/schema.js'),
  dist('shared/team-store/connect.js'),
  dist('work-memory/org/open.js'),
  dist('work-memory/check/history.js'),
  dist('work-memory/check/run.js'),
  dist('work-memory/lexical/bm25.js'),
  dist('shared/config/load.js'),
  dist('work-memory/index/model-setup.js'),
  dist('work-memory/lexical/file.js'),
  dist('work-memory/index/hnswlib.js'),
]);

// ---- the bases: real vectors, metadata and term counts ---------------------------------
const root = path.resolve(basesFrom);
const { config } = await loadConfig(root);
const identity = modelSetup({ ...process.env, AGENTOS_MODEL_DIR: MODEL_DIR }, config, root).identity;
const base = await openIndex(root, identity);
const baseLex = lexFile.openLexical(root);
const tfOf = new Map(baseLex.bm25.docs.map((d) => [d.path, d.tf]));
const baseDocs = base.meta.docs.filter((d) => d.labels.length && d.types.includes('history'));
const baseVec = (label) => Float32Array.from(base.vector(label));
log(
  `store bench: ${baseDocs.length} base documents from ${basesFrom}; organisation ${R} repositories x ${DPR} documents x ${CPD} chunks = ${R * DPR * CPD} chunks`,
);

/** A statement's name in the org check's breakdown: the table or function it reads first. */
function statementName(sql) {
  const s = sql.replace(/\s+/g, ' ').trim();
  if (/^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|SET)/i.test(s)) return s.split(' ')[0].toUpperCase();
  // Before repository_terms: the term counts read each term's frequency in a subquery of their own.
  if (/SELECT t\.document_id, t\.term, t\.tf|FROM document_terms WHERE document_id/.test(s))
    return 'fetch: term counts';
  if (/FROM repository_terms/.test(s)) return 'document frequencies (repository_terms)';
  if (/WITH p AS MATERIALIZED|JOIN document_terms t ON t.term/.test(s))
    return 'lexical candidates (document_terms BM25)';
  if (/ORDER BY embedding <#>/.test(s)) return 'vector candidates (HNSW)';
  if (/FROM chunks WHERE document_id/.test(s)) return 'fetch: chunks';
  if (/FROM documents d JOIN repositories r/.test(s)) return 'fetch: documents';
  if (/FROM repositories/.test(s)) return 'repositories';
  return s.slice(0, 40);
}

function gaussian() {
  let u = 0;
  while (u === 0) u = rnd.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd.next());
}
function noisy(v, sigma) {
  const out = new Float32Array(D);
  let s = 0;
  for (let d = 0; d < D; d++) {
    out[d] = v[d] + sigma * gaussian();
    s += out[d] * out[d];
  }
  s = Math.sqrt(s);
  for (let d = 0; d < D; d++) out[d] /= s;
  return out;
}

/** All base chunks, for blending. */
const baseLabels = baseDocs.flatMap((d) => d.labels);
/**
 * A synthetic chunk near a base chunk, as bench/query-bench.mjs makes its "clustered" points: sometimes
 * blended with another base chunk, always with noise (cosine to the base ~0.7-0.95). Copies of a base with
 * noise alone would make the organisation ~190 near-duplicates of each base chunk at 1M chunks: a
 * degenerate graph no real corpus has.
 */
function perturbed(v) {
  const w = rnd.chance(0.3) ? 0.1 + 0.4 * rnd.next() : 0;
  const other = w ? baseVec(baseLabels[rnd.int(0, baseLabels.length - 1)]) : null;
  const mixed = other ? v.map((x, d) => (1 - w) * x + w * other[d]) : v;
  return noisy(mixed, 0.015 + 0.035 * rnd.next());
}

/** One repository as syncToTeamStore reads a local index: manifest, meta, getPoint, lexical docs. */
function repository(r) {
  const docs = [];
  const chunks = [];
  const points = [];
  const lexDocs = [];
  const files = {};
  for (let j = 0; j < DPR; j++) {
    const b = baseDocs[(r * DPR + j) % baseDocs.length];
    const filePath = `docs/audit/done/${j + 1}-${path.basename(path.dirname(b.filePath))}/001-issue.md`;
    const labels = [];
    for (let c = 0; c < CPD; c++) {
      const label = points.length;
      points.push(perturbed(baseVec(b.labels[c % b.labels.length])));
      chunks.push([label, docs.length, `Section ${c + 1}`, `excerpt ${c + 1} of ${b.title}`]);
      labels.push(label);
    }
    const hash = `r${r}d${j}`;
    docs.push({ ...b, filePath, issueId: String(j + 1), contentHash: hash, labels });
    files[filePath] = { hash, size: 4096, mtimeMs: 0 };
    const tf = new Map(tfOf.get(b.filePath) ?? []);
    tf.set(`repo${r}`, 1);
    tf.set(`doc${r}x${j}`, 1);
    let len = 0;
    for (const n of tf.values()) len += n;
    lexDocs.push({ path: filePath, len, tf });
  }
  const manifest = { ...base.manifest, files, chunkCount: chunks.length, nextLabel: points.length };
  return {
    name: `acme/repo-${String(r).padStart(3, '0')}`,
    local: { manifest, meta: { docs, chunks }, graph: { getPoint: (l) => points[l] }, vector: (l) => points[l] },
    lexical: { bm25: { docs: lexDocs } },
    points,
    lexDocs,
  };
}

// ---- the server ----------------------------------------------------------------------------
const pg = startBenchPostgres({
  shared_buffers: '2GB',
  maintenance_work_mem: '6GB',
  max_parallel_maintenance_workers: 2,
  work_mem: '64MB',
  max_wal_size: '8GB',
});
const result = {
  repos: R,
  docsPerRepo: DPR,
  chunksPerDoc: CPD,
  docs: R * DPR,
  chunks: R * DPR * CPD,
  baseDocuments: baseDocs.length,
};
let client;
try {
  client = await connectTeamStore(pg.url, 60_000, 3_600_000);
  await migrate(client);
  const server = await client.query(
    `SELECT current_setting('server_version') AS v, (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS pgvector`,
  );
  result.server = { postgres: server.rows[0].v, pgvector: server.rows[0].pgvector };

  // 1. Bulk first load: the product's sync, the HNSW index dropped.
  await client.query('DROP INDEX chunks_embedding');
  const keepForLocal = R * DPR * CPD <= LOCAL_MAX;
  const all = keepForLocal ? [] : null;
  let t = performance.now();
  for (let r = 0; r < R; r++) {
    const repo = repository(r);
    await syncToTeamStore(client, repo.local, repo.lexical, repo.name);
    if (all) all.push(repo);
    if ((r + 1) % Math.max(1, Math.floor(R / 10)) === 0)
      log(`store bench: ${r + 1}/${R} repositories synced (${((performance.now() - t) / 1000).toFixed(0)} s)`);
  }
  const bulkS = (performance.now() - t) / 1000;
  result.ingestBulk = { seconds: bulkS, docsPerSecond: (R * DPR) / bulkS, chunksPerSecond: (R * DPR * CPD) / bulkS };
  log(
    `store bench: bulk ingest ${bulkS.toFixed(0)} s: ${result.ingestBulk.docsPerSecond.toFixed(0)} docs/s, ${result.ingestBulk.chunksPerSecond.toFixed(0)} chunks/s`,
  );

  // 2. The HNSW build over every chunk.
  t = performance.now();
  await client.query('CREATE INDEX chunks_embedding ON chunks USING hnsw (embedding vector_ip_ops)');
  result.hnswBuildSeconds = (performance.now() - t) / 1000;
  const size = await client.query(
    `SELECT pg_relation_size('chunks_embedding') AS idx, pg_total_relation_size('chunks') AS chunks, pg_total_relation_size('document_terms') AS terms`,
  );
  result.sizes = {
    hnswBytes: Number(size.rows[0].idx),
    chunksTableBytes: Number(size.rows[0].chunks),
    termsTableBytes: Number(size.rows[0].terms),
  };
  log(
    `store bench: HNSW build ${result.hnswBuildSeconds.toFixed(0)} s (${(result.sizes.hnswBytes / 2 ** 20).toFixed(0)} MiB)`,
  );
  await client.query('ANALYZE');

  // 3. One more repository with the index in place (a team's next repository).
  t = performance.now();
  const extra = repository(R);
  await syncToTeamStore(client, extra.local, extra.lexical, extra.name);
  const incS = (performance.now() - t) / 1000;
  result.ingestIndexed = { seconds: incS, docsPerSecond: DPR / incS, chunksPerSecond: (DPR * CPD) / incS };
  log(
    `store bench: one repository with the index in place: ${incS.toFixed(1)} s, ${result.ingestIndexed.chunksPerSecond.toFixed(0)} chunks/s`,
  );
  await client.query('DELETE FROM repositories WHERE name = $1', [extra.name]);

  // 4. Queries: noisy copies of base chunks, their base document's terms as the brief.
  const queries = Array.from({ length: NQ }, (_, i) => {
    const b = baseDocs[Math.floor((i * baseDocs.length) / NQ)];
    const vectors = b.labels.slice(0, 3).map((l) => noisy(baseVec(l), 0.02));
    const terms = [...(tfOf.get(b.filePath) ?? new Map())].flatMap(([term, n]) => Array(Math.min(n, 3)).fill(term));
    return { title: b.title, vectors, text: `# ${b.title}\n\n${terms.join(' ')}` };
  });

  // Recall@20 of pgvector's HNSW against the exact answer (a sequential scan of the same table).
  const recallAt = async (ef) => {
    let hits = 0;
    let tied = 0;
    let returned = 0;
    const ms = [];
    for (const q of queries) {
      const lit = `[${Array.from(q.vectors[0]).join(',')}]`;
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_indexscan = off');
      await client.query('SET LOCAL enable_bitmapscan = off');
      const exact = await client.query(
        'SELECT id, embedding <#> $1::vector AS d FROM chunks ORDER BY embedding <#> $1::vector LIMIT 20',
        [lit],
      );
      const plan = await client.query('EXPLAIN SELECT id FROM chunks ORDER BY embedding <#> $1::vector LIMIT 20', [
        lit,
      ]);
      await client.query('COMMIT');
      if (!JSON.stringify(plan.rows).includes('Seq Scan'))
        throw new Error('store bench: the exact query did not scan the table');
      await client.query(`SET hnsw.ef_search = ${ef}`);
      const t0 = performance.now();
      const approx = await client.query(
        'SELECT id, embedding <#> $1::vector AS d FROM chunks ORDER BY embedding <#> $1::vector LIMIT 20',
        [lit],
      );
      ms.push(performance.now() - t0);
      const want = new Set(exact.rows.map((x) => x.id));
      hits += approx.rows.filter((x) => want.has(x.id)).length;
      // Ties at the 20th distance count as found (another chunk exactly as near is as good an answer).
      const last = exact.rows[exact.rows.length - 1]?.d ?? Infinity;
      tied += approx.rows.filter((x) => want.has(x.id) || x.d <= last + 1e-7).length;
      returned += approx.rows.length;
    }
    return {
      efSearch: ef,
      recallAt20: hits / (queries.length * 20),
      recallWithTies: tied / (queries.length * 20),
      meanReturned: returned / queries.length,
      queryMs: summarize(ms),
    };
  };
  result.recall = [await recallAt(40), await recallAt(160), await recallAt(400)];
  for (const r of result.recall)
    log(
      `store bench: recall@20 at ef_search ${r.efSearch}: ${r.recallAt20.toFixed(3)} (${r.meanReturned.toFixed(1)} rows returned on average; p50 ${r.queryMs.median.toFixed(1)} ms)`,
    );

  // 5. The org-scope check, warm, from a project with no past work of its own.
  const emptyLexical = {
    bm25: new Bm25Index([]),
    templates: { shingle: 8, minDocs: 3, docs: 0, hashes: new Set(), examples: [] },
  };
  const emptyLocal = {
    manifest: base.manifest,
    count: () => 0,
    search: () => [],
    docCount: () => 0,
    doc: () => undefined,
    scoreDoc: () => null,
    docMean: () => null,
  };
  const k = config.history.k;
  const orgMs = [];
  const orgAnswers = [];
  const viewMs = [];
  // Where an org check's time goes: each statement timed by what it reads (the rest is the client's scoring).
  const statementMs = new Map();
  const query = client.query.bind(client);
  // --explain: the server's plan of each kind of statement, once, as the first check sends it (EXPLAIN ANALYZE
  // runs it again; only after it succeeded, and its time is taken out of that check's).
  const explain = argv.includes('--explain');
  const explained = new Set();
  let explainMs = 0;
  client.query = async (sql, params) => {
    const name = statementName(String(sql));
    const t0 = performance.now();
    const res = await query(sql, params).finally(() =>
      statementMs.set(name, [...(statementMs.get(name) ?? []), performance.now() - t0]),
    );
    if (explain && /^\s*(WITH|SELECT)/i.test(String(sql)) && !explained.has(name)) {
      explained.add(name);
      const t1 = performance.now();
      const plan = await query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
      log(`store bench: plan of ${name}:\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
      explainMs += performance.now() - t1;
    }
    return res;
  };
  // --cpu-profile FILE: a V8 profile of the org checks alone (not the ingest before them), for DevTools or a script.
  const profileOut = opt('cpu-profile', null);
  const profiler = profileOut ? new (await import('node:inspector/promises')).Session() : null;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
  }
  for (const q of queries) {
    const scoring = scoringFor(config, q.text, {
      lexical: emptyLexical,
      chunks: q.vectors.map(() => q.text),
      model: true,
    });
    const t0 = performance.now();
    explainMs = 0;
    const view = await openOrgView(client, {
      self: null,
      model: identity,
      local: emptyLocal,
      localLexical: emptyLexical,
      vectors: q.vectors,
      scoring,
      k,
      type: 'history',
    });
    const t1 = performance.now();
    const h = checkHistory(view.index, q.vectors, k, config.thresholds, { ...scoring, lexical: view.lexical });
    orgMs.push(performance.now() - t0 - explainMs);
    viewMs.push(t1 - t0 - explainMs);
    orgAnswers.push({
      status: h.status,
      top: h.nearest[0]?.filePath ?? null,
      score: h.nearest[0]?.score ?? null,
      fetched: view.fetched,
    });
  }
  client.query = query;
  if (profiler) {
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync(profileOut, JSON.stringify(profile));
    log(`store bench: the org checks' CPU profile is in ${profileOut}`);
  }
  // Per check: a statement may run more than once in one (the vector search widens, term counts are read twice).
  const perCheck = [...statementMs].map(([name, ms]) => ({
    name,
    msPerCheck: ms.reduce((a, b) => a + b, 0) / queries.length,
    calls: ms.length / queries.length,
  }));
  result.orgCheck = {
    ms: summarize(orgMs),
    fetchedDocs: summarize(orgAnswers.map((a) => a.fetched)),
    statuses: countBy(orgAnswers.map((a) => a.status)),
    statements: perCheck.sort((a, b) => b.msPerCheck - a.msPerCheck),
    // openOrgView: the statements and what the client makes of their rows; the rest is checkHistory's scoring.
    viewMs: summarize(viewMs),
  };
  log(
    `store bench: org check p50 ${result.orgCheck.ms.median.toFixed(0)} ms, p95 ${result.orgCheck.ms.p95.toFixed(0)} ms (${result.orgCheck.fetchedDocs.median} documents read a check)`,
  );
  log(
    `store bench:   reading the store (openOrgView) p50 ${result.orgCheck.viewMs.median.toFixed(0)} ms; the rest is scoring`,
  );
  for (const st of result.orgCheck.statements)
    log(`store bench:   ${st.name}: ${st.msPerCheck.toFixed(1)} ms a check (${st.calls.toFixed(1)} calls)`);

  // 6. The same checks against one local HNSW index of the same documents.
  if (all) {
    const { loadHnswlib, HNSW_M, HNSW_EF_CONSTRUCTION } = hnswlibMod;
    const hnsw = await loadHnswlib();
    const n = all.reduce((s, r) => s + r.points.length, 0);
    const index = new hnsw.HierarchicalNSW('ip', D);
    index.initIndex(n, HNSW_M, HNSW_EF_CONSTRUCTION, 100, true);
    const docs = [];
    const chunks = [];
    const lexDocs = [];
    let label = 0;
    const tb = performance.now();
    for (const repo of all) {
      for (const d of repo.local.meta.docs) {
        const labels = [];
        for (const l of d.labels) {
          index.addPoint(Array.from(repo.points[l]), label);
          chunks.push([label, docs.length, 'Section', 'excerpt']);
          labels.push(label++);
        }
        docs.push({ ...d, filePath: `${repo.name}:${d.filePath}`, labels });
      }
      for (const x of repo.lexDocs) lexDocs.push({ ...x, path: `${repo.name}:${x.path}` });
    }
    result.localBuildSeconds = (performance.now() - tb) / 1000;
    const merged = new HnswIndex({ ...base.manifest, chunkCount: n, nextLabel: n }, { docs, chunks }, index);
    const lexical = { bm25: new Bm25Index(lexDocs), templates: emptyLexical.templates };
    const localMs = [];
    let sameStatus = 0;
    let sameWork = 0;
    const scoreDiffs = [];
    // Each base document has a copy in several repositories, near-equal by construction: which copy
    // leads is a tie. The same work is the same base document, whatever the copy.
    const work = (p) => (p ? p.replace(/^[^:]*:docs\/audit\/done\/\d+-/, '') : null);
    queries.forEach((q, i) => {
      const scoring = scoringFor(config, q.text, { lexical, chunks: q.vectors.map(() => q.text), model: true });
      const t0 = performance.now();
      const h = checkHistory(merged, q.vectors, k, config.thresholds, scoring);
      localMs.push(performance.now() - t0);
      if (h.status === orgAnswers[i].status) sameStatus++;
      if (work(h.nearest[0]?.filePath) === work(orgAnswers[i].top)) sameWork++;
      if (h.nearest[0] && orgAnswers[i].score !== null)
        scoreDiffs.push(Math.abs(h.nearest[0].score - orgAnswers[i].score));
    });
    result.localCheck = {
      chunks: n,
      ms: summarize(localMs),
      sameStatus: sameStatus / queries.length,
      sameTopWork: sameWork / queries.length,
      topScoreDiff: summarize(scoreDiffs),
    };
    log(
      `store bench: local check p50 ${result.localCheck.ms.median.toFixed(0)} ms, p95 ${result.localCheck.ms.p95.toFixed(0)} ms; against the org check: same status ${sameStatus}/${queries.length}, same top work ${sameWork}/${queries.length}, top score differs by ${result.localCheck.topScoreDiff?.max.toExponential(1)} at most`,
    );
  } else {
    result.localCheck = { skipped: `more than --local-max ${LOCAL_MAX} chunks` };
  }
} finally {
  await client?.end().catch(() => undefined);
  pg.stop();
}
emitResult(result);

function countBy(values) {
  const out = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
