/**
 * `agentos status` (issue 8 §2): effective settings and where each came from,
 * files per glob, model, index bookkeeping, changes since the index, lock
 * holder, log size. The index is a hand-written manifest (status never opens
 * the vectors); the model folder is a temp folder holding a stand-in file.
 */
import { METADATA_VERSION } from '../../src/work-memory/corpus/metadata.js';
import { buildLexical, LEXICAL_FILE } from '../../src/work-memory/lexical/file.js';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CHUNKING_VERSION } from '../../src/work-memory/chunks/chunk.js';
import { loadConfig } from '../../src/shared/config/load.js';
import { gatherStatus } from '../../src/cli/commands/status/gather.js';
import { renderStatus, runStatus } from '../../src/cli/commands/status/index.js';
import { effectiveSettings } from '../../src/cli/commands/status/settings.js';
import { emptyGlobWarnings } from '../../src/cli/commands/index/empty-globs.js';
import { listGlobs } from '../../src/work-memory/corpus/glob-counts.js';
import { corpusConfigHash } from '../../src/work-memory/index/corpus-config.js';
import { indexPaths } from '../../src/work-memory/index/layout.js';
import type { Manifest } from '../../src/work-memory/index/types.js';
import { fakeManifest, makeIO, makeProject, testContext } from '../helpers/fakes.js';

const CONFIG = [
  'corpus:',
  '  history:',
  '    - issues/closed/**/*.md',
  'thresholds:',
  '  duplicate: 0.9',
  'model:',
  '  dtype: q8',
  '',
].join('\n');

async function projectWithIndex(over: Partial<Manifest> = {}) {
  const root = await makeProject({
    '.agentos/config.yaml': CONFIG,
    'docs/adrs/0001-a.md': '# A\n',
    'docs/adrs/0002-b.md': '# B\n',
    'issues/closed/1-x.md': '# X\n',
    'models/Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx': Buffer.alloc(4096, 7),
    '.agentos/logs/agentos.log': 'x'.repeat(2048),
    '.agentos/logs/agentos.log.1': 'y'.repeat(1000),
  });
  const { config } = await loadConfig(root);
  const m: Manifest = {
    ...fakeManifest(),
    modelId: 'Xenova/all-MiniLM-L6-v2@q8',
    chunkingVersion: CHUNKING_VERSION,
    metadataVersion: METADATA_VERSION,
    includeHistory: true,
    chunkCount: 9,
    coverage: { standard: 2, history: 1 },
    corpusConfigHash: corpusConfigHash(config, true),
    createdAt: new Date(Date.now() - 600_000).toISOString(),
    ...over,
  };
  // Recorded as indexed: the two ADRs (one with a stale size) and a file since deleted.
  m.files = {
    'docs/adrs/0001-a.md': { hash: 'a', size: 4, mtimeMs: 0 },
    'docs/adrs/gone.md': { hash: 'g', size: 1, mtimeMs: 0 },
  };
  const p = indexPaths(root);
  await mkdir(p.generation('gen-abc-1').dir, { recursive: true });
  await writeFile(p.generation('gen-abc-1').manifest, JSON.stringify(m));
  await writeFile(p.current, 'gen-abc-1\n');
  return { root, config };
}

const env = (root: string) => ({ AGENTOS_MODEL_DIR: path.join(root, 'models') });

