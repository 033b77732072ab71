#!/usr/bin/env node
// After tsc, two bundles (esbuild):
//
// dist/fast/index.cjs — the commander-free route (dist/fast-path.js and what it
// imports) as one CommonJS file. A coding agent starts `hooks run` and `attempt
// check` on every tool call; as ~25 separate ES modules they spent 20-30 ms
// resolving, reading and linking files, and as one ES module still ~12 ms, most of it
// Node building ES facades of node:fs and friends; required as CommonJS from the
// CommonJS bin, ~5 ms. Packages stay external; ESM-only ones (chalk,
// @inquirer/prompts) keep their dynamic import().
//
// dist/vendor/yaml.cjs — the yaml package (74 CommonJS files, 30-60 ms to require) as
// one file, ~5 ms. src/config/yaml.ts loads it when present, else the package.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, 'dist', 'fast', 'index.cjs');
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
// look in the wrong folder once moved into the bundle: refuse to ship such a bundle,
// unless the module says it resolves from one level below dist/, where the bundle
// lives too (dist/config/yaml.js and dist/fast/index.cjs).
const moved = Object.keys(result.metafile.inputs).filter((f) => {
  const text = readFileSync(path.resolve(root, f), 'utf8');
  if (text.includes('bundle-safe: one level below dist/')) return false;
  return text.replaceAll(/createRequire\(import\.meta\.url\)/g, '').includes('import.meta.url');
});
if (moved.length > 0) {
  rmSync(outfile, { force: true });
  console.error(`bundle-fast: ${moved.join(', ')} resolve paths from import.meta.url; they cannot go into ${path.relative(root, outfile)}`);
  process.exit(1);
}

await build({
  entryPoints: [createRequire(import.meta.url).resolve('yaml')],
  outfile: path.join(root, 'dist', 'vendor', 'yaml.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // Less to parse; names are kept (yaml's errors and nodes are told apart by them).
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});
