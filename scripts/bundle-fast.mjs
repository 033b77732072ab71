#!/usr/bin/env node
// Bundles the commander-free route (dist/fast-path.js and what it imports) into one
// CommonJS file, dist/fast.cjs, after tsc. A coding agent starts `hooks run` and
// `attempt check` on every tool call; as ~25 separate ES modules they spent 20-30 ms
// resolving, reading and linking files (bench: attempt check x1.87 -> x1.74 of a bare
// node start on the same runs), and as one ES module still ~12 ms, most of it Node
// building ES facades of node:fs and friends; required as CommonJS from the CommonJS
// bin, ~5 ms. Packages stay external; ESM-only ones (chalk, @inquirer/prompts) keep
// their dynamic import().
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, 'dist', 'fast.cjs');
const result = await build({
  entryPoints: [path.join(root, 'dist', 'fast-path.js')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  packages: 'external',
  // The sources call createRequire(import.meta.url); in CommonJS that is this file's URL.
  define: { 'import.meta.url': '__agentosModuleUrl' },
  banner: { js: "const __agentosModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  metafile: true,
  logLevel: 'warning',
});

// A module that finds files relative to itself (new URL('..', import.meta.url)) would
// look in the wrong folder once moved into dist/fast.cjs: refuse to ship such a bundle.
const moved = Object.keys(result.metafile.inputs).filter((f) => {
  const text = readFileSync(path.resolve(root, f), 'utf8');
  return text.replaceAll(/createRequire\(import\.meta\.url\)/g, '').includes('import.meta.url');
});
if (moved.length > 0) {
  rmSync(outfile, { force: true });
  console.error(`bundle-fast: ${moved.join(', ')} resolve paths from import.meta.url; they cannot go into dist/fast.cjs`);
  process.exit(1);
}
