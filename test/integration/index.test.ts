// SLOW: real model
// The index end to end: the real MiniLM embedder and a real hnswlib index, built
// over a temp copy of fixtures/demo-repo. The full demo index is built once
// (beforeAll); every test that changes something works on its own copy of it.
import { cliEnv, copyDemo } from '../helpers/cli.js';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  appendFile,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  truncate,
  utimes,
  writeFile,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import { nearestDocuments } from '../../src/work-memory/check/history.js';
import { loadConfig } from '../../src/shared/config/load.js';
import type { Config } from '../../src/shared/config/schema.js';
import type { Embedder } from '../../src/work-memory/embeddings/embedder.js';
import { modelSetup } from '../../src/work-memory/index/model-setup.js';
import { IndexUnavailableError } from '../../src/shared/errors.js';
import { METADATA_VERSION } from '../../src/work-memory/corpus/metadata.js';
import { buildIndex, type BuildReport, type ModelIdentity } from '../../src/work-memory/index/build.js';
import { openIndex, readCurrent } from '../../src/work-memory/index/hnsw-index.js';
import { indexPaths } from '../../src/work-memory/index/layout.js';
import { acquireLock, LockTimeoutError } from '../../src/work-memory/index/lock.js';
import type { Manifest, StoredDoc } from '../../src/work-memory/index/types.js';
import { BIN, MODEL_DIR, REPO } from '../helpers/paths.js';

jest.setTimeout(180_000);

let tmp: string;
let A: string; // the demo copy indexed with --include-history; never modified after beforeAll
let config: Config;
let identity: ModelIdentity;
let embedder: Embedder;
let embedderLoads = 0;
let first: BuildReport;
let expectedFiles: string[];

/** The fixture without its local .agentos state (index, logs, issue outputs). */
let cloneN = 0;
/** A copy of the indexed demo repo, index included, for a test to change. */
async function cloneA(): Promise<string> {
  const dest = path.join(tmp, `clone-${++cloneN}`);
  await cp(A, dest, { recursive: true, preserveTimestamps: true });
  return dest;
}

function build(
  root: string,
  opts: { includeHistory?: boolean; full?: boolean; model?: ModelIdentity; lockWaitMs?: number } = {},
): Promise<BuildReport> {
  return buildIndex({
    root,
    config,
    includeHistory: opts.includeHistory ?? true,
    full: opts.full ?? false,
    model: opts.model ?? identity,
    loadEmbedder: async () => {
      embedderLoads++;
      return embedder;
    },
    lockWaitMs: opts.lockWaitMs ?? 0,
  });
}

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function runCli(
  args: string[],
  opts: { onStderr?: (all: string) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<RunResult> & { child: ReturnType<typeof spawn> } {
  const env = cliEnv(opts.env);
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    opts.onStderr?.(stderr);
  });
  const done = new Promise<RunResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return Object.assign(done, { child });
}

async function docsOf(root: string): Promise<Map<string, StoredDoc>> {
  const index = await openIndex(root, identity);
  return new Map(index.meta.docs.map((d) => [d.filePath, d]));
}

async function currentManifest(root: string): Promise<Manifest> {
  const name = readCurrent(root)!;
  return JSON.parse(await readFile(indexPaths(root).generation(name).manifest, 'utf8')) as Manifest;
}

async function ls(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

/** The corpus files the default globs select, worked out from the fixture itself. */
async function expectedCorpus(root: string, includeHistory: boolean): Promise<string[]> {
  const md = async (rel: string) =>
    (await ls(path.join(root, rel))).filter((f) => f.endsWith('.md')).map((f) => `${rel}/${f}`);
  const files = [...(await md('docs/adrs')), ...(await md('docs/standards')), ...(await md('docs/LLDs/done'))];
  if (includeHistory) {
    for (const issue of await ls(path.join(root, 'docs/audit/done'))) {
      if (existsSync(path.join(root, 'docs/audit/done', issue, '001-issue.md')))
        files.push(`docs/audit/done/${issue}/001-issue.md`);
    }
  }
  return files.sort();
}

async function search(root: string, query: string, type: 'history' | 'standard', k = 5) {
  const index = await openIndex(root, identity);
  const [v] = await embedder.embed([query]);
  return { store: index, hits: nearestDocuments(index, [v], k, type) };
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-index-'));
  A = path.join(tmp, 'demo');
  await copyDemo(A);
  config = (await loadConfig(A)).config;
  const setup = modelSetup({ AGENTOS_MODEL_DIR: MODEL_DIR }, config, A);
  identity = setup.identity;
  embedder = await setup.load();
  expectedFiles = await expectedCorpus(A, true);
  first = await build(A);
});

