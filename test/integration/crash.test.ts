// SLOW: real model
// Crash safety of `agentos index`: a run killed with SIGKILL at any point must
// leave the previous index live and readable, and the next run must succeed and
// clean up after it. The killed runs are real CLI processes (bin/agentos.js);
// kills inside the write phase are placed exactly with a --require preload that
// SIGKILLs the process at a chosen rename (written to the temp folder at run time).
import { cliEnv, copyDemo } from '../helpers/cli.js';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import { nearestDocuments } from '../../src/work-memory/check/history.js';
import { loadConfig } from '../../src/shared/config/load.js';
import type { Config } from '../../src/shared/config/schema.js';
import type { Embedder } from '../../src/work-memory/embeddings/embedder.js';
import { modelSetup } from '../../src/work-memory/index/model-setup.js';
import { buildIndex, type BuildReport, type ModelIdentity } from '../../src/work-memory/index/build.js';
import { openIndex, readCurrent } from '../../src/work-memory/index/hnsw-index.js';
import { indexPaths } from '../../src/work-memory/index/layout.js';
import { BIN, MODEL_DIR, REPO } from '../helpers/paths.js';

jest.setTimeout(180_000);

const CHANGED = 'docs/standards/testing-standard.md';
const NEW_TEXT =
  '\n\n## Quasar telemetry fixtures\n\nEvery integration test that talks to the satellite uplink must replay the recorded Quasar telemetry fixtures instead of contacting the real ground station, which the astronomy team rate-limits to ten requests per hour.\n';
const NEW_QUERY = 'replay recorded Quasar satellite telemetry fixtures instead of the ground station';

/**
 * Preload for the child: SIGKILL itself at an exact point of writeGeneration().
 * fs.promises is patched and syncBuiltinESMExports() makes the ESM named imports
 * (`import { rename } from 'node:fs/promises'`) see the patch.
 */
const PRELOAD = `
const fs = require('node:fs');
const path = require('node:path');
const { syncBuiltinESMExports } = require('node:module');
const mode = process.env.AGENTOS_TEST_CRASH;
const rename = fs.promises.rename;
const die = () => process.kill(process.pid, 'SIGKILL');
fs.promises.rename = async function (from, to) {
  const src = path.basename(String(from));
  const dest = path.basename(String(to));
  if (mode === 'before-generation-rename' && src.startsWith('.tmp-gen-')) die();
  if (mode === 'before-current-swap' && dest === 'CURRENT') die();
  const r = await rename.call(this, from, to);
  if (mode === 'after-current-swap' && dest === 'CURRENT') die();
  return r;
};
syncBuiltinESMExports();
`;

let tmp: string;
let base: string;
let preload: string;
let config: Config;
let identity: ModelIdentity;
let embedder: Embedder;
let baseReport: BuildReport;

let n = 0;
async function cloneBase(): Promise<string> {
  const dest = path.join(tmp, `run-${++n}`);
  await cp(base, dest, { recursive: true, preserveTimestamps: true });
  return dest;
}

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function runIndex(
  root: string,
  opts: {
    crash?: string;
    json?: boolean;
    signal?: NodeJS.Signals;
    onStderr?: (all: string, kill: () => void) => void;
  } = {},
) {
  const env = cliEnv(opts.crash ? { AGENTOS_TEST_CRASH: opts.crash } : {});
  const args = [
    ...(opts.crash ? ['--require', preload] : []),
    BIN,
    '-C',
    root,
    'index',
    '--include-history',
    ...(opts.json ? ['--json'] : []),
  ];
  const child = spawn(process.execPath, args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const kill = () => child.kill(opts.signal ?? 'SIGKILL');
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    opts.onStderr?.(stderr, kill);
  });
  return new Promise<RunResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