describe('effectiveSettings', () => {
  test('each key with its value and source: the config file for what it sets, default otherwise, the environment for the model folder', async () => {
    const { root, config } = await projectWithIndex();
    const s = new Map(effectiveSettings(root, config, env(root)).map((x) => [x.key, x]));
    expect(s.get('corpus.history')).toEqual({
      key: 'corpus.history',
      value: ['issues/closed/**/*.md'],
      source: '.agentos/config.yaml',
    });
    expect(s.get('corpus.standards')).toMatchObject({ source: 'default' });
    expect(s.get('thresholds.duplicate')).toEqual({
      key: 'thresholds.duplicate',
      value: 0.9,
      source: '.agentos/config.yaml',
    });
    expect(s.get('thresholds.related')).toEqual({ key: 'thresholds.related', value: 0.5, source: 'default' });
    expect(s.get('corpus.max_file_kb')).toEqual({ key: 'corpus.max_file_kb', value: 1024, source: 'default' });
    expect(s.get('check.timeout_ms')).toMatchObject({ source: 'default' });
    expect(s.get('model.dtype')).toMatchObject({ value: 'q8', source: '.agentos/config.yaml' });
    expect(s.get('model.dir')).toEqual({
      key: 'model.dir',
      value: path.join(root, 'models'),
      source: 'AGENTOS_MODEL_DIR',
    });
  });

  test('the store URL never shows its password, and names the environment when it comes from there', async () => {
    const root = await makeProject({
      '.agentos/config.yaml': 'store:\n  url: postgres://ann:s3cret-in-file@db.example:5432/agentos\n',
    });
    const { config } = await loadConfig(root);
    const fromFile = effectiveSettings(root, config, {}).find((x) => x.key === 'store.url');
    expect(fromFile).toEqual({
      key: 'store.url',
      value: 'postgres://ann:****@db.example:5432/agentos',
      source: '.agentos/config.yaml',
    });
    const fromEnv = effectiveSettings(root, config, {
      AGENTOS_DATABASE_URL: 'postgresql://bob:env-s3cret@db2.example/team?sslmode=require',
    }).find((x) => x.key === 'store.url');
    expect(fromEnv).toEqual({
      key: 'store.url',
      value: 'postgresql://bob:****@db2.example/team?sslmode=require',
      source: 'AGENTOS_DATABASE_URL',
    });
    expect(
      JSON.stringify(effectiveSettings(root, config, { AGENTOS_DATABASE_URL: 'postgres://bob:env-s3cret@h/d' })),
    ).not.toMatch(/s3cret/);
  });

  test('without a config file everything is a default', async () => {
    const root = await makeProject();
    const { config } = await loadConfig(root);
    expect(new Set(effectiveSettings(root, config, {}).map((s) => s.source))).toEqual(new Set(['default']));
  });
});