afterAll(async () => {
  await (embedder as { dispose?: () => Promise<void> } | undefined)?.dispose?.();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('first build of the demo corpus (--include-history)', () => {
  test('the fixture still has the files the globs must leave out', () => {
    // Otherwise the exclusions below would pass vacuously.
    for (const rel of [
      'README.md',
      'briefs/optimize-docker-build-times.md',
      'docs/notes/random.md',
      'docs/audit/active/121-runner-autoscaling/001-issue.md',
      'docs/audit/done/27-docker-build-optimization/002-benchmarks.md',
      'docs/audit/done/34-multi-stage-docker-builds/002-discussion.md',
    ]) {
      expect(existsSync(path.join(A, rel))).toBe(true);
    }
    expect(expectedFiles.length).toBeGreaterThan(20);
  });

  test('scans, adds and embeds exactly the corpus files', () => {
    expect(first.scanned).toBe(expectedFiles.length);
    expect([...first.added].sort()).toEqual(expectedFiles);
    expect(first.changed).toEqual([]);
    expect(first.removed).toEqual([]);
    expect(first.unchanged).toBe(0);
    expect(first.skipped).toEqual([]);
    expect(first.fullRebuildReason).toBeNull();
    expect(first.wrote).toBe(true);
    expect(first.chunks).toBeGreaterThan(expectedFiles.length);
    expect(first.chunksEmbedded).toBe(first.chunks);
    expect(first.tokensEmbedded).toBeGreaterThan(first.chunks);
    expect(first.generation).toBe(readCurrent(A));
  });

  test('leaves out active work, notes, README, briefs and follow-up files of an issue', () => {
    const indexed = [...first.added];
    expect(indexed.filter((f) => /docs\/audit\/active|docs\/notes|README|^briefs\/|\/002-/.test(f))).toEqual([]);
  });

  test('the stored index agrees with the report', async () => {
    const index = await openIndex(A, identity);
    expect(index.meta.docs.map((d) => d.filePath).sort()).toEqual(expectedFiles);
    expect(index.count()).toBe(first.chunks);
    expect(index.manifest.chunkCount).toBe(first.chunks);
    expect(index.manifest.includeHistory).toBe(true);
    expect(index.manifest.modelId).toBe(identity.modelId);
    expect(index.manifest.modelFingerprint).toBe(identity.modelFingerprint);
    expect(Object.keys(index.manifest.files).sort()).toEqual(expectedFiles);
    const labels = index.meta.docs.flatMap((d) => d.labels);
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels.length).toBe(first.chunks);
    // Only the live generation is on disk, and no temp leftovers.
    expect((await ls(indexPaths(A).dir)).filter((e) => e !== 'CURRENT')).toEqual([readCurrent(A)]);
  });

  test('a malformed frontmatter is a warning naming the file, not a failure', () => {
    expect(
      first.warnings.some(
        (w) => w.includes('docs/audit/done/41-flaky-test-quarantine/001-issue.md') && /malformed YAML/i.test(w),
      ),
    ).toBe(true);
  });

  test('metadata of known documents', async () => {
    const docs = await docsOf(A);
    const doc = (p: string) => {
      const d = docs.get(p);
      expect(d).toBeDefined();
      return d!;
    };

    const i27 = doc('docs/audit/done/27-docker-build-optimization/001-issue.md');
    expect(i27).toMatchObject({
      issueId: '27',
      title: 'Docker Build Optimization',
      status: 'done',
      documentType: 'issue',
      types: ['history'],
    });
    expect(i27.summary).toMatch(/Docker/);

    const i34 = doc('docs/audit/done/34-multi-stage-docker-builds/001-issue.md');
    expect(i34).toMatchObject({ issueId: '34', status: 'rejected' });
    expect(i34.statusReason).toMatch(/ADR-0005/);

    // #41: frontmatter is broken YAML, so the id comes from the folder and the title from the H1.
    const i41 = doc('docs/audit/done/41-flaky-test-quarantine/001-issue.md');
    expect(i41).toMatchObject({ issueId: '41', title: 'Quarantine flaky tests automatically' });

    // #48 is stored with CRLF line ends; its frontmatter must still parse.
    expect(await readFile(path.join(A, 'docs/audit/done/48-dashboard-dark-mode/001-issue.md'), 'utf8')).toContain(
      '\r\n',
    );
    expect(doc('docs/audit/done/48-dashboard-dark-mode/001-issue.md')).toMatchObject({
      issueId: '48',
      title: 'Dark mode for the dashboard',
      status: 'done',
    });

    // #88 names itself with the `issue:` key.
    expect(doc('docs/audit/done/88-session-tokens-expire-long-builds/001-issue.md')).toMatchObject({
      issueId: '88',
      title: 'Session tokens expire during long builds',
      status: 'done',
    });

    const lld88 = doc('docs/LLDs/done/LLD-088-runner-token-refresh.md');
    expect(lld88).toMatchObject({ issueId: '88', documentType: 'lld', title: 'Runner and CLI token refresh' });

    const adr3 = doc('docs/adrs/0003-build-queue-on-redis-streams.md');
    expect(adr3).toMatchObject({ documentType: 'adr', status: 'superseded' });
    expect(adr3.statusReason).toMatch(/ADR-0007/);

    for (const d of docs.values()) {
      if (d.filePath.startsWith('docs/LLDs/'))
        expect({ p: d.filePath, types: d.types }).toEqual({ p: d.filePath, types: ['history', 'standard'] });
      if (d.filePath.startsWith('docs/adrs/') || d.filePath.startsWith('docs/standards/'))
        expect({ p: d.filePath, types: d.types }).toEqual({ p: d.filePath, types: ['standard'] });
      if (d.filePath.startsWith('docs/audit/'))
        expect({ p: d.filePath, types: d.types }).toEqual({ p: d.filePath, types: ['history'] });
      expect(d.labels.length).toBeGreaterThan(0);
    }
  });

  test('excerpts drop Markdown emphasis but keep identifiers such as auth_sessions intact', async () => {
    const index = await openIndex(A, identity);
    const excerpts = index.meta.chunks.map((c) => c[3]);
    // The sources say `auth_sessions` (ADR-0004) and `token_expired` (API error format).
    expect(excerpts.some((e) => e.includes('auth_sessions'))).toBe(true);
    expect(excerpts.some((e) => e.includes('token_expired'))).toBe(true);
    expect(excerpts.filter((e) => /\bauthsessions\b|\btokenexpired\b/.test(e))).toEqual([]);
    expect(excerpts.filter((e) => e.includes('**') || e.includes('`'))).toEqual([]);
    // Headings are shown as the section; the excerpt is the prose under them.
    const doc27 = index.meta.docs.findIndex((d) => d.issueId === '27' && d.documentType === 'issue');
    const ex27 = index.meta.chunks.filter((c) => c[1] === doc27).map((c) => c[3]);
    expect(ex27.length).toBeGreaterThan(0);
    expect(ex27.filter((e) => e.startsWith('Issue #27') || e.startsWith('Objective'))).toEqual([]);
  });

  test('search answers from the real vectors', async () => {
    const { hits } = await search(A, 'Docker layer caching makes CI image builds slow', 'history', 3);
    expect(hits[0].issueId).toBe('27');
    const { hits: std } = await search(A, 'How do we authenticate users? OIDC and JWT access tokens', 'standard', 3);
    expect(std[0].filePath).toBe('docs/adrs/0004-authentication-oidc-short-lived-jwt.md');
    // A standards search never returns history-only documents.
    expect(std.every((h) => !h.filePath.startsWith('docs/audit/'))).toBe(true);
  });
});

describe('incremental runs', () => {
  test('a re-run with nothing changed embeds nothing, writes nothing and never loads the model', async () => {
    const before = readCurrent(A);
    const loads = embedderLoads;
    const r = await build(A);
    expect(r).toMatchObject({
      scanned: expectedFiles.length,
      added: [],
      changed: [],
      removed: [],
      chunksEmbedded: 0,
      wrote: false,
      fullRebuildReason: null,
    });
    expect(r.unchanged).toBe(expectedFiles.length);
    expect(r.chunks).toBe(first.chunks);
    expect(embedderLoads).toBe(loads);
    expect(readCurrent(A)).toBe(before);
  });

  test('the CLI agrees: `index --include-history --json` on an up-to-date index', async () => {
    const before = readCurrent(A);
    const r = await runCli(['-C', A, 'index', '--include-history', '--json']);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      root: A,
      scanned: expectedFiles.length,
      chunksEmbedded: 0,
      wrote: false,
      changed: [],
      added: [],
      removed: [],
      model: identity.modelId,
    });
    expect(readCurrent(A)).toBe(before);
  });

  test('a changed file is re-embedded alone and search finds the new content', async () => {
    const root = await cloneA();
    const rel = 'docs/standards/testing-standard.md';
    const oldDoc = (await docsOf(root)).get(rel)!;
    await appendFile(
      path.join(root, rel),
      '\n\n## Quasar telemetry fixtures\n\nEvery integration test that talks to the satellite uplink must replay the recorded Quasar telemetry fixtures instead of contacting the real ground station. The ground station is shared with the astronomy team and rate-limits us to ten requests per hour.\n',
    );
    const r = await build(root);
    expect(r.changed).toEqual([rel]);
    expect(r.added).toEqual([]);
    expect(r.removed).toEqual([]);
    expect(r.unchanged).toBe(expectedFiles.length - 1);
    expect(r.wrote).toBe(true);
    expect(r.fullRebuildReason).toBeNull();

    const index = await openIndex(root, identity);
    const newDoc = index.meta.docs.find((d) => d.filePath === rel)!;
    expect(r.chunksEmbedded).toBe(newDoc.labels.length);
    expect(newDoc.labels.length).toBeGreaterThanOrEqual(oldDoc.labels.length);
    // Labels are never reused: the old chunks are gone from the metadata and the results.
    expect(newDoc.labels.filter((l) => oldDoc.labels.includes(l))).toEqual([]);
    const liveLabels = new Set(index.meta.chunks.map((c) => c[0]));
    for (const l of oldDoc.labels) expect(liveLabels.has(l)).toBe(false);
    expect(index.count()).toBe(first.chunks - oldDoc.labels.length + newDoc.labels.length);

    const { hits } = await search(
      root,
      'replay recorded Quasar satellite telemetry instead of the ground station',
      'standard',
      3,
    );
    expect(hits[0].filePath).toBe(rel);
    expect(hits[0].excerpt).toMatch(/Quasar/);
    const [v] = await embedder.embed(['replay recorded Quasar satellite telemetry instead of the ground station']);
    for (const h of index.search(v, index.count())) expect(oldDoc.labels).not.toContain(h.label);

    // The previous generation is kept for readers that opened it; nothing else is.
    const entries = (await ls(indexPaths(root).dir)).filter((e) => e !== 'CURRENT');
    expect(entries).toContain(readCurrent(root));
    expect(entries.length).toBeLessThanOrEqual(2);
    expect(entries.filter((e) => e.startsWith('.tmp-'))).toEqual([]);
  });

  test('a deleted file disappears from the index and from search', async () => {
    const root = await cloneA();
    const rel = 'docs/audit/done/88-session-tokens-expire-long-builds/001-issue.md';
    const { hits: before } = await search(root, 'Session tokens expire during long builds', 'history', 3);
    expect(before.map((h) => h.filePath)).toContain(rel);

    await rm(path.join(root, rel));
    const r = await build(root);
    expect(r.removed).toEqual([rel]);
    expect(r).toMatchObject({ added: [], changed: [], chunksEmbedded: 0, wrote: true });
    expect(r.scanned).toBe(expectedFiles.length - 1);

    const docs = await docsOf(root);
    expect(docs.has(rel)).toBe(false);
    // Below the compaction threshold the points are only marked deleted, and counted as such.
    const oldLabels = (await docsOf(A)).get(rel)!.labels.length;
    const live = await openIndex(root, identity);
    expect(live.manifest.deletedCount).toBe(oldLabels);
    expect(live.graph.getCurrentCount()).toBe(live.count() + oldLabels);
    expect(docs.has('docs/LLDs/done/LLD-088-runner-token-refresh.md')).toBe(true);
    const manifest = await currentManifest(root);
    expect(Object.keys(manifest.files)).not.toContain(rel);

    const { store: index, hits } = await search(root, 'Session tokens expire during long builds', 'history', 50);
    expect(hits.map((h) => h.filePath)).not.toContain(rel);
    expect(hits.length).toBeGreaterThan(0);
    const [v] = await embedder.embed(['Session tokens expire during long builds']);
    expect(index.search(v, index.count()).map((h) => h.doc.filePath)).not.toContain(rel);
  });

  test('deleting more than a quarter of the chunks compacts the graph; search still answers', async () => {
    const root = await cloneA();
    const docs = [...(await docsOf(root)).values()]
      .filter((d) => d.filePath.startsWith('docs/audit/'))
      .sort((a, b) => b.labels.length - a.labels.length);
    const gone: string[] = [];
    let goneLabels = 0;
    for (const d of docs) {
      if (goneLabels > 0.3 * first.chunks) break;
      if (d.issueId === '88') continue; // searched for below
      gone.push(d.filePath);
      goneLabels += d.labels.length;
      await rm(path.join(root, d.filePath));
    }
    const r = await build(root);
    expect([...r.removed].sort()).toEqual([...gone].sort());
    expect(r.chunksEmbedded).toBe(0);
    expect(r.chunks).toBe(first.chunks - goneLabels);

    const index = await openIndex(root, identity);
    expect(index.manifest.deletedCount).toBe(0);
    expect(index.graph.getCurrentCount()).toBe(index.count());
    expect(index.count()).toBe(first.chunks - goneLabels);
    const [v] = await embedder.embed(['Session tokens expire during long builds']);
    const all = index.search(v, index.count());
    expect(all).toHaveLength(index.count());
    expect(all.filter((h) => gone.includes(h.doc.filePath))).toEqual([]);
    const { hits } = await search(root, 'Session tokens expire during long builds', 'history', 1);
    expect(hits[0].issueId).toBe('88');
  });

  test('a touched but unchanged file is not re-embedded; its new stat is remembered', async () => {
    const root = await cloneA();
    const rel = 'docs/adrs/0001-use-postgres-for-build-metadata.md';
    const previous = readCurrent(root)!;
    const later = new Date(Date.now() + 60_000);
    await utimes(path.join(root, rel), later, later);
    const r = await build(root);
    expect(r).toMatchObject({ added: [], changed: [], removed: [], chunksEmbedded: 0 });
    expect(r.unchanged).toBe(expectedFiles.length);
    // A new generation records the new mtime; the vectors are shared, not rewritten.
    expect(r.wrote).toBe(true);
    const g = indexPaths(root);
    expect((await stat(g.generation(r.generation!).vectors)).ino).toBe(
      (await stat(g.generation(previous).vectors)).ino,
    );
    expect((await currentManifest(root)).files[rel].mtimeMs).toBe((await stat(path.join(root, rel))).mtimeMs);
    await expect(openIndex(root, identity)).resolves.toBeDefined();
    // So the run after that is a true no-op.
    expect(await build(root)).toMatchObject({ wrote: false, chunksEmbedded: 0 });
  });

  test('an index read by older metadata rules is read again without the model; its vectors are kept', async () => {
    const root = await cloneA();
    // A design whose file number is a series of its own, declaring its issue in its header (as Aletheia's 10116-*.md).
    const rel = 'docs/LLDs/done/LLD-1116-session-oauth.md';
    await writeFile(
      path.join(root, rel),
      '# LLD-1116: Session OAuth\n\n* **Issue:** #116\n* **Related Issues:** #88\n\nLog in with the provider and keep the session refreshed.\n',
    );
    await build(root);
    const previous = readCurrent(root)!;
    const g = indexPaths(root);
    // Make it an index written before the header rule: the file number as the id, no metadata version.
    const metaFile = g.generation(previous).meta;
    const meta = JSON.parse(await readFile(metaFile, 'utf8')) as { docs: StoredDoc[] };
    const doc = meta.docs.find((d) => d.filePath === rel)!;
    expect(doc.issueId).toBe('116');
    doc.issueId = '1116';
    const metaBuf = Buffer.from(JSON.stringify(meta));
    await writeFile(metaFile, metaBuf);
    const manifestFile = g.generation(previous).manifest;
    const old = JSON.parse(await readFile(manifestFile, 'utf8')) as Manifest;
    delete old.metadataVersion;
    old.integrity = {
      ...old.integrity,
      metaBytes: metaBuf.length,
      metaSha256: createHash('sha256').update(metaBuf).digest('hex'),
    };
    await writeFile(manifestFile, JSON.stringify(old));
    expect((await openIndex(root, identity)).doc(rel)?.issueId).toBe('1116');

    const loads = embedderLoads;
    const r = await build(root);
    expect(r).toMatchObject({ added: [], changed: [], removed: [], chunksEmbedded: 0, wrote: true });
    expect(r.metadataRefreshed).toBe(r.unchanged);
    expect(embedderLoads).toBe(loads);
    expect((await currentManifest(root)).metadataVersion).toBe(METADATA_VERSION);
    expect((await stat(g.generation(r.generation!).vectors)).ino).toBe(
      (await stat(g.generation(previous).vectors)).ino,
    );
    const after = await openIndex(root, identity);
    expect(after.doc(rel)).toMatchObject({ issueId: '116', related: ['88'], ownIssue: '116' });
    // Every other document as it was.
    const others = (docs: StoredDoc[]) =>
      docs.filter((d) => d.filePath !== rel).map((d) => [d.filePath, d.issueId, d.title, d.labels]);
    expect(others(after.meta.docs)).toEqual(others((await openIndex(A, identity)).meta.docs));
    expect(await build(root)).toMatchObject({ wrote: false, chunksEmbedded: 0 });
  });

  test('without --include-history only standards are indexed', async () => {
    const root = await cloneA();
    const r = await build(root, { includeHistory: false });
    const standardsOnly = await expectedCorpus(root, false);
    expect(r.scanned).toBe(standardsOnly.length);
    // The history-only documents leave; the LLDs (both types) stay, without being embedded again.
    expect([...r.removed].sort()).toEqual(expectedFiles.filter((f) => f.startsWith('docs/audit/')));
    expect(r.chunksEmbedded).toBe(0);
    const index = await openIndex(root, identity);
    expect(index.manifest.includeHistory).toBe(false);
    expect(index.meta.docs.map((d) => d.filePath).sort()).toEqual(standardsOnly);
    for (const d of index.meta.docs) expect(d.types).toEqual(['standard']);
    expect(index.count('history')).toBe(0);
    expect(index.count('standard')).toBe(index.count());
  });

  test('a fresh standards-only index of the demo (CLI) holds no history', async () => {
    const root = path.join(tmp, 'standards-only');
    await copyDemo(root);
    // Keep it small: the full demo standards set is not needed to check the types.
    await rm(path.join(root, 'docs/adrs'), { recursive: true });
    await rm(path.join(root, 'docs/LLDs'), { recursive: true });
    const r = await runCli(['-C', root, 'index', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as BuildReport;
    const expected = await expectedCorpus(root, false);
    expect([...out.added].sort()).toEqual(expected);
    expect(out.added.every((f) => f.startsWith('docs/standards/'))).toBe(true);
    const index = await openIndex(root, identity);
    expect(index.count('history')).toBe(0);
    expect(index.manifest.includeHistory).toBe(false);
  });
});

/** A clone of A cut down to docs/standards, so a full rebuild stays cheap. */
async function smallClone(): Promise<string> {
  const root = await cloneA();
  for (const d of ['docs/adrs', 'docs/LLDs', 'docs/audit']) await rm(path.join(root, d), { recursive: true });
  return root;
}

describe('full rebuilds', () => {
  test('`--full` rebuilds everything and says why', async () => {
    const root = await smallClone();
    const r = await runCli(['-C', root, 'index', '--full']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Full rebuild: --full was given\.$/m);
    const files = await expectedCorpus(root, false);
    expect(r.stdout).toMatch(new RegExp(`files scanned\\s+${files.length}\\b`));
    expect(r.stdout).toMatch(new RegExp(`indexed\\s+${files.length} \\(${files.length} new, 0 changed\\)`));
    const m = /chunks\s+(\d+) \((\d+) embedded\)/.exec(r.stdout);
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThan(0);
    expect(m![2]).toBe(m![1]);
    // A fresh lineage: labels start again from 0.
    const manifest = await currentManifest(root);
    expect(manifest.deletedCount).toBe(0);
    expect(manifest.nextLabel).toBe(Number(m![1]));
  });

  test('a model fingerprint change forces a full rebuild, and readers refuse the mismatched index', async () => {
    const root = await smallClone();
    const other: ModelIdentity = { ...identity, modelFingerprint: '0123456789abcdef' };
    const r = await build(root, { model: other });
    expect(r.fullRebuildReason).toBe(`the model weights changed (${identity.modelFingerprint} -> 0123456789abcdef)`);
    expect(r.chunksEmbedded).toBe(r.chunks);
    expect(r.changed).toEqual([]);
    expect([...r.added].sort()).toEqual(await expectedCorpus(root, true));

    // Searching with the real model against an index of other weights is refused, with the fix.
    const err = await openIndex(root, identity).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IndexUnavailableError);
    expect((err as Error).message).toMatch(/other weights/);
    expect((err as Error).message).toContain('agentos index --full');

    // The next ordinary run (the real model) notices and rebuilds, saying why.
    const cli = await runCli(['-C', root, 'index', '--include-history', '--json']);
    expect(cli.code).toBe(0);
    const out = JSON.parse(cli.stdout) as BuildReport;
    expect(out.fullRebuildReason).toMatch(/model weights changed \(0123456789abcdef -> /);
    expect(out.chunksEmbedded).toBe(out.chunks);
    await expect(openIndex(root, identity)).resolves.toBeDefined();
  });

  test('a model id change forces a full rebuild', async () => {
    const root = await smallClone();
    const r = await build(root, { model: { ...identity, modelId: 'Xenova/other-model@q8' } });
    expect(r.fullRebuildReason).toBe(`the model changed (${identity.modelId} -> Xenova/other-model@q8)`);
    expect(r.chunksEmbedded).toBe(r.chunks);
  });
});

describe('without the model', () => {
  test('a run that must embed fails with the model error, releases the lock and keeps the old index', async () => {
    const root = await cloneA();
    await appendFile(path.join(root, 'docs/standards/testing-standard.md'), '\n\nOne more rule.\n');
    const before = readCurrent(root);
    // The folder exists but holds no model (a folder that does not exist is a usage error, exit 2: issue 12).
    const missing = path.join(tmp, 'no-models-here');
    await mkdir(missing, { recursive: true });
    const r = await runCli(['-C', root, 'index', '--include-history'], { env: { AGENTOS_MODEL_DIR: missing } });
    expect(r.code).toBe(5); // model unavailable (issue 8)
    expect(r.stderr).toContain('agentos model fetch');
    expect(r.stderr).toContain(`model not found: ${path.join(missing, identity.modelId.replace(/@.*$/, ''))}`);
    expect(r.stderr).toContain('onnx/model_int8.onnx');
    expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
    expect(existsSync(indexPaths(root).lock)).toBe(false);
    expect(readCurrent(root)).toBe(before);
    await expect(openIndex(root, identity)).resolves.toBeDefined();
  });
});

describe('a corrupt index', () => {
  const corruptions: Array<
    [string, (gen: ReturnType<ReturnType<typeof indexPaths>['generation']>) => Promise<void>, RegExp]
  > = [
    [
      'truncated vectors.hnsw',
      async (g) => truncate(g.vectors, Math.floor((await stat(g.vectors)).size / 2)),
      /vectors\.hnsw is truncated or corrupt/,
    ],
    ['garbage meta.json', async (g) => writeFile(g.meta, '{"docs": [garbage'), /meta\.json is truncated or corrupt/],
    [
      'a manifest of format 999',
      async (g) => {
        const m = JSON.parse(await readFile(g.manifest, 'utf8')) as Manifest;
        await writeFile(g.manifest, JSON.stringify({ ...m, formatVersion: 999 }));
      },
      /index format 999/,
    ],
  ];

  test.each(corruptions)(
    '%s: openIndex throws IndexUnavailableError; issue start fails open',
    async (_name, corrupt, why) => {
      const root = await cloneA();
      await corrupt(indexPaths(root).generation(readCurrent(root)!));

      const err = await openIndex(root, identity).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IndexUnavailableError);
      expect((err as Error).message).toMatch(why);
      expect((err as Error).message).toContain('agentos index --full');

      const brief = path.join(root, 'briefs/optimize-docker-build-times.md');
      const briefBytes = await readFile(brief);
      const out = path.join(root, 'out', 'brief.md');
      const r = await runCli(['-C', root, 'issue', 'start', brief, '--non-interactive', '--json', '-o', out]);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('Historian check failed:');
      expect(r.stderr).toContain('Proceeding without history check.');
      expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/); // no stack trace
      const json = JSON.parse(r.stdout);
      expect(json.status).toBe('error');
      expect(json.error).toMatch(why);
      expect(json.matches).toEqual([]);
      expect(json.output).toBe(out);
      // Proceeding means the brief to use is written: the user's text, nothing added.
      expect(await readFile(out)).toEqual(briefBytes);
      expect(await readFile(brief)).toEqual(briefBytes);
    },
  );

  test('issue start --strict turns the failed check into exit 4', async () => {
    const root = await cloneA();
    await writeFile(indexPaths(root).generation(readCurrent(root)!).meta, 'not json');
    const r = await runCli([
      '-C',
      root,
      'issue',
      'start',
      path.join(root, 'briefs/optimize-docker-build-times.md'),
      '--non-interactive',
      '--strict',
      '--json',
    ]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('Historian check failed:');
    expect(r.stderr).toMatch(/--strict/);
  });

  test('search reports the corrupt index with exit 4 and the fix', async () => {
    const root = await cloneA();
    const g = indexPaths(root).generation(readCurrent(root)!);
    await truncate(g.vectors, 100);
    const r = await runCli(['-C', root, 'search', 'docker', 'builds']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('agentos index --full');
    expect(r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
  });

  test('the next index run rebuilds a corrupt index in full and says why', async () => {
    const root = await smallClone();
    await writeFile(indexPaths(root).generation(readCurrent(root)!).meta, '{"docs": [garbage');
    const r = await build(root);
    expect(r.fullRebuildReason).toMatch(/meta\.json is truncated or corrupt/);
    expect(r.fullRebuildReason).not.toMatch(/agentos index --full/);
    expect(r.chunksEmbedded).toBe(r.chunks);
    const index = await openIndex(root, identity);
    expect(index.meta.docs.map((d) => d.filePath).sort()).toEqual(await expectedCorpus(root, true));
  });
});

describe('the index lock', () => {
  test('a second index run with --wait 0 fails with exit 4 and a clear message', async () => {
    const lock = await acquireLock(indexPaths(A).lock, { waitMs: 0 });
    try {
      const before = readCurrent(A);
      const r = await runCli(['-C', A, 'index', '--include-history', '--wait', '0']);
      expect(r.code).toBe(4);
      expect(r.stderr).toContain('another agentos index is running');
      expect(r.stderr).toContain(`pid ${process.pid}`);
      expect(r.stderr).toContain(indexPaths(A).lock);
      expect(readCurrent(A)).toBe(before);
    } finally {
      await lock.release();
    }
    expect(existsSync(indexPaths(A).lock)).toBe(false);
  });

  test('in-process: a held lock is a LockTimeoutError (exit code 4)', async () => {
    const lock = await acquireLock(indexPaths(A).lock, { waitMs: 0 });
    try {
      const err = await build(A, { lockWaitMs: 0 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LockTimeoutError);
      expect((err as LockTimeoutError).code).toBe(4);
    } finally {
      await lock.release();
    }
  });

  test('a second index run waits for the first to finish', async () => {
    const lock = await acquireLock(indexPaths(A).lock, { waitMs: 0 });
    let released = false;
    let exitedWhileLocked = false;
    let sawStart!: () => void;
    const started = new Promise<void>((r) => (sawStart = r));
    const run = runCli(['-C', A, 'index', '--include-history', '--wait', '120', '--json'], {
      onStderr: (all) => all.includes('Scanning corpus') && sawStart(),
    });
    run.child.on('exit', () => (exitedWhileLocked = !released));
    try {
      await Promise.race([started, run]);
      // Give it time to reach the lock: it must be waiting there, not failing.
      await new Promise((r) => setTimeout(r, 1000));
      expect(run.child.exitCode).toBeNull();
    } finally {
      released = true;
      await lock.release();
    }
    const r = await run;
    expect(exitedWhileLocked).toBe(false);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ wrote: false, chunksEmbedded: 0 });
    expect(existsSync(indexPaths(A).lock)).toBe(false);
  });

  test('a stale lock (its process is gone) is taken over', async () => {
    // A pid that certainly existed and has exited.
    const dead = spawn(process.execPath, ['-e', '']);
    const deadPid = dead.pid!;
    await new Promise((r) => dead.on('exit', r));
    const lockFile = indexPaths(A).lock;
    await writeFile(
      lockFile,
      JSON.stringify({ pid: deadPid, host: os.hostname(), startedAt: new Date(0).toISOString() }),
    );
    const r = await build(A, { lockWaitMs: 0 });
    expect(r.wrote).toBe(false);
    expect(existsSync(lockFile)).toBe(false);
    expect((await ls(path.dirname(lockFile))).filter((f) => f.startsWith('index.lock'))).toEqual([]);
  });

  test("a lock held on another host is not taken over (its process can't be checked)", async () => {
    const lockFile = indexPaths(A).lock;
    await writeFile(
      lockFile,
      JSON.stringify({ pid: 1, host: 'some-other-host.example', startedAt: new Date(0).toISOString() }),
    );
    try {
      const err = await build(A, { lockWaitMs: 0 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LockTimeoutError);
      expect((err as Error).message).toContain('some-other-host.example');
    } finally {
      await rm(lockFile, { force: true });
    }
  });
});
