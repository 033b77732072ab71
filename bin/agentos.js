#!/usr/bin/env node
// Thin entry: everything lives in dist/. The lines a coding agent runs on every
// tool call (`hooks run`, `attempt check`) skip commander (dist/fast-path.js);
// everything else goes through dist/cli.js.
const args = process.argv.slice(2);
const run = import('../dist/fast-path.js').then(async ({ parseFastRoute, runFastRoute }) => {
  const route = parseFastRoute(args, process.env);
  if (route) {
    const { processIO } = await import('../dist/io.js');
    return runFastRoute(route, processIO());
  }
  const { main } = await import('../dist/cli.js');
  return main(process.argv);
});

run.then((code) => {
  process.exitCode = code;
  // A model load abandoned by the check's time-out may still hold the event loop:
  // exit once what was written to stdout and stderr has been flushed.
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
});