describe('gatherStatus', () => {
  test('globs, model, index, changes, lock, log', async () => {
    const { root, config } = await projectWithIndex();
    await writeFile(
      indexPaths(root).lock,
      JSON.stringify({ pid: 4242, host: 'build-1', startedAt: '2026-01-01T00:00:00.000Z' }),
    );
    const r = await gatherStatus(root, config, env(root));
    expect(r.globs.find((g) => g.glob === 'docs/adrs/**/*.md')).toEqual({
      type: 'standard',
      glob: 'docs/adrs/**/*.md',
      files: 2,
    });
    expect(r.globs.find((g) => g.glob === 'docs/adr/**/*.md')!.files).toBe(0);
    expect(r.globs.filter((g) => g.type === 'history')).toEqual([
      { type: 'history', glob: 'issues/closed/**/*.md', files: 1 },
    ]);
    expect(r.model).toMatchObject({
      id: 'Xenova/all-MiniLM-L6-v2@q8',
      dir: path.join(root, 'models'),
      source: 'AGENTOS_MODEL_DIR',
      present: true,
    });
    expect(r.model.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(r.index).toMatchObject({
      state: 'stale',
      generation: 'gen-abc-1',
      includeHistory: true,
      documents: { standard: 2, history: 1 },
      chunks: 9,
      changedSinceIndex: {
        added: ['docs/adrs/0002-b.md', 'issues/closed/1-x.md'],
        changed: ['docs/adrs/0001-a.md'],
        removed: ['docs/adrs/gone.md'],
        configChanged: false,
      },
    });
    expect(r.index.ageSeconds).toBeGreaterThanOrEqual(599);
    // The index's fingerprint differs from the model on disk: it needs a full rebuild, and status says so.
    expect(r.index.incompatible).toMatch(/model weights changed/);
    expect(r.lock.holder).toEqual({ pid: 4242, host: 'build-1', startedAt: '2026-01-01T00:00:00.000Z', alive: null });
    expect(r.log.bytes).toBe(3048);
    expect(r.templates).toBeNull();
  });

  test('a lock held on this host says whether its process still runs', async () => {
    const { root, config } = await projectWithIndex();
    await writeFile(indexPaths(root).lock, JSON.stringify({ pid: process.pid, host: os.hostname(), startedAt: 'now' }));
    expect((await gatherStatus(root, config, env(root))).lock.holder).toMatchObject({ pid: process.pid, alive: true });
  });

  test('templates: what the lexical index of the current generation found as shared boilerplate', async () => {
    const { root, config } = await projectWithIndex();
    // Six reports filed from one template: its sentences are boilerplate, the rest is not.
    const boiler =
      'Please fill in every field of this template before filing the report so triage can route it quickly.';
    const docs = Array.from({ length: 6 }, (_, i) => ({
      path: `issues/closed/${i}.md`,
      text: `${boiler}\n\nThe widget number ${i} crashes when the ${['red', 'blue', 'green', 'tall', 'wide', 'round'][i]} button is pressed twice.`,
    }));
    await writeFile(path.join(indexPaths(root).generation('gen-abc-1').dir, LEXICAL_FILE), buildLexical(docs).buffer);
    const t = (await gatherStatus(root, config, env(root))).templates;
    expect(t).toMatchObject({ docs: 6 });
    expect(t!.shingles).toBeGreaterThan(0);
    expect(t!.examples.map((e) => e.text).join(' ')).toContain('fill in every field');
  });

  test('no index, no lock, no log', async () => {
    const root = await makeProject();
    const { config } = await loadConfig(root);
    const r = await gatherStatus(root, config, {});
    expect(r.index).toMatchObject({ state: 'no_index', generation: null, documents: null, ageSeconds: null });
    expect(r.lock.holder).toBeNull();
    expect(r.log.bytes).toBe(0);
    expect(r.config.file).toBeNull();
    expect(renderStatus(r)).toContain('none yet: run `agentos index --include-history`');
  });
});

describe('runStatus', () => {
  test('--json on stdout carries the whole report', async () => {
    const { root } = await projectWithIndex();
    const t = makeIO(root, { env: env(root) });
    expect(await runStatus(testContext(t.io), { json: true })).toBe(0);
    const j = JSON.parse(t.stdout());
    expect(Object.keys(j)).toEqual([
      'root',
      'config',
      'globs',
      'model',
      'index',
      'sources',
      'lock',
      'log',
      'templates',
      'line',
    ]);
    expect(j.index.documents).toEqual({ standard: 2, history: 1 });
    expect(j.line).toEqual({
      kind: 'shipped',
      project: null,
      problem: null,
      calibration: expect.stringMatching(/^[0-9a-f]{8}$/),
    });
    expect(t.stderr()).toBe('');
  });

  test('text: sources beside values, globs matching nothing flagged, the changes named', async () => {
    const { root } = await projectWithIndex();
    const t = makeIO(root, { env: env(root) });
    await runStatus(testContext(t.io), {});
    const out = t.stdout();
    expect(out).toMatch(/thresholds\.duplicate\s+0\.9\s+\(\.agentos\/config\.yaml\)/);
    expect(out).toMatch(/thresholds\.related\s+0\.5\s+\(default\)/);
    expect(out).toMatch(/docs\/adr\/\*\*\/\*\.md\s+0\s+\(matches nothing\)/);
    expect(out).toMatch(/documents\s+2 standard, 1 history; 9 chunks/);
    expect(out).toContain(
      '4 files: docs/adrs/0002-b.md (new), issues/closed/1-x.md (new), docs/adrs/0001-a.md (changed), docs/adrs/gone.md (deleted)',
    );
    expect(out).toContain('Lock: free');
    expect(out).toMatch(/Log: .*agentos\.log \(3\.0 KB\)/);
  });
});

describe('index finding nothing names the globs that matched nothing (emptyGlobWarnings)', () => {
  test('0 files: every empty glob named, pointing to agentos init', async () => {
    const root = await makeProject({ 'notes/x.md': '# x\n' });
    const { config } = await loadConfig(root);
    const r = await emptyGlobWarnings(root, config, { scanned: 0 }, false);
    expect(r.globs.map((g) => g.files)).toEqual(config.corpus.standards.map(() => 0));
    expect(r.warnings).toEqual([
      `no files matched the corpus globs (${listGlobs(config.corpus.standards)} matched nothing); run \`agentos init\` to detect the project's folders, or edit .agentos/config.yaml`,
    ]);
  });

  test('standards found but --include-history found no history: says so', async () => {
    const root = await makeProject({ 'docs/adrs/1.md': '# x\n' });
    const { config } = await loadConfig(root);
    const r = await emptyGlobWarnings(root, config, { scanned: 1 }, true);
    expect(r.warnings).toEqual([
      expect.stringMatching(
        /^history globs matched 0 files \(docs\/audit\/done\/\*\/001-issue\.md, .*\): no completed work is indexed; run `agentos init`/,
      ),
    ]);
  });

  test('files found: nothing to say, and no glob counted', async () => {
    const root = await makeProject({ 'docs/adrs/1.md': '# x\n', 'docs/audit/done/1-x/001-issue.md': '# y\n' });
    const { config } = await loadConfig(root);
    expect(await emptyGlobWarnings(root, config, { scanned: 1 }, false)).toEqual({ globs: [], warnings: [] });
    expect(await emptyGlobWarnings(root, config, { scanned: 2 }, true)).toEqual({ globs: [], warnings: [] });
  });
});
