#!/usr/bin/env node
// Thin entry: everything lives in dist/cli.js so that `--help` stays cheap.
import { main } from '../dist/cli.js';

main(process.argv).then((code) => {
  process.exitCode = code;
});
