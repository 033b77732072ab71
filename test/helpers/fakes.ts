/**
 * Test doubles for the check: a deterministic embedder, an exact in-memory
 * vector store, and the scaffolding to drive `runIssueStart` in-process
 * (temp project root, PassThrough IO, the JSON-lines log).
 *
 * Scores without float surprises: the brief embeds to e0 = [1, 0, 0, …] and a
 * past document that should score `s` gets the vector [s, c, 0, …] with
 * c ≈ sqrt(1 - s²). The store keeps vectors as float64 and computes the full
 * cosine (dot / (|a|·|b|)); `vectorAtScore` picks c (nudging it by a few ulps
 * when needed) so that this cosine is *exactly* `s`, and throws when it cannot.
 * So a 0.85 document scores 0.85, not 0.8499999999999999, and the boundary
 * tests through the store mean what they say. (Float32 storage would not do:
 * fround(0.7)-based vectors score 0.69999998 and fall below the 0.7 threshold.)
 */
import { afterAll } from '@jest/globals';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { approxTokens } from '../../src/work-memory/chunks/chunk.js';
import type { CheckDeps } from '../../src/work-memory/check/run.js';
import type { CorpusType, DocMetadata } from '../../src/work-memory/corpus/types.js';
import type { Embedder } from '../../src/work-memory/embeddings/embedder.js';
import type { IO } from '../../src/shared/io.js';
import {
  INDEX_FORMAT_VERSION,
  type Manifest,
  type SearchHit,
  type StoredDoc,
  type VectorIndex,
} from '../../src/work-memory/index/types.js';
import { cosine } from '../../src/work-memory/embeddings/embedder.js';
import { createContext, type CommandContext } from '../../src/cli/context.js';
import type { GlobalOptions } from '../../src/cli/globals.js';
import type { InitAsker } from '../../src/cli/commands/init/ask.js';
import type { ProceedAsker } from '../../src/attempt-memory/confirm.js';
import type { Config } from '../../src/shared/config/schema.js';
import type { DuplicateAsker } from '../../src/work-memory/decision/decide.js';

export const DIMS = 384;

/** The i-th standard basis vector. */
export function basis(i: number, dims = DIMS): Float32Array {
  const v = new Float32Array(dims);
  v[i] = 1;
  return v;
}

/** Cosine in float64 over whatever array type holds the numbers. */
export const cosine64 = cosine;

/** A float64 vector whose cosine with e0 is exactly `s` (see the header). */
export function vectorAtScore(s: number, dims = DIMS): Float64Array {
  if (!(s >= -1 && s <= 1)) throw new Error(`vectorAtScore: ${s} is not a cosine`);
  const e0 = basis(0, dims);
  const c0 = Math.sqrt(1 - s * s);
  for (const j of [0, 1, -1, 2, -2, 3, -3, 4, -4]) {
    const v = new Float64Array(dims);
    v[0] = s;
    v[1] = ulpStep(c0, j);
    if (cosine64(e0, v) === s) return v;
  }
  throw new Error(`vectorAtScore: cannot place a vector at exactly ${s}`);
}

/** `x` moved by `n` units in the last place (x >= 0). */
function ulpStep(x: number, n: number): number {
  if (x === 0 && n <= 0) return 0;
  const f = new Float64Array([x]);
  const bits = new BigInt64Array(f.buffer);
  bits[0] += BigInt(n);
  return f[0];
}

/** Hash words into a unit vector: similar word bags give similar vectors, deterministically. */
export function hashVector(text: string, dims = DIMS): Float32Array {
  const v = new Float32Array(dims);
  for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619) >>> 0;
    v[h % dims] += 1;
  }
  let n = 0;
  for (const x of v) n += x * x;
  if (n === 0) return basis(0, dims);
  const norm = Math.sqrt(n);
  for (let i = 0; i < dims; i++) v[i] /= norm;
  return v;
}

