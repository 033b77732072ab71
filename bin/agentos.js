#!/usr/bin/env node
// Thin entry: everything lives in dist/. CommonJS (bin/package.json): the lines a
// coding agent runs around every tool call (`hooks run`, `attempt check`,
// `run -- CMD`) then start without Node's ES module loader and skip commander:
// dist/fast/index.cjs is that route bundled into one file (src/fast-path.ts). Every
// other line goes through dist/cli.js.
'use strict';

const args = process.argv.slice(2);
let run = null;
// Other lines (issue start, index, …) do not pay for loading the bundle.
if (args.includes('hooks') || args.includes('check') || args.includes('run')) {
  const fast = require('../dist/fast/index.cjs');
  const route = fast.parseFastRoute(args, process.env);
  if (route) run = fast.runFastRoute(route, fast.processIO());
}
run ??= import('../dist/cli.js').then(({ main }) => main(process.argv));

run.then((code) => {
  process.exitCode = code;
  // A model load abandoned by the check's time-out may still hold the event loop:
  // exit once what was written to stdout and stderr has been flushed.
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
});
