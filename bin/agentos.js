#!/usr/bin/env node
// Thin entry: everything lives in dist/cli.js so that `--help` stays cheap.
import { main } from '../dist/cli.js';

main(process.argv).then((code) => {
  process.exitCode = code;
  // A model load abandoned by the check's time-out may still hold the event loop:
  // exit once what was written to stdout and stderr has been flushed.
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
});