async function ls(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

/** What a reader sees: the live generation, the changed document's chunks, and what a search returns. */
async function snapshot(root: string) {
  const index = await openIndex(root, identity);
  const doc = index.meta.docs.find((d) => d.filePath === CHANGED)!;
  const [v] = await embedder.embed([NEW_QUERY]);
  const hits = nearestDocuments(index, [v], 3, 'standard');
  return {
    generation: readCurrent(root),
    docs: index.meta.docs.length,
    chunks: index.count(),
    labels: doc.labels,
    quasarInIndex: index.meta.chunks.some((c) => /Quasar/.test(c[3])),
    topHit: hits[0],
  };
}

/** Everything a crashed writer can leave in the index folder. */
async function leftovers(root: string): Promise<string[]> {
  return (await ls(indexPaths(root).dir)).filter((e) => e.startsWith('.tmp-') || e.startsWith('CURRENT.tmp-'));
}

/** The next ordinary run succeeds, indexes the change, and leaves a clean folder. */
async function expectRecovery(root: string, before: { generation: string | null }) {
  const r = await runIndex(root, { json: true });
  expect(r.stderr).not.toMatch(/another agentos index is running/);
  expect(r.code).toBe(0);
  const report = JSON.parse(r.stdout) as BuildReport;
  expect(report.wrote).toBe(true);
  expect(report.changed).toContain(CHANGED);
  const after = await snapshot(root);
  expect(after.generation).not.toBe(before.generation);
  expect(after.quasarInIndex).toBe(true);
  expect(after.topHit.filePath).toBe(CHANGED);
  expect(await leftovers(root)).toEqual([]);
  const gens = (await ls(indexPaths(root).dir)).filter((e) => e.startsWith('gen-'));
  // The live generation and at most the one before it.
  expect(gens).toContain(after.generation);
  expect(gens.length).toBeLessThanOrEqual(2);
  expect(existsSync(indexPaths(root).lock)).toBe(false);
  return report;
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-crash-'));
  base = path.join(tmp, 'base');
  await copyDemo(base);
  // The issue folders add embedding time and no code path here: the base keeps the
  // standards, ADRs and LLDs (the LLDs are history too, so --include-history has work).
  await rm(path.join(base, 'docs/audit'), { recursive: true });
  preload = path.join(tmp, 'crash-preload.cjs');
  await writeFile(preload, PRELOAD);
  config = (await loadConfig(base)).config;
  const setup = modelSetup({ AGENTOS_MODEL_DIR: MODEL_DIR }, config, base);
  identity = setup.identity;
  embedder = await setup.load();
  baseReport = await buildIndex({
    root: base,
    config,
    includeHistory: true,
    full: false,
    model: identity,
    loadEmbedder: async () => embedder,
    lockWaitMs: 0,
  });
});