/**
 * Embedder implementing src/work-memory/embeddings/embedder.ts deterministically. By default
 * every text maps to e0 (the brief sits at e0, see the header); pass `vectorFor`
 * for something else, e.g. `hashVector`.
 */
export class FakeEmbedder implements Embedder {
  readonly modelId = 'fake/embedder@test';
  readonly modelFingerprint = 'fake-fingerprint';
  readonly dimensions: number;
  readonly maxTokens: number;
  /** Every batch embed() was given, in order. */
  readonly calls: string[][] = [];
  private readonly vectorFor: (text: string) => Float32Array;

  constructor(opts: { dimensions?: number; maxTokens?: number; vectorFor?: (text: string) => Float32Array } = {}) {
    this.dimensions = opts.dimensions ?? DIMS;
    this.maxTokens = opts.maxTokens ?? 256;
    this.vectorFor = opts.vectorFor ?? (() => basis(0, this.dimensions));
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    return texts.map((t) => this.vectorFor(t));
  }

  countTokens(text: string): number {
    return approxTokens(text);
  }
}

export interface FakeChunk {
  vector: ArrayLike<number>;
  section?: string;
  excerpt?: string;
}

export type FakeDoc = Partial<DocMetadata> & { filePath: string; chunks: FakeChunk[]; repository?: string };

interface Entry {
  label: number;
  vector: Float64Array;
  doc: StoredDoc;
  section: string;
  excerpt: string;
}

export function fakeManifest(dimensions = DIMS): Manifest {
  return {
    formatVersion: INDEX_FORMAT_VERSION,
    modelId: 'fake/embedder@test',
    modelFingerprint: 'fake-fingerprint',
    dimensions,
    maxTokens: 256,
    chunkingVersion: 0,
    includeHistory: true,
    createdAt: '2025-01-01T00:00:00.000Z',
    chunkCount: 0,
    nextLabel: 0,
    deletedCount: 0,
    files: {},
    integrity: { vectorsBytes: 0, vectorsHeadSha256: '', metaBytes: 0, metaSha256: '' },
  };
}

/** VectorIndex with an exact (brute-force, float64) cosine scan. */
export class InMemoryIndex implements VectorIndex {
  readonly manifest: Manifest;
  /** Every search() call, to check what the caller asked for. */
  readonly searches: { k: number; type?: CorpusType }[] = [];
  private readonly entries: Entry[] = [];
  private failure: Error | null = null;

  constructor(docs: FakeDoc[] = [], dimensions = DIMS) {
    this.manifest = fakeManifest(dimensions);
    for (const d of docs) this.add(d);
  }

  add(d: FakeDoc): this {
    const { chunks, repository, ...meta } = d;
    // Another repository's document, as the org view holds one fetched from the team store.
    const doc: StoredDoc = { ...storedDoc(meta), labels: [], ...(repository ? { repository } : {}) };
    for (const c of chunks) {
      const label = this.manifest.nextLabel++;
      doc.labels.push(label);
      this.entries.push({
        label,
        vector: Float64Array.from(c.vector),
        doc,
        section: c.section ?? doc.title,
        excerpt: c.excerpt ?? `excerpt of ${doc.title}`,
      });
    }
    this.manifest.chunkCount = this.entries.length;
    return this;
  }

  /** From now on count() and search() throw `err` (null heals the store). */
  failWith(err: Error | null): this {
    this.failure = err;
    return this;
  }

  count(type?: CorpusType): number {
    if (this.failure) throw this.failure;
    return this.entries.filter((e) => !type || e.doc.types.includes(type)).length;
  }

  doc(filePath: string): StoredDoc | undefined {
    return this.entries.find((e) => e.doc.filePath === filePath)?.doc;
  }

  documents(type: CorpusType): StoredDoc[] {
    return [...new Set(this.entries.filter((e) => e.doc.types.includes(type)).map((e) => e.doc))];
  }

