/**
 * Index freshness (issue 8 §1): the stat-only comparison of the corpus with the
 * manifest, what a check does with a stale index, the coverage it reports, and
 * the history coverage the index remembers between `index` runs. The manifests
 * are written by hand (no vectors, no model): only the manifest is read here.
 */
import { METADATA_VERSION } from '../../src/work-memory/corpus/metadata.js';
import { mkdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CHUNKING_VERSION } from '../../src/work-memory/chunks/chunk.js';
import { DEFAULT_CONFIG, type Config } from '../../src/shared/config/schema.js';
import type { ModelIdentity } from '../../src/work-memory/index/build.js';
import { corpusConfigHash } from '../../src/work-memory/index/corpus-config.js';
import {
  checkFreshness,
  compareWithManifest,
  describeChanges,
  indexAgeSeconds,
  resolveHistoryScope,
} from '../../src/work-memory/index/freshness.js';
import { readCurrent } from '../../src/work-memory/index/hnsw-index.js';
import { indexPaths } from '../../src/work-memory/index/layout.js';
import { coverageJson, refreshIfStale } from '../../src/work-memory/index/refresh.js';
import type { Manifest } from '../../src/work-memory/index/types.js';
import { fakeManifest, makeProject } from '../helpers/fakes.js';

const config = (): Config => structuredClone(DEFAULT_CONFIG);
const MODEL: ModelIdentity = {
  modelId: 'fake/embedder@test',
  modelFingerprint: 'fake-fingerprint',
  dimensions: 384,
  maxTokens: 256,
};

const STD = 'docs/standards/logging.md';
const ADR = 'docs/adrs/0001-postgres.md';
const HIST = 'docs/audit/done/12-upgrade/001-issue.md';

async function statOf(root: string, rel: string) {
  const s = await stat(path.join(root, rel));
  return { size: s.size, mtimeMs: s.mtimeMs };
}

/** Write CURRENT and a manifest recording `files` as they are on disk now. */
async function writeIndex(
  root: string,
  files: string[],
  over: Partial<Manifest> = {},
  cfg = config(),
): Promise<Manifest> {
  const m: Manifest = {
    ...fakeManifest(),
    chunkingVersion: CHUNKING_VERSION,
    metadataVersion: METADATA_VERSION,
    includeHistory: true,
    coverage: { standard: 0, history: 0 },
    corpusConfigHash: corpusConfigHash(cfg, over.includeHistory ?? true),
    ...over,
  };
  for (const f of files) m.files[f] = { hash: `h-${f}`, ...(await statOf(root, f)) };
  const p = indexPaths(root);
  const name = 'gen-test-1';
  await mkdir(p.generation(name).dir, { recursive: true });
  await writeFile(p.generation(name).manifest, JSON.stringify(m));
  await writeFile(p.current, name + '\n');
  return m;
}

async function project(): Promise<string> {
  return makeProject({
    [STD]: '# Logging\n\nUse pino.\n',
    [ADR]: '# ADR 1: Postgres\n\nWe use Postgres.\n',
    [HIST]: '# Issue #12: Upgrade\n\nDone.\n',
  });
}