afterAll(async () => {
  await (embedder as { dispose?: () => Promise<void> } | undefined)?.dispose?.();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test('the base index is live and does not know the new text yet', async () => {
  expect(baseReport.wrote).toBe(true);
  const s = await snapshot(base);
  expect(s.generation).toBe(baseReport.generation);
  expect(s.quasarInIndex).toBe(false);
});

// SIGINT is Ctrl-C: the same guarantees as a kill -9.
test.each(['SIGKILL', 'SIGINT'] as const)(
  '%s while embedding: the old index stays live and answers; the next run succeeds',
  async (signal) => {
    const root = await cloneBase();
    const before = await snapshot(root);
    const currentBefore = await readFile(indexPaths(root).current, 'utf8');
    const folderBefore = await ls(indexPaths(root).dir);

    // 800 short generated standards: each embedding slice (64 chunks) is quick, so the first
    // progress line comes early on a slow machine, and the whole job still takes seconds on a fast one.
    const gen = path.join(root, 'docs/standards/generated');
    await mkdir(gen);
    const words = [
      'queue',
      'runner',
      'artifact',
      'retention',
      'webhook',
      'token',
      'schema',
      'migration',
      'latency',
      'budget',
      'replica',
      'cache',
      'layer',
      'image',
      'quota',
      'tenant',
      'billing',
      'invoice',
      'dashboard',
      'metric',
    ];
    for (let i = 0; i < 800; i++) {
      const w = (k: number) => words[(i * 7 + k * 3) % words.length];
      const sentences = Array.from(
        { length: 4 },
        (_, k) =>
          `Rule ${i}.${k}: every ${w(k)} must record its ${w(k + 1)} and ${w(k + 2)} before the ${w(k + 3)} is released to tenant ${i % 13}.`,
      );
      await writeFile(
        path.join(gen, `standard-${String(i).padStart(3, '0')}.md`),
        `# Generated standard ${i}: ${w(0)} and ${w(1)}\n\n## Rules\n\n${sentences.join(' ')}\n`,
      );
    }
    await appendFile(path.join(root, CHANGED), NEW_TEXT);

    let progress: { done: number; total: number } | null = null;
    const r = await runIndex(root, {
      signal,
      onStderr: (all, kill) => {
        const m = /Embedding chunks (\d+)\/(\d+)/.exec(all);
        if (m && !progress) {
          progress = { done: Number(m[1]), total: Number(m[2]) };
          kill();
        }
      },
    });
    // Ctrl-C ends the process by the signal, or (if a handler takes it) with exit code 130.
    expect(r.signal === signal || (signal === 'SIGINT' && r.code === 130)).toBe(true);
    // Killed part-way through embedding, not after it.
    expect(progress).not.toBeNull();
    expect(progress!.done).toBeLessThan(progress!.total);

    // Nothing changed for readers: same CURRENT, same generation, same answers.
    expect(await readFile(indexPaths(root).current, 'utf8')).toBe(currentBefore);
    expect(await ls(indexPaths(root).dir)).toEqual(folderBefore);
    const after = await snapshot(root);
    expect(after).toEqual(before);
    expect(after.quasarInIndex).toBe(false);
    expect(after.topHit.filePath).not.toBe(CHANGED);
    // A kill -9 leaves its lock behind; the next run must take it over.
    if (signal === 'SIGKILL') expect(existsSync(indexPaths(root).lock)).toBe(true);

    // Recovery. Keep three generated files so the run stays short (the others would
    // only add embedding time, not another code path).
    const keep = new Set(['standard-000.md', 'standard-001.md', 'standard-002.md']);
    for (const f of await ls(gen)) if (!keep.has(f)) await rm(path.join(gen, f));
    const report = await expectRecovery(root, before);
    expect([...report.added].sort()).toEqual([...keep].map((f) => `docs/standards/generated/${f}`));
    expect(report.changed).toEqual([CHANGED]);
  },
);

describe('SIGKILL in the write phase (placed exactly by a preload)', () => {
  test('before the new generation folder is renamed into place: a .tmp- folder is left, the old index stays live', async () => {
    const root = await cloneBase();
    const before = await snapshot(root);
    await appendFile(path.join(root, CHANGED), NEW_TEXT);
    const r = await runIndex(root, { crash: 'before-generation-rename' });
    expect(r.signal).toBe('SIGKILL');

    const left = await leftovers(root);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^\.tmp-gen-/);
    // The half-made generation is complete on disk, but nobody points at it.
    expect((await ls(path.join(indexPaths(root).dir, left[0]))).sort()).toEqual([
      'lexical.json',
      'manifest.json',
      'meta.json',
      'templates.json',
      'vectors.hnsw',
    ]);
    expect(await snapshot(root)).toEqual(before);

    await expectRecovery(root, before);
  });

  test('after the new generation is in place but before CURRENT is swapped: the old index stays live', async () => {
    const root = await cloneBase();
    const before = await snapshot(root);
    const currentBefore = await readFile(indexPaths(root).current, 'utf8');
    await appendFile(path.join(root, CHANGED), NEW_TEXT);
    const r = await runIndex(root, { crash: 'before-current-swap' });
    expect(r.signal).toBe('SIGKILL');

    expect(await readFile(indexPaths(root).current, 'utf8')).toBe(currentBefore);
    const entries = await ls(indexPaths(root).dir);
    const orphan = entries.filter((e) => e.startsWith('gen-') && e !== before.generation);
    expect(orphan).toHaveLength(1);
    expect(entries.filter((e) => e.startsWith('CURRENT.tmp-'))).toHaveLength(1);
    expect(await snapshot(root)).toEqual(before);

    await expectRecovery(root, before);
    // The orphaned generation was never live: it is removed, not kept as "previous".
    expect(await ls(indexPaths(root).dir)).not.toContain(orphan[0]);
  });

  test('right after CURRENT is swapped (before cleanup): the new index is live and complete', async () => {
    const root = await cloneBase();
    const before = await snapshot(root);
    await appendFile(path.join(root, CHANGED), NEW_TEXT);
    const r = await runIndex(root, { crash: 'after-current-swap' });
    expect(r.signal).toBe('SIGKILL');

    const after = await snapshot(root);
    expect(after.generation).not.toBe(before.generation);
    expect(after.quasarInIndex).toBe(true);
    expect(after.topHit.filePath).toBe(CHANGED);
    expect(after.docs).toBe(before.docs);

    // The next run finds nothing to do beyond what the killed one finished.
    const next = await runIndex(root, { json: true });
    expect(next.code).toBe(0);
    const report = JSON.parse(next.stdout) as BuildReport;
    expect(report.chunksEmbedded).toBe(0);
    expect(report.changed).toEqual([]);
    expect(await leftovers(root)).toEqual([]);
  });
});