  search(vector: Float32Array, k: number, type?: CorpusType): SearchHit[] {
    if (this.failure) throw this.failure;
    this.searches.push({ k, type });
    return this.entries
      .filter((e) => !type || e.doc.types.includes(type))
      .map((e) => ({
        label: e.label,
        score: cosine64(vector, e.vector),
        doc: e.doc,
        section: e.section,
        excerpt: e.excerpt,
      }))
      .sort((a, b) => b.score - a.score || a.label - b.label)
      .slice(0, Math.max(0, k));
  }
}

function storedDoc(meta: Partial<DocMetadata> & { filePath: string }): DocMetadata {
  const types = meta.types ?? ['history'];
  return {
    filePath: meta.filePath,
    types,
    documentType: meta.documentType ?? (types.includes('history') ? 'issue' : 'standard'),
    issueId: meta.issueId === undefined ? null : meta.issueId,
    title: meta.title ?? path.basename(meta.filePath, '.md'),
    summary: meta.summary ?? '',
    status: meta.status === undefined ? null : meta.status,
    statusReason: meta.statusReason === undefined ? null : meta.statusReason,
    contentHash: meta.contentHash ?? 'hash-' + meta.filePath,
    ...(meta.related ? { related: meta.related } : {}),
    ...(meta.ownIssue ? { ownIssue: meta.ownIssue } : {}),
    ...(meta.origin ? { origin: meta.origin } : {}),
  };
}

/** A past document (or standard) wanted at `score`, with optional metadata overrides. */
export interface ScoredDoc {
  score: number;
  meta?: Partial<DocMetadata>;
  /** Extra chunks of the same document, each at its own score (all below `score` unless given higher). */
  extraChunks?: number[];
  section?: string;
  excerpt?: string;
}

const asScored = (x: number | ScoredDoc): ScoredDoc => (typeof x === 'number' ? { score: x } : x);

/** History document i: issue #(101 + i), "Past work <i>", status done. */
export function historyDoc(i: number, d: ScoredDoc): FakeDoc {
  const id = String(101 + i);
  const meta: Partial<DocMetadata> & { filePath: string } = {
    filePath: `docs/audit/done/${id}-past-work-${i}/001-issue.md`,
    types: ['history'],
    documentType: 'issue',
    issueId: id,
    title: `Past work ${i}`,
    summary: `Summary of past work ${i}.`,
    status: 'done',
    ...d.meta,
  };
  return {
    ...meta,
    chunks: [d.score, ...(d.extraChunks ?? [])].map((s, j) => ({
      vector: vectorAtScore(s),
      section: j === 0 ? (d.section ?? 'Problem') : `Part ${j}`,
      excerpt: j === 0 ? (d.excerpt ?? `Excerpt of past work ${i}.`) : `Part ${j} of past work ${i}.`,
    })),
  };
}

/** Standard i: docs/standards/std-<i>.md, "Standard <i>". */
export function standardDoc(i: number, d: ScoredDoc): FakeDoc {
  const meta: Partial<DocMetadata> & { filePath: string } = {
    filePath: `docs/standards/std-${i}.md`,
    types: ['standard'],
    documentType: 'standard',
    issueId: null,
    title: `Standard ${i}`,
    summary: `Summary of standard ${i}.`,
    status: 'accepted',
    ...d.meta,
  };
  return {
    ...meta,
    chunks: [d.score, ...(d.extraChunks ?? [])].map((s, j) => ({
      vector: vectorAtScore(s),
      section: j === 0 ? (d.section ?? `Rule ${i}`) : `Part ${j}`,
      excerpt: j === 0 ? (d.excerpt ?? `Snippet of standard ${i}.`) : `Part ${j} of standard ${i}.`,
    })),
  };
}

/**
 * A store whose history documents score exactly `history` against an e0 brief
 * (and standards exactly `standards`). With the default FakeEmbedder the top
 * score the check sees is exactly max(history).
 */
export function indexWithScores(
  history: (number | ScoredDoc)[],
  standards: (number | ScoredDoc)[] = [],
): InMemoryIndex {
  return new InMemoryIndex([
    ...history.map((h, i) => historyDoc(i, asScored(h))),
    ...standards.map((s, i) => standardDoc(i, asScored(s))),
  ]);
}

