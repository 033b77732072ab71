#!/usr/bin/env node
// After tsc, three bundles (esbuild):
//
// dist/fast/index.cjs — the commander-free route (dist/cli/fast-path.js and what it
// imports) as one CommonJS file. A coding agent starts `hooks run` and `attempt
// check` on every tool call; as ~25 separate ES modules they spent 20-30 ms
// resolving, reading and linking files, and as one ES module still ~12 ms, most of it
// Node building ES facades of node:fs and friends; required as CommonJS from the
// CommonJS bin, ~5 ms. Packages stay external; ESM-only ones (chalk,
// @inquirer/prompts) keep their dynamic import(), written as __agentosImport() (below).
//
// dist/main/index.cjs — every other line: dist/cli/cli.js and all it imports, the
// commands' lazy imports included, as one CommonJS file. ~115 ES modules cost a
// cold `issue start` ~45 ms (555 -> 509 ms median, 25 interleaved runs), now that
// the model loads in a worker meanwhile (ADR-0013). dist/cli/cli.js stays the fallback.
//
// dist/worker/index.cjs — the inference worker bin/agentos.js starts for `issue start`
// (dist/work-memory/embeddings/inference-worker.js and what it imports), one CommonJS
// file: the worker then starts without an ES module loader of its own, and requires
// onnxruntime-node instead of importing it. Its start-up is what a cold check waits for
// (the model's session); ~5 ms sooner (41 interleaved runs each way: 235.8 -> 230.5 and
// 229.5 -> 223.2 ms). The ES module stays the fallback.
//
// dist/vendor/yaml.cjs — the yaml package (74 CommonJS files, 30-60 ms to require) as
// one file, ~5 ms. src/shared/config/yaml.ts loads it when present, else the package.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function bundle(entry, outfile) {
  const result = await build({
    entryPoints: [path.join(root, 'dist', entry)],
    outfile: path.join(root, 'dist', outfile),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    // The sources call createRequire(import.meta.url); in CommonJS that is this file's URL.
    define: { 'import.meta.url': '__agentosModuleUrl' },
    banner: {
      js: [
        "const __agentosModuleUrl = require('node:url').pathToFileURL(__filename).href;",
        // bin/code-cache.js runs a bundle from V8's code cache on Node 20, where an import() in
        // code read from that cache throws ("A dynamic import callback was not specified"): it
        // hands in an import of its own. Required plainly, the bundle imports by itself.
        "const __agentosImport = typeof __agentosImportHook === 'function' ? __agentosImportHook : (specifier) => import(specifier);",
      ].join('\n'),
    },
    metafile: true,
    logLevel: 'warning',
  });
  // A module that finds files relative to itself (new URL('..', import.meta.url)) would
  // look in the wrong folder once moved into the bundle: refuse to ship such a bundle,
  // unless the module says why it is safe ("bundle-safe:", e.g. it resolves from one
  // level below dist/, where the bundles live too, or walks up to the package root).
  const moved = Object.keys(result.metafile.inputs).filter((f) => {
    const text = readFileSync(path.resolve(root, f), 'utf8');
    if (text.includes('bundle-safe:')) return false;
    return text.replaceAll(/createRequire\(import\.meta\.url\)/g, '').includes('import.meta.url');
  });
  if (moved.length > 0) {
    rmSync(path.join(root, 'dist', outfile), { force: true });
    console.error(
      `bundle-fast: ${moved.join(', ')} resolve paths from import.meta.url; they cannot go into dist/${outfile}`,
    );
    process.exit(1);
  }
  // Every import() of a package goes through __agentosImport (the banner); any other import() is refused.
  const file = path.join(root, 'dist', outfile);
  const text = readFileSync(file, 'utf8').replaceAll(
    /(?<![\w$.])import\(("[@a-z0-9][\w@./-]*")\)/g,
    '__agentosImport($1)',
  );
  const left = text.split('\n').filter((l, i) => i > 1 && /(?<![\w$.])import\(/.test(l));
  if (left.length > 0) {
    rmSync(file, { force: true });
    console.error(
      `bundle-fast: dist/${outfile} keeps an import() bin/code-cache.js cannot serve: ${left[0].trim().slice(0, 120)}`,
    );
    process.exit(1);
  }
  writeFileSync(file, text);
}

await bundle('cli/fast-path.js', 'fast/index.cjs');
await bundle('cli/cli.js', 'main/index.cjs');
await bundle('work-memory/embeddings/inference-worker.js', 'worker/index.cjs');

// dist/vendor/pino.cjs — pino (~20 CommonJS files, ~13 ms to require on every `issue start`) as one
// file, ~7 ms. src/shared/log/logger.ts loads it when present; it uses only pino's sync file
// destination, never a transport (whose worker a bundle could not find).
await vendor('pino', 'pino.cjs');
await vendor('yaml', 'yaml.cjs');

/** A package as one minified CommonJS file under dist/vendor/. Names are kept (yaml's errors and nodes are told apart by them). */
async function vendor(pkg, outfile) {
  await build({
    entryPoints: [createRequire(import.meta.url).resolve(pkg)],
    outfile: path.join(root, 'dist', 'vendor', outfile),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  });
}