describe('compareWithManifest (pure)', () => {
  const m = {
    files: {
      'a.md': { hash: 'x', size: 10, mtimeMs: 1 },
      'b.md': { hash: 'y', size: 20, mtimeMs: 2 },
      'gone.md': { hash: 'z', size: 1, mtimeMs: 1 },
    },
  };

  test('added, changed (size or mtime) and removed, each sorted by byte order', () => {
    const d = compareWithManifest(m, [
      { relPath: 'b.md', size: 20, mtimeMs: 3 },
      { relPath: 'a.md', size: 11, mtimeMs: 1 },
      { relPath: 'new-B.md', size: 5, mtimeMs: 5 },
      { relPath: 'new-A.md', size: 5, mtimeMs: 5 },
    ]);
    expect(d).toEqual({ added: ['new-A.md', 'new-B.md'], changed: ['a.md', 'b.md'], removed: ['gone.md'] });
  });

  test('identical stat pairs are no change', () => {
    expect(
      compareWithManifest(m, [
        { relPath: 'a.md', size: 10, mtimeMs: 1 },
        { relPath: 'b.md', size: 20, mtimeMs: 2 },
        { relPath: 'gone.md', size: 1, mtimeMs: 1 },
      ]),
    ).toEqual({
      added: [],
      changed: [],
      removed: [],
    });
  });

  test('a file the build skipped is not new while unchanged, and is new again once it changes', () => {
    const withSkip = { files: {}, skipped: { 'bin.md': { size: 7, mtimeMs: 7, reason: 'binary file' } } };
    expect(compareWithManifest(withSkip, [{ relPath: 'bin.md', size: 7, mtimeMs: 7 }]).added).toEqual([]);
    expect(compareWithManifest(withSkip, [{ relPath: 'bin.md', size: 8, mtimeMs: 7 }]).added).toEqual(['bin.md']);
  });
});

describe('checkFreshness (stat scan against the live manifest)', () => {
  test('no index at all', async () => {
    const root = await project();
    const f = await checkFreshness(root, config());
    expect(f).toMatchObject({
      state: 'no_index',
      generation: null,
      manifest: null,
      added: [],
      changed: [],
      removed: [],
    });
  });

  test('an unreadable manifest is reported, not thrown', async () => {
    const root = await project();
    await writeIndex(root, []);
    await writeFile(indexPaths(root).generation('gen-test-1').manifest, '{ not json');
    const f = await checkFreshness(root, config());
    expect(f.state).toBe('unreadable');
    expect(f.error).toMatch(/manifest .* is unreadable or corrupt/);
  });

  test('fresh when every corpus file is recorded with its stat pair', async () => {
    const root = await project();
    await writeIndex(root, [ADR, HIST, STD]);
    const f = await checkFreshness(root, config(), MODEL);
    expect(f).toMatchObject({
      state: 'fresh',
      added: [],
      changed: [],
      removed: [],
      configChanged: false,
      incompatible: null,
      generation: 'gen-test-1',
    });
    expect(f.scanMs).toBeGreaterThan(0);
  });

  test('an index whose ids were read by older metadata rules is stale with no file changed, and says so', async () => {
    const root = await project();
    await writeIndex(root, [ADR, HIST, STD], { metadataVersion: undefined });
    const f = await checkFreshness(root, config(), MODEL);
    expect(f).toMatchObject({
      state: 'stale',
      added: [],
      changed: [],
      removed: [],
      configChanged: false,
      metadataOutdated: true,
    });
    await writeIndex(root, [ADR, HIST, STD]);
    expect(await checkFreshness(root, config(), MODEL)).toMatchObject({ state: 'fresh', metadataOutdated: false });
  });

  test('a new history file, a touched standard and a deleted ADR make it stale, named', async () => {
    const root = await project();
    await writeIndex(root, [ADR, HIST, STD]);
    const added = 'docs/audit/done/13-new/001-issue.md';
    await mkdir(path.join(root, path.dirname(added)), { recursive: true });
    await writeFile(path.join(root, added), '# Issue #13\n');
    await utimes(path.join(root, STD), new Date(), new Date(Date.now() + 5000));
    await rm(path.join(root, ADR));
    const f = await checkFreshness(root, config());
    expect(f).toMatchObject({ state: 'stale', added: [added], changed: [STD], removed: [ADR] });
    expect(describeChanges(f)).toBe(`${added} (new), ${STD} (changed), ${ADR} (deleted)`);
  });

  test('an index built without history ignores history files (it covers what it was built to cover)', async () => {
    const root = await project();
    await writeIndex(root, [ADR, STD], { includeHistory: false });
    expect((await checkFreshness(root, config())).state).toBe('fresh');
  });

  test('a changed corpus glob is stale even when no file differs', async () => {
    const root = await project();
    await writeIndex(root, [ADR, HIST, STD]);
    const cfg = config();
    cfg.corpus.exclude = ['docs/nothing/**'];
    const f = await checkFreshness(root, cfg);
    expect(f).toMatchObject({ state: 'stale', configChanged: true, added: [], changed: [], removed: [] });
  });

  test('a model change is reported as needing a full rebuild', async () => {
    const root = await project();
    await writeIndex(root, [ADR, HIST, STD], { chunkCount: 3 });
    const f = await checkFreshness(root, config(), { ...MODEL, modelFingerprint: 'other-weights' });
    expect(f.incompatible).toBe('the model weights changed (fake-fingerprint -> other-weights)');
  });
});

