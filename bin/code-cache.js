// V8's code cache for the bundles bin/agentos.js requires, on Node versions without
// `module.enableCompileCache` (Node 20; 22.1+ keeps its own, and bin/agentos.js turns that on).
// Compiling dist/main/index.cjs (~840 KB) costs a cold `issue start` ~16-24 ms of its ~290
// (issue 50's profile); with the code V8 compiled in an earlier run it takes ~10 ms less.
//
// The cache is per user (beside the tokenizer and model caches: AGENTOS_CACHE_DIR, else
// $XDG_CACHE_HOME/agentos, else ~/.cache/agentos), never a shared temp folder: it holds
// bytecode this process runs. V8 checks it against the source and its own version and
// flags and rejects what does not fit; the file name also carries the bundle's size and
// modification time and Node's version, and one file per bundle path is kept.
// NODE_DISABLE_COMPILE_CACHE=1 (Node's own switch) turns it off.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const vm = require('node:vm');
const Module = require('node:module');
const { createHash } = require('node:crypto');

/** Bundles loaded through the cache in this process: written back at exit when V8 had none to use. */
const loaded = [];

/** `require(file)`, with V8's code cache where Node has none of its own. */
function requireCached(file) {
  const plan = planFor(file);
  if (!plan) return require(file);
  const m = new Module(file, module);
  m.filename = file;
  m.paths = Module._nodeModulePaths(path.dirname(file));
  Module._cache[file] = m;
  // The module runs once, and only from here: an error inside it is its own, never a reason to load it again.
  plan.fn.call(m.exports, m.exports, Module.createRequire(file), m, file, path.dirname(file), importFromBundle);
  m.loaded = true;
  loaded.push(plan);
  return m.exports;
}

/** The compiled bundle and where its cache goes; null: plain require (no cache here, or it cannot be used). */
function planFor(file) {
  try {
    if (typeof Module.enableCompileCache === 'function' || process.env.NODE_DISABLE_COMPILE_CACHE === '1') return null;
    const source = fs.readFileSync(file, 'utf8');
    const st = fs.statSync(file);
    const dir = cacheDir(process.env);
    const stem = hash(path.resolve(file));
    const name = `${stem}-${hash([st.size, st.mtimeMs, process.version, process.arch].join('|'))}.bin`;
    let cachedData;
    try {
      cachedData = fs.readFileSync(path.join(dir, name));
    } catch {
      cachedData = undefined; // the first run of this bundle
    }
    // Module.wrap's parameters and one more: the bundle's import() (scripts/bundle-fast.mjs).
    const wrapped = `(function (exports, require, module, __filename, __dirname, __agentosImportHook) { ${source}\n});`;
    const script = new vm.Script(wrapped, { filename: file, cachedData });
    const fn = script.runInThisContext();
    return { fn, script, dir, stem, name, used: cachedData !== undefined && !script.cachedDataRejected };
  } catch {
    return null; // never a reason not to start
  }
}

/**
 * After the command: V8's code for what this run compiled (the functions it ran included),
 * for the next run, when it had none to use. Written whole under a temporary name and moved
 * into place; older caches of the same bundle are removed. Any failure only means no cache.
 */
function saveCodeCache() {
  for (const plan of loaded.splice(0)) {
    if (plan.used) continue;
    try {
      const data = plan.script.createCachedData();
      fs.mkdirSync(plan.dir, { recursive: true, mode: 0o700 });
      const target = path.join(plan.dir, plan.name);
      const tmp = `${target}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, data, { mode: 0o600 });
      fs.renameSync(tmp, target);
      for (const f of fs.readdirSync(plan.dir))
        if (f.startsWith(`${plan.stem}-`) && f !== plan.name) fs.rmSync(path.join(plan.dir, f), { force: true });
    } catch {
      // a read-only home, a full disk: the next run compiles again
    }
  }
}

/**
 * The bundles' import() of a package (chalk, ora, @inquirer/prompts, …). Code V8 reads from its
 * cache on Node 20 cannot import by itself; this file is required plainly, so it can. Packages
 * resolve from here as from dist/: both are one folder below the package root.
 */
function importFromBundle(specifier) {
  return import(specifier);
}

/** The same folder as modelCacheDir (src/work-memory/embeddings/model-location.ts), its `code-cache/`. */
function cacheDir(env) {
  const base = env.AGENTOS_CACHE_DIR
    ? path.resolve(env.AGENTOS_CACHE_DIR)
    : path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'agentos');
  return path.join(base, 'code-cache');
}

function hash(text) {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

module.exports = { requireCached, saveCodeCache };
