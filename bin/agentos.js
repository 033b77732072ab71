#!/usr/bin/env node
// Thin entry: everything lives in dist/. The lines a coding agent runs on every
// tool call (`hooks run`, `attempt check`, `run -- CMD`) skip commander: dist/fast.js is that
// route bundled into one file (src/fast-path.ts); everything else goes through
// dist/cli.js.
const args = process.argv.slice(2);
const slow = () => import('../dist/cli.js').then(({ main }) => main(process.argv));
// Other lines (issue start, index, …) do not pay for loading the bundle.
const run = args.includes('hooks') || args.includes('check') || args.includes('run')
  ? import('../dist/fast.js').then(({ parseFastRoute, runFastRoute, processIO }) => {
      const route = parseFastRoute(args, process.env);
      return route ? runFastRoute(route, processIO()) : slow();
    })
  : slow();

run.then((code) => {
  process.exitCode = code;
  // A model load abandoned by the check's time-out may still hold the event loop:
  // exit once what was written to stdout and stderr has been flushed.
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
});
