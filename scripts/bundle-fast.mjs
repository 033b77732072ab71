#!/usr/bin/env node
// Bundles the commander-free route (dist/fast-path.js and what it imports) into one
// file, dist/fast.js, after tsc. A coding agent starts `hooks run` and `attempt check`
// on every tool call; as ~25 separate ES modules they spent 20-30 ms resolving,
// reading and linking files (bench: attempt check x1.87 -> x1.74 of a bare node start
// on the same runs). Packages stay external (loaded from node_modules as usual).
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, 'dist', 'fast.js');
const result = await build({
  entryPoints: [path.join(root, 'dist', 'fast-path.js')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  // better-sqlite3 and yaml are CommonJS, loaded with createRequire in the sources; keep
  // a `require` for any CommonJS helper esbuild itself emits.
  banner: { js: "import { createRequire as __agentosRequire } from 'node:module'; const require = __agentosRequire(import.meta.url);" },
  metafile: true,
  logLevel: 'warning',
});

// A module that finds files relative to itself (new URL('..', import.meta.url)) would
// look in the wrong folder once moved into dist/fast.js: refuse to ship such a bundle.
const moved = Object.keys(result.metafile.inputs).filter((f) => {
  const text = readFileSync(path.resolve(root, f), 'utf8');
  return text.replaceAll(/createRequire\(import\.meta\.url\)/g, '').includes('import.meta.url');
});
if (moved.length > 0) {
  rmSync(outfile, { force: true });
  console.error(`bundle-fast: ${moved.join(', ')} resolve paths from import.meta.url; they cannot go into dist/fast.js`);
  process.exit(1);
}
