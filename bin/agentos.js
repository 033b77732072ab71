#!/usr/bin/env node
// Thin entry: everything lives in dist/. CommonJS (bin/package.json): the lines a
// coding agent runs around every tool call (`hooks run`, `attempt check`,
// `run -- CMD`; the words in src/cli/hot-specs.ts HOT_WORDS) then start without Node's ES module loader and skip commander:
// dist/fast/index.cjs is that route bundled into one file (src/cli/fast-path.ts). Every
// other line goes through dist/cli/cli.js, bundled into dist/main/index.cjs.
'use strict';

// Node 22.1+ keeps the code it compiled for the next run (V8's compile cache, in the
// system temp folder unless NODE_COMPILE_CACHE says otherwise); on Node 20 the bundles
// are compiled through V8's code cache by ./code-cache.js instead.
try {
  require('node:module').enableCompileCache?.();
} catch {
  // never a reason not to start
}
const { requireCached, saveCodeCache } = require('./code-cache.js');

const args = process.argv.slice(2);
let run = null;
// Other lines (issue start, index, …) do not pay for loading the fast bundle.
if (args.includes('check') || args.includes('run')) {
  const fast = requireCached(require('node:path').join(__dirname, '..', 'dist', 'fast', 'index.cjs'));
  const route = fast.parseFastRoute(args, process.env);
  if (route) run = fast.runFastRoute(route, fast.processIO());
}
const worker = !run && startsModel(args) ? startInferenceWorker() : null;
// Handed to main as an argument (src/work-memory/embeddings/worker-runner.ts StartedWorker): the
// model's first load takes it; it is ended here, once the exit code is set.
let started = null;
run ??= loadCli().then((cli) => {
  started = worker ? new cli.StartedWorker(worker) : null;
  return cli.main(process.argv, undefined, { inferenceWorker: started });
});

run.then(async (code) => {
  // First: while the worker ends, nothing else may hold the event loop, and a process that
  // ends then must still end with this code.
  process.exitCode = code;
  // Ending the process while the worker is inside ONNX Runtime's native code aborts it
  // (SIGABRT): StartedWorker.end asks it to finish and end itself (once, if the runner has not).
  if (started) await started.end();
  saveCodeCache();
  // A model load abandoned by the check's time-out may still hold the event loop:
  // exit once what was written to stdout and stderr has been flushed.
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
});

/**
 * dist/main/index.cjs is dist/cli/cli.js bundled into one CommonJS file
 * (scripts/bundle-fast.mjs): ~45 ms less module loading than ~115 ES modules.
 * The ES modules when the bundle is missing (a build that only ran tsc).
 */
function loadCli() {
  try {
    // `issue start` keeps a code cache of its own (code-cache.js): it is the start people wait for.
    const i = args.indexOf('issue');
    const variant = i >= 0 && args[i + 1] === 'start' ? 'check' : 'other';
    return Promise.resolve(
      requireCached(require('node:path').join(__dirname, '..', 'dist', 'main', 'index.cjs'), variant),
    );
  } catch (e) {
    if (e && e.code === 'MODULE_NOT_FOUND' && String(e.message).includes('index.cjs'))
      return import('../dist/cli/cli.js');
    return Promise.reject(e);
  }
}

/**
 * `issue start` checks a brief with the model (not with --help; other commands
 * load it in-process when they need it). AGENTOS_NO_MODEL_WORKER=1 keeps it
 * in-process here too.
 */
function startsModel(argv) {
  if (process.env.AGENTOS_NO_MODEL_WORKER === '1') return false;
  const i = argv.indexOf('issue');
  return i >= 0 && argv[i + 1] === 'start' && !argv.includes('--help') && !argv.includes('-h');
}

/**
 * The model's session loads in a worker thread started now, before dist/ is
 * loaded: its start-up then overlaps the CLI's (src/work-memory/embeddings/inference-worker.ts).
 * Handed to main as an argument; unreferenced, so it never keeps the process alive by
 * itself. Any failure here only means the model loads in-process.
 */
function startInferenceWorker() {
  try {
    const path = require('node:path');
    const { Worker } = require('node:worker_threads');
    // Read when the native library loads, in whichever thread (a user's own value wins).
    process.env.ORT_DISABLE_TELEMETRY ??= '1';
    const bundled = path.join(__dirname, '..', 'dist', 'worker', 'index.cjs');
    const worker = new Worker(
      require('node:fs').existsSync(bundled)
        ? bundled
        : path.join(__dirname, '..', 'dist', 'work-memory', 'embeddings', 'inference-worker.js'),
    );
    worker.unref();
    worker.on('error', () => {});
    return worker;
  } catch {
    return null; // in-process instead
  }
}
