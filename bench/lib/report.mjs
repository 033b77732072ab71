// Targets and tables, from a results document (bench/results/*.json).
import { fmt, mmm, table } from './common.mjs';

/** The performance targets (docs/benchmarks.md explains each). */
export function evaluateTargets(r) {
  const out = [];
  const le = (id, what, value, limit, unit) =>
    value !== null && value !== undefined && out.push({ id, what, value, limit, unit, op: '<=', met: value <= limit });
  const ge = (id, what, value, limit, unit) =>
    value !== null && value !== undefined && out.push({ id, what, value, limit, unit, op: '>=', met: value >= limit });
  const cold = r.coldStart ?? {};
  le('cold-demo', 'cold issue start, demo corpus (median wall)', cold.demo?.summary.wall?.median, 500, 'ms');
  le('cold-1k', 'cold issue start, 1,000-doc index (median wall)', cold.corpus1k?.summary.wall?.median, 600, 'ms');
  // Issue 50: against a bare `node -e 0` started just before each run (same run, same load), not a wall time.
  le(
    'cold-demo-vs-node',
    'cold issue start, demo / bare node start (median wall, interleaved)',
    cold.demo?.ratio?.wall,
    5,
    'x',
  );
  const inc = r.incremental?.corpus1k;
  le('noop-1k', 'no-op re-index, 1,000 docs (median wall)', inc?.noop?.summary.wall?.median, 500, 'ms');
  le('one-changed-1k', 'one changed file, 1,000 docs (median wall)', inc?.oneChanged?.summary.wall?.median, 1000, 'ms');
  const ort = r.embedVsOrt?.ortMsPerToken?.median;
  for (const [key, name] of [
    ['corpus1k', '1,000 docs'],
    ['demo', 'demo'],
  ]) {
    const f = r.fullIndex?.[key];
    if (f && ort)
      le(
        `index-vs-ort-${key}`,
        `full index (${name}): whole-process time per token vs pure ORT run time per token`,
        f.summary.msPerToken.median / ort,
        1.3,
        'x',
      );
  }
  if (r.embedVsOrt)
    le(
      'embed-vs-ort',
      'MiniLMEmbedder.embed vs pure ORT session.run, same batches (ms/token)',
      r.embedVsOrt.ratio,
      1.3,
      'x',
    );
  const q = r.query?.results ?? [];
  const top = Math.max(0, ...q.map((x) => x.n));
  for (const x of q.filter((x) => x.n === top && top >= 100000)) {
    le(
      `query-100k-${x.kind}`,
      `HNSW query at ${x.n.toLocaleString('en')} chunks, ${x.kind} vectors (median)`,
      x.hnswMs.median,
      5,
      'ms',
    );
    ge(
      `recall-100k-${x.kind}`,
      `recall@${x.k} at ${x.n.toLocaleString('en')} chunks, ${x.kind} vectors`,
      x.recall,
      0.99,
      '',
    );
  }
  for (const [key, name] of [
    ['demo', 'demo'],
    ['corpus1k', '1,000 docs'],
    ['chunks100k', '100k chunks'],
  ]) {
    const s = cold[key]?.summary.peakRssMb;
    if (s) le(`rss-${key}`, `peak RSS of issue start (${name}, max over runs)`, s.max, 300, 'MB');
  }
  const mcpDemo = (r.mcp?.results ?? []).find((m) => m.label === 'demo');
  if (mcpDemo?.newBrief)
    le(
      'mcp-new-demo',
      `MCP check_brief, warm server, a brief never seen (demo, p50 over ${mcpDemo.newBrief.n} fresh briefs)`,
      mcpDemo.newBrief.median,
      30,
      'ms',
    );
  for (const m of r.mcp?.results ?? []) {
    le(
      `mcp-warm-${m.label === 'demo' ? 'demo' : '1k'}`,
      `MCP check_brief, warm server, briefs seen before (${m.label}, p50 over ${m.briefs ?? 1} brief(s))`,
      m.warm?.median,
      m.label === 'demo' ? 20 : 150,
      'ms',
    );
  }
  for (const t of out) {
    const diff = t.op === '<=' ? t.value - t.limit : t.limit - t.value;
    t.by = t.met
      ? `met (${fmtVal(Math.abs(diff), t.unit)} to spare)`
      : `missed by ${fmtVal(diff, t.unit)}${t.unit === 'x' || t.unit === '' ? '' : ` (${((100 * diff) / t.limit).toFixed(0)}%)`}`;
  }
  return out;
}

function fmtVal(v, unit) {
  if (unit === 'x') return `${v.toFixed(2)}x`;
  if (unit === '') return v.toFixed(4);
  if (unit === 'ms' && v < 10) return `${v.toFixed(2)} ms`;
  return `${v.toFixed(0)} ${unit}`;
}

