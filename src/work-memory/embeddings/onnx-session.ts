import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import path from 'node:path';

/**
 * The ONNX Runtime side of the embedder: a session over one weights file and
 * "token ids in, pooled unit vectors out", plain data both ways, so it runs the
 * same in the main thread (index) and in the worker bin/agentos.js starts for a
 * brief's check (inference-worker.ts, ADR-0013).
 */
export interface SessionSpec {
  onnxFile: string;
  fingerprint: string;
  /** Where the optimised graph is cached; null disables the cache. */
  cacheDir: string | null;
  memoryArena: boolean;
  /**
   * Whether ONNX Runtime's intra-op threads spin, waiting for work, after each run: right for an index's
   * batches back to back; for a check's few runs they only take the cores the main thread's scoring needs
   * (cold `issue start` on the demo, 2 cores: 302 -> 282 ms wall, 0.45 -> 0.38 s CPU without).
   */
  spinning: boolean;
}

/** Runs batches of token-id rows ([CLS] ... [SEP], unpadded) through the model. */
export interface RowRunner {
  /** Where the session runs: the inference worker bin/agentos.js started, or this thread. */
  readonly where: 'worker' | 'in-process';
  run(rows: readonly Int32Array[]): Promise<Float32Array[]>;
  release(): Promise<void>;
}

interface Tensor {
  data: Float32Array;
  dims: readonly number[];
}
interface Session {
  run(feeds: Record<string, unknown>): Promise<Record<string, Tensor>>;
  release?: () => Promise<void>;
}
type Ort = typeof import('onnxruntime-node');

/**
 * The runtime, required: the package is CommonJS, and import() would take it through the ES
 * module loader's CommonJS translation, on the worker's way to its first answer.
 */
export function loadOrt(): Ort {
  return createRequire(import.meta.url)('onnxruntime-node') as Ort;
}

export async function openRowRunner(spec: SessionSpec): Promise<RowRunner> {
  // ONNX Runtime's telemetry (1DS) leaves an empty $TMPDIR/mat-debug-<pid>.log on every run;
  // ORT_DISABLE_TELEMETRY, read when the native library loads, turns it off (a user's own value wins).
  process.env.ORT_DISABLE_TELEMETRY ??= '1';
  const ort = loadOrt();
  const session = (await createSession(ort, spec)) as unknown as Session;
  return {
    where: 'in-process',
    run: (rows) => runRows(ort, session, rows),
    release: async () => session.release?.(),
  };
}

async function runRows(ort: Ort, session: Session, rows: readonly Int32Array[]): Promise<Float32Array[]> {
  const batch = rows.length;
  const seq = Math.max(...rows.map((r) => r.length));
  const ids = new BigInt64Array(batch * seq);
  const mask = new BigInt64Array(batch * seq);
  rows.forEach((r, b) => {
    for (let t = 0; t < r.length; t++) {
      ids[b * seq + t] = BigInt(r[t]);
      mask[b * seq + t] = 1n;
    }
  });
  const { last_hidden_state: hidden } = await session.run({
    input_ids: new ort.Tensor('int64', ids, [batch, seq]),
    attention_mask: new ort.Tensor('int64', mask, [batch, seq]),
    token_type_ids: new ort.Tensor('int64', new BigInt64Array(batch * seq), [batch, seq]),
  });
  return meanPool(
    hidden.data,
    hidden.dims[2],
    seq,
    rows.map((r) => r.length),
  );
}

/** Mean pooling over each row's real tokens, L2-normalised (sentence-transformers' recipe). */
function meanPool(data: Float32Array, dim: number, seq: number, counts: readonly number[]): Float32Array[] {
  return counts.map((count, b) => {
    const v = new Float32Array(dim);
    for (let t = 0; t < count; t++) {
      const off = (b * seq + t) * dim;
      for (let d = 0; d < dim; d++) v[d] += data[off + d];
    }
    let norm = 0;
    for (let d = 0; d < dim; d++) {
      v[d] /= count;
      norm += v[d] * v[d];
    }
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < dim; d++) v[d] /= norm;
    return v;
  });
}

