/**
 * Worker-thread entry: one ONNX Runtime session, driven by messages from
 * src/work-memory/embeddings/worker-runner.ts. bin/agentos.js starts it first thing for
 * `issue start`: the worker's own start (~100 ms), loading the runtime and then
 * the session (~150 ms of native work that blocks its thread) overlap the main
 * thread's start-up (CLI, config, brief, index, lexical index, tokenizer)
 * instead of following it. It waits for `open` to learn which weights to load.
 */
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../../shared/errors.js';
import { loadOrt, openRowRunner, type RowRunner, type SessionSpec } from './onnx-session.js';

export type ToWorker =
  | { type: 'open'; spec: SessionSpec }
  | { type: 'run'; id: number; rows: readonly Int32Array[] }
  | { type: 'quit' };
export type FromWorker =
  | { type: 'ready' }
  | { type: 'failed'; message: string; code?: string }
  | { type: 'result'; id: number; vectors: Float32Array[] }
  | { type: 'error'; id: number; message: string };

const port = parentPort;
if (port) {
  // Native work in progress. Ending the thread in the middle of it (worker.terminate,
  // or the process exiting) aborts the whole process from inside the runtime's
  // binding, so `quit` waits for it and then ends the thread itself.
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    const settled = p.then(
      () => undefined,
      () => undefined,
    );
    inFlight.add(settled);
    void settled.then(() => inFlight.delete(settled));
    return p;
  };
  // Load the runtime's code and create its environment now, before the weights are
  // named (initOrt, ~30 ms, is internal: skipped if a later version moves it). A
  // failure here is reported by `open` (openRowRunner imports the runtime again).
  track(
    Promise.resolve()
      .then(() => {
        loadOrt();
        (createRequire(import.meta.url)('onnxruntime-node/dist/binding.js') as { initOrt?: () => void }).initOrt?.();
      })
      .catch(() => undefined),
  );
  const post = (m: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);
  let runner: Promise<RowRunner> | null = null;
  port.on('message', (m: ToWorker) => {
    if (m.type === 'quit') {
      void Promise.all([...inFlight]).then(() => process.exit(0));
    } else if (m.type === 'open') {
      runner ??= track(openRowRunner(m.spec));
      runner.then(
        () => post({ type: 'ready' }),
        (e: unknown) => post({ type: 'failed', message: errorMessage(e), code: (e as { code?: string })?.code }),
      );
    } else if (runner) {
      track(runner.then((r) => r.run(m.rows))).then(
        (vectors) =>
          post(
            { type: 'result', id: m.id, vectors },
            vectors.map((v) => v.buffer as ArrayBuffer),
          ),
        (e: unknown) => post({ type: 'error', id: m.id, message: errorMessage(e) }),
      );
    } else {
      post({ type: 'error', id: m.id, message: 'the session was not opened' });
    }
  });
}
