#!/usr/bin/env node
// The README's synopsis from the command definitions (src/cli/synopsis.ts), from the build:
//   npm run build && node scripts/readme-synopsis.mjs [--write]
// Without --write: exit 1 and say so when the README's differs (the unit test checks the same).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist', 'cli');
if (!existsSync(path.join(dist, 'synopsis.js'))) {
  process.stderr.write('readme-synopsis: dist/ has no build of the CLI: run `npm run build` first\n');
  process.exit(2);
}
const { buildProgram } = await import(path.join(dist, 'cli.js'));
const { synopsis, SYNOPSIS_START, SYNOPSIS_END } = await import(path.join(dist, 'synopsis.js'));
const io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: {}, cwd: root };
const table = synopsis(buildProgram(io, () => undefined));
const file = path.join(root, 'README.md');
const readme = readFileSync(file, 'utf8');
const a = readme.indexOf(SYNOPSIS_START);
const b = readme.indexOf(SYNOPSIS_END);
if (a < 0 || b < a) {
  process.stderr.write(`readme-synopsis: README.md has no synopsis markers (${SYNOPSIS_START} … ${SYNOPSIS_END})\n`);
  process.exit(2);
}
const next = readme.slice(0, a) + table + readme.slice(b + SYNOPSIS_END.length);
if (process.argv.includes('--write')) writeFileSync(file, next);
else if (next !== readme) {
  process.stderr.write('readme-synopsis: the README synopsis differs from the commands: run with --write\n');
  process.exit(1);
}
