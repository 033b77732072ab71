// The main-thread side of the inference worker, against stand-in workers (no model).
import { Worker } from 'node:worker_threads';
import {
  endWorker,
  openWorkerRunner,
  StartedWorker,
  WorkerLoadError,
} from '../../src/work-memory/embeddings/worker-runner.js';

const spec = { onnxFile: 'model.onnx', fingerprint: 'f', cacheDir: null, memoryArena: false, spinning: false };

describe('openWorkerRunner', () => {
  it('a worker that dies while loading: rejected with its exit code, at once (ending it does not wait for an exit that is past)', async () => {
    const worker = new Worker('process.exit(3)', { eval: true });
    const err = await openWorkerRunner(new StartedWorker(worker), spec).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkerLoadError);
    expect((err as Error).message).toBe('inference worker exited with code 3');
    expect(worker.threadId).toBe(-1);
  });

  it('a load failure reported by the worker keeps its code (a missing runtime stays recognisable), and the worker is asked to quit', async () => {
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       parentPort.on('message', (m) => {
         if (m.type === 'open') parentPort.postMessage({ type: 'failed', message: "Cannot find package 'onnxruntime-node'", code: 'ERR_MODULE_NOT_FOUND' });
         if (m.type === 'quit') process.exit(0);
       });`,
      { eval: true },
    );
    const err = await openWorkerRunner(new StartedWorker(worker), spec).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkerLoadError);
    expect((err as WorkerLoadError).code).toBe('ERR_MODULE_NOT_FOUND');
    expect(worker.threadId).toBe(-1); // ended by `quit`, not left running
  });
});

describe('StartedWorker', () => {
  it('the first load takes it, no later one; ended once, whoever asks, and not taken once ending', async () => {
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       let quits = 0;
       parentPort.on('message', (m) => { if (m.type === 'quit' && ++quits === 1) setTimeout(() => process.exit(0), 20); });`,
      { eval: true },
    );
    const started = new StartedWorker(worker);
    expect(started.take()).toBe(started);
    expect(started.take()).toBeNull();
    const exits: number[] = [];
    worker.on('exit', (c) => exits.push(c));
    const [a, b] = [started.end(), started.end()];
    expect(a).toBe(b);
    await a;
    expect(exits).toEqual([0]);
    expect(new StartedWorker(worker).take()).not.toBeNull();
    const ending = new StartedWorker(worker);
    await ending.end();
    expect(ending.take()).toBeNull();
  });
});

describe('endWorker', () => {
  it('resolves for a worker that has already exited', async () => {
    const worker = new Worker('process.exit(0)', { eval: true });
    await new Promise((r) => worker.once('exit', r));
    await expect(endWorker(worker)).resolves.toBeUndefined();
  });
});