describe('refreshIfStale decides without building when it must not build', () => {
  const never = async () => {
    throw new Error('the embedder must not be loaded');
  };

  test('fresh: nothing runs', async () => {
    const root = await project();
    await writeIndex(root, [ADR, HIST, STD]);
    const o = await refreshIfStale({
      root,
      config: config(),
      model: MODEL,
      loadEmbedder: never,
      noRefresh: false,
      lockWaitMs: 0,
    });
    expect(o).toMatchObject({ ran: false, skipped: null, error: null, report: null });
    expect(coverageJson(o).refresh.state).toBe('fresh');
  });

  test('--no-refresh: stale index left as is, the files it misses reported', async () => {
    const root = await project();
    await writeIndex(root, [ADR, STD]);
    const o = await refreshIfStale({
      root,
      config: config(),
      model: MODEL,
      loadEmbedder: never,
      noRefresh: true,
      lockWaitMs: 0,
    });
    expect(o).toMatchObject({ ran: false, skipped: 'no-refresh' });
    const c = coverageJson(o);
    expect(c.refresh).toMatchObject({ state: 'stale', ran: false, skipped: 'no-refresh', added: [HIST] });
    expect(c.staleFiles).toEqual([HIST]);
  });

  test('incompatible model: not rebuilt in full before a check', async () => {
    const root = await project();
    await writeIndex(root, [ADR, STD], { chunkCount: 2 });
    const o = await refreshIfStale({
      root,
      config: config(),
      model: { ...MODEL, modelId: 'other/model@q8' },
      loadEmbedder: never,
      noRefresh: false,
      lockWaitMs: 0,
    });
    expect(o.skipped).toBe('incompatible');
  });

  test('no model identity (a stand-in store): reported, not refreshed', async () => {
    const root = await project();
    await writeIndex(root, [ADR, STD]);
    const o = await refreshIfStale({ root, config: config(), noRefresh: false, lockWaitMs: 0 });
    expect(o.skipped).toBe('no-model');
  });

  test('an index that cannot be updated in place (corrupt, vectors missing) is not rebuilt in full before a check: reported, never thrown', async () => {
    const root = await project();
    await writeIndex(root, [ADR, STD]);
    // The hand-written generation has no vectors.hnsw: the build would have to start over.
    const o = await refreshIfStale({
      root,
      config: config(),
      model: MODEL,
      loadEmbedder: never,
      noRefresh: false,
      lockWaitMs: 0,
    });
    expect(o.ran).toBe(false);
    expect(o.error).toMatch(/^the index cannot be updated in place \(.*vectors\.hnsw.*\); run `agentos index --full`$/);
    expect(coverageJson(o).refresh.state).toBe('refresh_failed');
    expect(coverageJson(o).staleFiles).toEqual([HIST]);
    // Nothing was written: CURRENT still names the old generation.
    expect(readCurrent(root)).toBe('gen-test-1');
  });
});

