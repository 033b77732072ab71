// V8's code cache for the bundles bin/agentos.js requires, on Node versions without
// `module.enableCompileCache` (Node 20; 22.1+ keeps its own, and bin/agentos.js turns that on).
// Compiling dist/main/index.cjs (~840 KB) costs a cold `issue start` ~16-24 ms of its ~290
// (issue 50's profile); with the code V8 compiled in an earlier run it takes ~10 ms less.
//
// The cache holds bytecode this process runs, so it is trusted only as the user's own file:
// - per user, beside the tokenizer and model caches (AGENTOS_CACHE_DIR, else
//   $XDG_CACHE_HOME/agentos, else ~/.cache/agentos), in `code-cache/`, never a shared temp folder;
//   the folder and the file are used only when this user owns them and nobody else may write them;
// - named by the bundle's path, the kind of run (`issue start` keeps its own), the bundle's identity
//   (size, modification and change times, inode: a bundle replaced with the same size and mtime
//   still changes its ctime and inode) and Node's version;
// - checked whole before V8 sees it (a SHA-256 of the data heads the file): V8 itself checks only
//   that it fits the source's length, its version and flags, not the bytes.
// Written under a fresh temporary name (O_EXCL) and renamed into place; one file per bundle path and
// kind of run is kept, and at most MAX_FILES in all. Any failure means the bundle is compiled as usual. NODE_DISABLE_COMPILE_CACHE=1 (Node's own
// switch) turns it off.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');

/** Bundles loaded through the cache in this process: written back at exit when V8 had none to use. */
const loaded = [];

/**
 * `require(file)`, with V8's code cache where Node has none of its own. `variant` keeps a cache per kind
 * of run: the cache holds the functions the run that wrote it compiled, so one written by `status` would
 * leave a check compiling its own (a check then took 245 ms against 236 ms with its own cache).
 */
function requireCached(file, variant = '') {
  const plan = planFor(file, variant);
  if (!plan) return require(file);
  const m = new Module(file, module);
  m.filename = file;
  m.paths = Module._nodeModulePaths(path.dirname(file));
  Module._cache[file] = m;
  try {
    // The module runs once, and only from here: an error inside it is its own, never a reason to load it again.
    plan.fn.call(m.exports, m.exports, Module.createRequire(file), m, file, path.dirname(file), importFromBundle);
  } catch (e) {
    delete Module._cache[file]; // as Node's own loader does: no half-initialised module stays registered
    throw e;
  }
  m.loaded = true;
  loaded.push(plan);
  return m.exports;
}

/** The compiled bundle and where its cache goes; null: plain require (no cache here, or it cannot be used). */
function planFor(file, variant) {
  try {
    if (typeof Module.enableCompileCache === 'function' || process.env.NODE_DISABLE_COMPILE_CACHE === '1') return null;
    const vm = require('node:vm');
    // Read and identified through one descriptor: what is compiled is what the name describes.
    const fd = fs.openSync(file, 'r');
    let source;
    let st;
    try {
      st = fs.fstatSync(fd);
      source = fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
    const dir = cacheDir(process.env);
    const stem = hash(variant ? `${path.resolve(file)}|${variant}` : path.resolve(file));
    const identity = [st.size, st.mtimeMs, st.ctimeMs, st.ino, process.version, process.arch].join('|');
    const name = `${stem}-${hash(identity)}.bin`;
    const cachedData = readOwn(dir, name);
    // Module.wrap's parameters and one more: the bundle's import() (scripts/bundle-fast.mjs).
    const wrapped = `(function (exports, require, module, __filename, __dirname, __agentosImportHook) { ${source}\n});`;
    const script = new vm.Script(wrapped, { filename: file, cachedData });
    const fn = script.runInThisContext();
    return { fn, script, dir, stem, name, used: cachedData !== undefined && !script.cachedDataRejected };
  } catch {
    return null; // never a reason not to start
  }
}

/** SHA-256 of the data, then the data: a damaged or cut file is never handed to V8. */
const HEADER = 32;

/** The cache file's data, when the folder and the file are this user's alone and the file is whole; else undefined. */
function readOwn(dir, name) {
  try {
    if (!ownedPrivately(fs.lstatSync(dir), true)) return undefined;
    const file = path.join(dir, name);
    const st = fs.lstatSync(file);
    if (!ownedPrivately(st, false)) return undefined;
    const bytes = fs.readFileSync(file);
    if (bytes.length <= HEADER) return undefined;
    const data = bytes.subarray(HEADER);
    return digest(data).equals(bytes.subarray(0, HEADER)) ? data : undefined;
  } catch {
    return undefined; // the first run of this bundle, or a cache that is not to be used
  }
}

/** A folder or regular file (never a link) of this user's that nobody else may write. Windows has no uid: its ACLs decide. */
function ownedPrivately(st, folder) {
  if (folder ? !st.isDirectory() : !st.isFile()) return false;
  if (typeof process.getuid !== 'function') return true;
  return st.uid === process.getuid() && (st.mode & 0o022) === 0;
}

/**
 * After the command: V8's code for what this run compiled (the functions it ran included),
 * for the next run, when it had none to use. Written whole under a fresh temporary name and
 * moved into place; older caches of the same bundle are removed. Any failure only means no cache.
 */
function saveCodeCache() {
  for (const plan of loaded.splice(0)) {
    if (plan.used) continue;
    try {
      const data = plan.script.createCachedData();
      fs.mkdirSync(plan.dir, { recursive: true, mode: 0o700 });
      if (!ownedPrivately(fs.lstatSync(plan.dir), true)) continue; // someone else's folder: nothing written there
      const target = path.join(plan.dir, plan.name);
      const tmp = `${target}.${process.pid}.${require('node:crypto').randomBytes(6).toString('hex')}.tmp`;
      fs.writeFileSync(tmp, Buffer.concat([digest(data), data]), { mode: 0o600, flag: 'wx' });
      fs.renameSync(tmp, target);
      prune(plan);
    } catch {
      // a read-only home, a full disk: the next run compiles again
    }
  }
}

/** Cache files kept in the folder at most: an install at another path (npx, a second clone) writes its own. */
const MAX_FILES = 12;

/** Older caches of the same bundle and kind of run go; beyond MAX_FILES, the least recently written. */
function prune(plan) {
  const files = fs
    .readdirSync(plan.dir)
    .filter((f) => f.endsWith('.bin') && f !== plan.name)
    .map((f) => ({ f, mtime: fs.lstatSync(path.join(plan.dir, f)).mtimeMs }));
  const stale = files.filter(({ f }) => f.startsWith(`${plan.stem}-`));
  const others = files.filter(({ f }) => !f.startsWith(`${plan.stem}-`)).sort((a, b) => b.mtime - a.mtime);
  for (const { f } of [...stale, ...others.slice(MAX_FILES - 1)]) fs.rmSync(path.join(plan.dir, f), { force: true });
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
    : path.join(env.XDG_CACHE_HOME || path.join(require('node:os').homedir(), '.cache'), 'agentos');
  return path.join(base, 'code-cache');
}

function hash(text) {
  return require('node:crypto').createHash('sha256').update(text).digest('hex').slice(0, 16);
}

function digest(data) {
  return require('node:crypto').createHash('sha256').update(data).digest();
}

module.exports = { requireCached, saveCodeCache };
