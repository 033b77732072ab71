#!/usr/bin/env node
// The README's synopsis and docs/commands.md's usage lines from the command definitions (src/cli/synopsis.ts), from the build:
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
const { synopsis, usageLines, SYNOPSIS_START, SYNOPSIS_END, USAGE_START, USAGE_END } = await import(
  path.join(dist, 'synopsis.js')
);
const io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: {}, cwd: root };
const program = buildProgram(io, () => undefined);
let differs = false;
// The README's synopsis table and docs/commands.md's usage lines.
for (const [rel, start, end, block] of [
  ['README.md', SYNOPSIS_START, SYNOPSIS_END, synopsis(program)],
  [path.join('docs', 'commands.md'), USAGE_START, USAGE_END, usageLines(program)],
]) {
  const file = path.join(root, rel);
  const text = readFileSync(file, 'utf8');
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a < 0 || b < a) {
    process.stderr.write(`readme-synopsis: ${rel} has no generated-block markers (${start} … ${end})\n`);
    process.exit(2);
  }
  const next = text.slice(0, a) + block + text.slice(b + end.length);
  if (process.argv.includes('--write')) writeFileSync(file, next);
  else if (next !== text) {
    process.stderr.write(`readme-synopsis: ${rel} differs from the commands: run with --write\n`);
    differs = true;
  }
}
if (differs) process.exit(1);