describe('coverage for --json', () => {
  test('documents per type, age, history flag, generation', async () => {
    const root = await project();
    const createdAt = new Date(Date.now() - 90_000).toISOString();
    await writeIndex(root, [ADR, HIST, STD], { coverage: { standard: 2, history: 1 }, createdAt });
    const o = await refreshIfStale({ root, config: config(), noRefresh: false, lockWaitMs: 0 });
    const c = coverageJson(o);
    expect(c).toMatchObject({
      documents: { standard: 2, history: 1 },
      includeHistory: true,
      generation: 'gen-test-1',
      indexedAt: createdAt,
      staleFiles: [],
    });
    expect(c.indexAgeSeconds).toBeGreaterThanOrEqual(89);
    expect(c.indexAgeSeconds).toBeLessThan(120);
  });

  test('no index: nulls, state no_index', async () => {
    const root = await project();
    const c = coverageJson(await refreshIfStale({ root, config: config(), noRefresh: false, lockWaitMs: 0 }));
    expect(c).toMatchObject({
      documents: null,
      includeHistory: null,
      generation: null,
      indexAgeSeconds: null,
      refresh: { state: 'no_index', ran: false },
    });
  });

  test('an index from before coverage was recorded gives documents null', () => {
    const m = fakeManifest();
    expect(m.coverage).toBeUndefined();
    expect(indexAgeSeconds(m, Date.parse(m.createdAt) + 5000)).toBe(5);
  });

  test('describeChanges caps the list', () => {
    const f = { added: ['a', 'b', 'c', 'd'], changed: ['e', 'f'], removed: [] };
    expect(describeChanges(f, 3)).toBe('a (new), b (new), c (new), and 3 more');
  });
});

describe('the index remembers whether it covers history (resolveHistoryScope)', () => {
  test('no index: history only with --include-history', async () => {
    const root = await project();
    expect(resolveHistoryScope(root, {})).toEqual({ includeHistory: false, kept: false, dropped: false });
    expect(resolveHistoryScope(root, { includeHistory: true })).toEqual({
      includeHistory: true,
      kept: false,
      dropped: false,
    });
  });

  test('after --include-history a plain run keeps history and says it kept it', async () => {
    const root = await project();
    await writeIndex(root, [ADR, HIST, STD], { includeHistory: true });
    expect(resolveHistoryScope(root, {})).toEqual({ includeHistory: true, kept: true, dropped: false });
  });

  test('--no-history drops it on purpose', async () => {
    const root = await project();
    await writeIndex(root, [ADR, HIST, STD], { includeHistory: true });
    expect(resolveHistoryScope(root, { noHistory: true })).toEqual({
      includeHistory: false,
      kept: false,
      dropped: true,
    });
  });

  test('a standards-only index stays standards-only without a flag', async () => {
    const root = await project();
    await writeIndex(root, [ADR, STD], { includeHistory: false });
    expect(resolveHistoryScope(root, {})).toEqual({ includeHistory: false, kept: false, dropped: false });
  });
});

describe('withSharedEmbedder: one model load for the refresh and the check', () => {
  test('concurrent and later calls share one load; a failed load is not cached', async () => {
    const { withSharedEmbedder } = await import('../../src/work-memory/check/deps.js');
    const { FakeEmbedder } = await import('../helpers/fakes.js');
    let loads = 0;
    let fail = true;
    const shared = withSharedEmbedder({
      method: 'fake:test',
      openIndex: async () => {
        throw new Error('unused');
      },
      loadEmbedder: async () => {
        loads++;
        if (fail) throw new Error('model files missing');
        return new FakeEmbedder();
      },
    });
    expect(shared.loadedEmbedder?.()).toBeNull();
    await expect(shared.loadEmbedder()).rejects.toThrow('model files missing');
    // What --verbose reads: never a new load, never a wait.
    expect(shared.loadedEmbedder?.()).toBeNull();
    expect(loads).toBe(1);
    fail = false;
    const [a, b] = await Promise.all([shared.loadEmbedder(), shared.loadEmbedder()]);
    expect(a).toBe(b);
    expect(await shared.loadEmbedder()).toBe(a);
    expect(shared.loadedEmbedder?.()).toBe(a);
    expect(loads).toBe(2);
  });
});