const COLD_ROWS = [
  ['wall', 'wall (spawn to exit)'],
  ['boot', '  process start (exec + node boot)'],
  ['cliImport', '  CLI imports (bin, dist/cli/cli.js)'],
  ['setupOutput', '  setup + output (config, brief, lazy imports, log, write)'],
  ['check', '  check (checkMs)'],
  ['load', '    model + index load (started together, serial on one thread)'],
  ['modelLoad', '      model load (modelLoadMs)'],
  ['indexLoad', '      index load (indexLoadMs)'],
  ['embed', '    brief embedding (embedMs)'],
  ['query', '    query (queryMs)'],
  ['exit', '  exit (teardown after output)'],
  ['peakRssMb', 'peak RSS (MB)'],
  ['cpuMs', 'CPU time user+sys (ms)'],
];

/** All tables, as plain text (stdout) or markdown (docs). */
export function renderReport(r, { markdown = false } = {}) {
  const T = (headers, rows) => (markdown ? mdTable(headers, rows) : table(headers, rows));
  const parts = [];
  const h = (s) => parts.push(markdown ? `#### ${s}\n` : `\n== ${s} ==`);
  const cell = (s, d = 0) => mmm(s, d);

  const cold = r.coldStart ?? {};
  const coldKeys = ['demo', 'corpus1k', 'chunks100k'].filter((k) => cold[k]);
  if (coldKeys.length) {
    h('Cold `issue start --non-interactive --json` (ms, min / median / max)');
    const names = { demo: 'demo corpus', corpus1k: '1,000 docs', chunks100k: '100k chunks' };
    const headers = ['phase', ...coldKeys.map((k) => `${names[k]} (${cold[k].summary.wall.n} runs)`)];
    const rows = COLD_ROWS.map(([f, name]) => [
      name,
      ...coldKeys.map((k) => cell(cold[k].summary[f], f === 'query' || f === 'embed' ? 0 : 0)),
    ]);
    rows.push([
      'bare `node -e 0` before each run (wall)',
      ...coldKeys.map((k) => (cold[k].bare ? cell(cold[k].bare.wall) : '-')),
    ]);
    rows.push([
      'bare `node -e 0` (CPU user+sys)',
      ...coldKeys.map((k) => (cold[k].bare?.cpuMs ? cell(cold[k].bare.cpuMs) : '-')),
    ]);
    rows.push([
      'issue start / bare node (median wall; CPU)',
      ...coldKeys.map((k) =>
        cold[k].ratio ? `x${cold[k].ratio.wall.toFixed(2)}; x${cold[k].ratio.cpu?.toFixed(2) ?? '-'}` : '-',
      ),
    ]);
    rows.push(['warm-up run on a fresh copy (wall, not counted)', ...coldKeys.map((k) => fmt(cold[k].first?.wall))]);
    rows.push(['index size (chunks)', ...coldKeys.map((k) => (cold[k].chunks ? String(cold[k].chunks) : '-'))]);
    rows.push(['check status', ...coldKeys.map((k) => cold[k].status ?? '-')]);
    parts.push(T(headers, rows));
  }
  if (r.imports?.length) {
    h('Import cost, fresh process per import (ms, min / median / max)');
    parts.push(
      T(
        ['module', 'import', 'process wall'],
        r.imports.map((x) => [x.module, cell(x.importMs), cell(x.wallMs)]),
      ),
    );
  }
  if (r.modelProfile) {
    h('Model load profile, fresh process (ms, min / median / max)');
    const s = r.modelProfile.summary;
    const names = {
      importOrtMs: 'import onnxruntime-node',
      importTokenizersMs: 'import @huggingface/tokenizers',
      importEmbedderMs: 'import dist/work-memory/embeddings/minilm.js',
      loadMs: 'MiniLMEmbedder.load (tokenizer + session from cached graph)',
      freshLoadMs: 'MiniLMEmbedder.load with an empty graph cache (first run ever: optimise + save graph)',
      firstEmbedMs: 'first brief embedding',
      secondEmbedMs: 'second brief embedding (warm)',
      briefTokens: 'brief tokens (count)',
      onnxSessionMs: 'first session of a process from the .onnx, default options (full optimisation)',
      onnxFirstRunMs: '  its first run, 1x256 tokens',
      onnxSecondRunMs: '  its second run',
      cachedSessionMs: 'first session of a process from the cached optimised graph (as the embedder)',
      cachedFirstRunMs: '  its first run, 1x256 tokens',
      cachedSecondRunMs: '  its second run',
      tokenizerBuildMs: 'tokenizer build (read tokenizer.json + construct)',
    };
    parts.push(
      T(
        ['step', 'ms'],
        Object.keys(s).map((k) => [names[k] ?? k, cell(s[k])]),
      ),
    );
  }
  const ilp = r.indexLoadProfile ?? {};
  const ilpKeys = ['demo', 'corpus1k', 'chunks100k'].filter((k) => ilp[k]);
  if (ilpKeys.length) {
    h('Index load step by step, fresh process (ms unless noted; median)');
    const names = {
      manifestBytes: 'manifest.json (MB)',
      metaBytes: 'meta.json (MB)',
      vectorsBytes: 'vectors.hnsw (MB)',
      readManifestMs: 'read + parse manifest',
      vectorsHeadShaMs: 'hash head of vectors',
      readMetaMs: 'read meta.json',
      metaSha256Ms: 'sha256 of meta.json',
      parseMetaMs: 'JSON.parse meta.json',
      importHnswlibMs: 'import hnswlib-node',
      readVectorsMs: 'hnswlib readIndexSync',
      buildStoreMs: 'new HnswIndex (label map)',
      rssStartMb: 'RSS before (MB)',
      rssAfterMetaMb: 'RSS after meta (MB)',
      rssAfterVectorsMb: 'RSS after vectors (MB)',
      rssEndMb: 'RSS after store (MB)',
      heapUsedMb: 'JS heap used (MB)',
    };
    const label = { demo: 'demo', corpus1k: '1,000 docs', chunks100k: '100k chunks' };
    parts.push(
      T(
        ['step', ...ilpKeys.map((k) => label[k])],
        Object.keys(names).map((f) => [
          names[f],
          ...ilpKeys.map((k) => {
            const v = ilp[k].summary[f]?.median;
            return v === undefined ? '-' : f.endsWith('Bytes') ? fmt(v / 2 ** 20, 1) : fmt(v, v < 10 ? 1 : 0);
          }),
        ]),
      ),
    );
  }
  const full = r.fullIndex ?? {};
  const fullKeys = Object.keys(full);
  if (fullKeys.length) {
    h('Full index (`index --include-history --full`), min / median / max');
    const ort = r.embedVsOrt?.ortMsPerToken?.median;
    parts.push(
      T(
        [
          'corpus',
          'docs',
          'chunks',
          'tokens',
          'wall s',
          'docs/s',
          'chunks/s',
          'tokens/s',
          'peak RSS MB',
          'CPU util',
          'vs pure ORT',
        ],
        fullKeys.map((k) => {
          const f = full[k];
          return [
            `${f.label} (${f.runs} runs)`,
            String(f.docs),
            String(f.chunks),
            String(f.tokens),
            mmm(f.summary.wall, 1, 1 / 1000),
            cell(f.summary.docsPerSec, 1),
            cell(f.summary.chunksPerSec, 1),
            cell(f.summary.tokensPerSec),
            cell(f.summary.peakRssMb),
            cell(f.summary.cpuUtil, 2),
            ort ? `${(f.summary.msPerToken.median / ort).toFixed(2)}x` : '-',
          ];
        }),
      ),
    );
  }
  const inc = r.incremental ?? {};
  for (const k of Object.keys(inc)) {
    const x = inc[k];
    h(`Incremental index, ${x.label} (ms, min / median / max)`);
    const rows = [
      [
        'no file changed',
        cell(x.noop.summary.wall),
        cell(x.noop.summary.peakRssMb),
        '0',
        String(x.noop.summary.wall.n),
      ],
    ];
    if (x.oneChanged)
      rows.push([
        'one file changed',
        cell(x.oneChanged.summary.wall),
        cell(x.oneChanged.summary.peakRssMb),
        fmt(x.oneChanged.summary.chunksEmbedded.median),
        String(x.oneChanged.summary.wall.n),
      ]);
    if (x.tenDeleted)
      rows.push([
        'ten files deleted',
        cell(x.tenDeleted.summary.wall),
        cell(x.tenDeleted.summary.peakRssMb),
        '0',
        String(x.tenDeleted.summary.wall.n),
      ]);
    parts.push(T(['case', 'wall', 'peak RSS MB', 'chunks embedded', 'runs'], rows));
    const profiles = [
      ['no file changed', x.noop?.profile],
      ['one file changed', x.oneChanged?.profile],
    ].filter(([, p]) => p);
    if (profiles.length) {
      h(`Incremental index phases, ${x.label}: buildIndex in a fresh process (ms, median of 3)`);
      const names = {
        wall: 'process wall',
        importMs: 'import index modules',
        openAndScanMs: 'open previous generation + scan',
        scanAgainMs: '  of which scan (timed again after the run)',
        compareMs: 'compare with manifest (read changed files)',
        modelLoadMs: 'model load',
        chunkAndEmbedMs: 'chunk + embed',
        writeMs: 'write generation (HNSW, meta, fsync, prune)',
        totalMs: 'buildIndex total',
      };
      parts.push(
        T(
          ['phase', ...profiles.map(([n]) => n)],
          Object.keys(names).map((f) => [names[f], ...profiles.map(([, p]) => fmt(p[f]?.median))]),
        ),
      );
    }
  }
  if (r.query?.results?.length) {
    h(
      `Query latency alone (HNSW M=${r.query.M}, efConstruction=${r.query.efConstruction}, ef=${r.query.efSearch}; exact = brute-force scan)`,
    );
    parts.push(
      T(
        [
          'vectors',
          'chunks',
          'queries',
          'HNSW median ms',
          'HNSW p95 ms',
          'exact median ms',
          'exact p95 ms',
          `recall@${r.query.results[0].k}`,
          'mean top-1 cos',
          'HNSW build s',
        ],
        r.query.results.map((x) => [
          x.kind,
          x.n.toLocaleString('en'),
          String(x.queries),
          fmt(x.hnswMs.median, 3),
          fmt(x.hnswMs.p95, 3),
          fmt(x.exactMs.median, 2),
          fmt(x.exactMs.p95, 2),
          fmt(x.recall, 4),
          fmt(x.meanTop1Cosine, 3),
          fmt(x.buildMs / 1000, 1),
        ]),
      ),
    );
  }
  const sweeps = (r.query?.results ?? []).filter((x) => x.efSweep);
  if (sweeps.length) {
    h('Search breadth at the largest size: recall@k and HNSW median latency by ef');
    const efs = [...new Set(sweeps.flatMap((x) => x.efSweep.map((s) => s.ef)))].sort((a, b) => a - b);
    parts.push(
      T(
        ['vectors', 'chunks', ...efs.map((e) => `ef=${e}`)],
        sweeps.map((x) => [
          x.kind,
          x.n.toLocaleString('en'),
          ...efs.map((e) => {
            const s = x.efSweep.find((y) => y.ef === e);
            return s ? `${fmt(s.recall, 4)} @ ${fmt(s.hnswMs.median, 2)} ms` : '-';
          }),
        ]),
      ),
    );
  }
  const e = r.embedVsOrt;
  if (e) {
    h(
      `Embedding cost per token: MiniLMEmbedder.embed vs pure ONNX Runtime (${e.texts} chunk texts, ${e.tokens} tokens, ${e.batches} batches; same batches: ${e.batchesMatch})`,
    );
    const rows = [
      [
        'MiniLMEmbedder.embed (whole call)',
        mmm(e.pipelineMsPerToken, 1, 1000),
        fmt(e.pipelineTokensPerSec),
        `${e.ratio.toFixed(2)}x`,
      ],
      ['  of which session.run', mmm(e.pipelineInferenceMsPerToken, 1, 1000), '-', `${e.inferenceRatio.toFixed(2)}x`],
      ['pure ORT session.run (default options)', mmm(e.ortMsPerToken, 1, 1000), fmt(e.ortTokensPerSec), '1.00x'],
      ...(e.ortVariants ?? []).map((v) => [
        `pure ORT, ${v.name}`,
        mmm(v.msPerToken, 1, 1000),
        fmt(1000 / v.msPerToken.median),
        `${v.vsDefault.toFixed(2)}x`,
      ]),
      ['chunking + tokenization (index path)', fmt(e.chunkingMsPerToken * 1000, 1), '-', '-'],
    ];
    parts.push(T(['', 'µs/token (min / median / max)', 'tokens/s', 'vs pure ORT'], rows));
  }
  const targets = r.targets ?? [];
  if (targets.length) {
    h('Targets');
    parts.push(
      T(
        ['target', 'measured', 'limit', 'result'],
        targets.map((t) => [t.what, fmtVal(t.value, t.unit), `${t.op} ${fmtVal(t.limit, t.unit)}`, t.by]),
      ),
    );
  }
  return parts.join('\n') + '\n';
}

function mdTable(headers, rows) {
  const esc = (s) => String(s ?? '').replace(/\|/g, '\\|');
  return (
    [
      `| ${headers.map(esc).join(' | ')} |`,
      `|${headers.map((_, i) => (i === 0 ? ' --- ' : ' ---: ')).join('|')}|`,
      ...rows.map(
        (r) => `| ${r.map((c) => esc(String(c).replace(/^ +/, (m) => '\u00a0'.repeat(m.length)))).join(' | ')} |`,
      ),
    ].join('\n') + '\n'
  );
}
