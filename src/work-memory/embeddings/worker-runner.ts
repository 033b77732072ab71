import type { Worker } from 'node:worker_threads';
import type { FromWorker, ToWorker } from './inference-worker.js';
import type { RowRunner, SessionSpec } from './onnx-session.js';

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

/**
 * The inference worker bin/agentos.js started for this run (inference-worker.ts), handed to
 * `main` as an argument and down to the model's load, never left in a global. The first load
 * takes it; `end` ends it once, whoever asks first: the runner when the session fails or is
 * released, bin/agentos.js once main has returned and the exit code is set (an exit while
 * ONNX Runtime runs in it would abort).
 */
export class StartedWorker {
  private taken = false;
  private ended: Promise<void> | null = null;

  constructor(readonly worker: Worker) {}

  /** This worker for the first model load of the run; null for any later one, or once it is ending. */
  take(): StartedWorker | null {
    if (this.taken || this.ended) return null;
    this.taken = true;
    return this;
  }

  end(): Promise<void> {
    return (this.ended ??= endWorker(this.worker));
  }
}

/**
 * The session in the started worker. The worker holds the process open while it
 * loads or runs; idle, it lets the process exit.
 */
export async function openWorkerRunner(started: StartedWorker, spec: SessionSpec): Promise<RowRunner> {
  const { worker } = started;
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
    await started.end();
    throw e;
  }
  return {
    where: 'worker',
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
      await started.end();
    },
  };
}

/**
 * Ends the worker once its native work is done (inference-worker.ts): ending it
 * mid-call (worker.terminate) aborts the process from inside ONNX Runtime's
 * binding. Called through StartedWorker.end, once. At once for
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