/** CheckDeps over a fake embedder and store, counting the loads. */
export function fakeDeps(
  index: VectorIndex,
  embedder: Embedder = new FakeEmbedder(),
  method = 'fake:test',
): CheckDeps & { loads: { embedder: number; store: number } } {
  const loads = { embedder: 0, store: 0 };
  return {
    method,
    loads,
    loadEmbedder: async () => (loads.embedder++, embedder),
    openIndex: async () => (loads.store++, index),
  };
}

/** CheckDeps whose model load fails with `err` (or never settles, for timeouts). */
export function failingDeps(err: Error | 'never', index: VectorIndex = indexWithScores([])): CheckDeps {
  return {
    method: 'fake:test',
    loadEmbedder: () => (err === 'never' ? new Promise<Embedder>(() => {}) : Promise.reject(err)),
    openIndex: async () => index,
  };
}

/** An Error carrying a Node-style code, like fs and net errors. */
export function errnoError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

/** A Writable that keeps what is written to it. */
export function collector(): PassThrough & { text(): string } {
  const s = new PassThrough();
  let buf = '';
  s.on('data', (d: Buffer | string) => (buf += d.toString()));
  return Object.assign(s, { text: () => buf });
}

export interface TestIO {
  io: IO;
  stdin: PassThrough & { isTTY?: boolean };
  stdout: () => string;
  stderr: () => string;
  stderrLines: () => string[];
}

/**
 * IO on PassThrough streams. `tty` makes stdin and stderr claim to be a terminal
 * (`stderrTTY: false` = stderr redirected); env has no CI unless given.
 */
export function makeIO(
  cwd: string,
  opts: { tty?: boolean; stderrTTY?: boolean; columns?: number; env?: NodeJS.ProcessEnv } = {},
): TestIO {
  const stdin = Object.assign(new PassThrough(), { isTTY: opts.tty ?? false });
  const out = collector();
  const err = Object.assign(collector(), { isTTY: opts.stderrTTY ?? opts.tty ?? false, columns: opts.columns });
  return {
    // A terminal without colour unless the test's env says otherwise: assertions read plain text.
    io: { stdin, stdout: out, stderr: err, env: { ...(opts.tty ? { NO_COLOR: '1' } : {}), ...(opts.env ?? {}) }, cwd },
    stdin,
    stdout: () => out.text(),
    stderr: () => err.text(),
    stderrLines: () => err.text().split('\n'),
  };
}

const createdProjects: string[] = [];
// Every test file that uses makeProject removes its folders when it is done.
afterAll(async () => {
  await Promise.all(createdProjects.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A temp folder with `.agentos/` in it, so findProjectRoot stops there. */
export async function makeProject(files: Record<string, string | Buffer> = {}): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'agentos-test-'));
  createdProjects.push(root);
  await mkdir(path.join(root, '.agentos'), { recursive: true });
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
  return root;
}

export const logPath = (root: string) => path.join(root, '.agentos', 'logs', 'agentos.log');

/** The JSON lines of the project's log (empty when nothing was logged). */
export async function readLog(root: string): Promise<Record<string, unknown>[]> {
  let text: string;
  try {
    text = await readFile(logPath(root), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * The command context a unit test hands a command (src/cli/context.ts): the real
 * parts, except those the test fakes. `deps` stands in for the model and index of
 * the check; `asker`, `proceed` and `init` answer the prompts.
 */
export function testContext(
  io: IO,
  globals: GlobalOptions = {},
  o: {
    deps?: (config: Config, root: string) => CheckDeps;
    asker?: DuplicateAsker;
    proceed?: ProceedAsker;
    init?: InitAsker;
  } = {},
): CommandContext {
  return createContext(io, globals, {
    checkDeps: o.deps,
    prompts: { duplicate: o.asker, proceed: o.proceed, init: o.init },
  });
}
