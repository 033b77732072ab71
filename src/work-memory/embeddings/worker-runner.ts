import type { Worker } from 'node:worker_threads';
import type { FromWorker, ToWorker } from './inference-worker.js';
import type { RowRunner, SessionSpec } from './onnx-session.js';

/**
 * Where bin/agentos.js leaves the inference worker it started early (see
 * src/work-memory/embeddings/inference-worker.ts). A process-wide slot, not an argument:
 * the worker must start before any of dist/ is loaded, and the model loads
 * several layers below the command.
 */
export const STARTED_WORKER = Symbol.for('agentos.inferenceWorker');

/** A failure to load the session inside the worker, with the code it had there (e.g. MODULE_NOT_FOUND). */
export class WorkerLoadError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'WorkerLoadError';
  }
}

/** The worker bin/agentos.js started, taken at most once; null when there is none. */
export function takeStartedWorker(): Worker | null {
  const slot = globalThis as { [STARTED_WORKER]?: Worker };
  const worker = slot[STARTED_WORKER] ?? null;
  delete slot[STARTED_WORKER];
  return worker;
}

/**
 * The session in the started worker. The worker holds the process open while it
 * loads or runs; idle, it lets the process exit.
 */
export async function openWorkerRunner(worker: Worker, spec: SessionSpec): Promise<RowRunner> {
  const pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let failure: Error | null = null;
  let loading: { resolve: () => void; reject: (e: Error) => void } | null = null;
  const ready = new Promise<void>((resolve, reject) => (loading = { resolve, reject }));
  const settle = () => (pending.size === 0 && !loading ? worker.unref() : worker.ref());
  const fail = (e: Error) => {
    failure ??= e;
    loading?.reject(e);
    loading = null;
    for (const p of pending.values()) p.reject(e);
    pending.clear();
    settle();
  };
  worker.on('message', (m: FromWorker) => {
    if (m.type === 'ready') {
      loading?.resolve();
      loading = null;
    } else if (m.type === 'failed') {
      fail(new WorkerLoadError(m.message, m.code));
    } else {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.type === 'result') p.resolve(m.vectors);
      else p.reject(new Error(m.message));
    }
    settle();
  });
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new WorkerLoadError(`inference worker exited with code ${code}`)));
  settle();
  worker.postMessage({ type: 'open', spec } satisfies ToWorker);
  try {
    await ready;
  } catch (e) {
    await endWorker(worker);
    throw e;
  }
  return {
    run(rows) {
      if (failure) return Promise.reject(failure);
      const id = nextId++;
      return new Promise<Float32Array[]>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        settle();
        worker.postMessage({ type: 'run', id, rows } satisfies ToWorker);
      });
    },
    async release() {
      failure ??= new Error('inference worker released');
      await endWorker(worker);
    },
  };
}

/**
 * Ends the worker once its native work is done (inference-worker.ts): ending it
 * mid-call (worker.terminate) aborts the process from inside ONNX Runtime's
 * binding. Also what bin/agentos.js calls before the process exits. At once for
 * a worker that has exited already (its 'exit' event is past); bounded: one that
 * does not end within 10 s is left to the process exit.
 */
export function endWorker(worker: Worker): Promise<void> {
  if (worker.threadId === -1) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 10_000);
    timer.unref();
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    worker.ref(); // (unreferenced, it would not keep the process waiting for its exit)
    worker.postMessage({ type: 'quit' } satisfies ToWorker);
  });
}