/**
 * ONNX Runtime's fused SkipLayerNormalization kernel took ~300 us per call on a
 * 128-token text where Add + LayerNormalization take ~60 (12 calls per text):
 * unfused, inference is 6-10% faster (docs/benchmarks.md).
 */
const DISABLED_FUSIONS = 'SkipLayerNormFusion';
/** Names the optimisation settings in the cache entry's name: change it when they change. */
const GRAPH_RECIPE = 'g3';
const GRAPH_FILE = 'model.onnx';
/**
 * The weights beside the graph, not inside it: ONNX Runtime maps an external
 * data file instead of parsing ~30 MB of protobuf, and creating the session
 * takes ~75 ms instead of ~130 (same vectors, same speed after).
 */
const WEIGHTS_FILE = 'model.data';

/**
 * Graph optimisation takes ~200 ms per session. Do it once per (weights, ORT
 * version, CPU arch, recipe), save the result (portable "extended" level) as a
 * folder holding the graph and its weights, and open the saved graph with
 * optimisation off afterwards. The folder is written under a temporary name and
 * renamed into place whole; an entry that fails to load is deleted and rebuilt.
 */
async function createSession(ort: Ort, spec: SessionSpec) {
  const { onnxFile, fingerprint, cacheDir, memoryArena, spinning } = spec;
  // Intra-op threads from the cores this process may use (affinity, cgroups), not ORT's guess.
  const base = {
    executionProviders: ['cpu'],
    enableCpuMemArena: memoryArena,
    intraOpNumThreads: availableParallelism(),
    interOpNumThreads: 1,
  };
  const threads = { 'session.intra_op.allow_spinning': spinning ? '1' : '0' };
  // A session that optimises the graph itself (not one opened from the cache, already optimised).
  const optimising = { ...threads, 'optimization.disable_specified_optimizers': DISABLED_FUSIONS };
  if (!cacheDir || fingerprint === 'unknown')
    return ort.InferenceSession.create(onnxFile, { ...base, extra: optimising, graphOptimizationLevel: 'all' });
  const entry = path.join(cacheDir, `minilm-${fingerprint}-ort${ortVersion()}-${process.arch}-${GRAPH_RECIPE}`);
  if (existsSync(path.join(entry, GRAPH_FILE))) {
    try {
      return await ort.InferenceSession.create(path.join(entry, GRAPH_FILE), {
        ...base,
        extra: threads,
        graphOptimizationLevel: 'disabled',
      });
    } catch {
      await rm(entry, { recursive: true, force: true });
    }
  }
  const tmp = `${entry}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  try {
    await mkdir(tmp, { recursive: true });
    const session = await ort.InferenceSession.create(onnxFile, {
      ...base,
      graphOptimizationLevel: 'extended',
      optimizedModelFilePath: path.join(tmp, GRAPH_FILE),
      extra: {
        ...optimising,
        'session.optimized_model_external_initializers_file_name': WEIGHTS_FILE,
        'session.optimized_model_external_initializers_min_size_in_bytes': '1024',
      },
    });
    // Another process may have put the same entry in place meanwhile: keep theirs.
    await rename(tmp, entry).catch(() => rm(tmp, { recursive: true, force: true }));
    return session;
  } catch {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    return ort.InferenceSession.create(onnxFile, { ...base, extra: optimising, graphOptimizationLevel: 'all' });
  }
}

function ortVersion(): string {
  try {
    return (createRequire(import.meta.url)('onnxruntime-node/package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/**
 * onnxruntime-node is an optional dependency: offline, its install script (which
 * fetches CUDA libraries on Linux x64) fails and npm leaves it out rather than
 * failing the whole install. Installed without that script, it works on the CPU.
 */
export const RUNTIME_MISSING =
  'ONNX Runtime is not installed (npm skips it when its install script cannot download its CUDA extras, e.g. offline): run `npm install onnxruntime-node@1.30.0 --onnxruntime-node-install=skip` where agentos is installed';

export function isMissingRuntime(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return (
    (err?.code === 'ERR_MODULE_NOT_FOUND' || err?.code === 'MODULE_NOT_FOUND') &&
    /onnxruntime-node/.test(err.message ?? '')
  );
}
