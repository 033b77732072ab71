#!/usr/bin/env node
// The layout's rules (docs/adrs/0016-layout.md), checked on every `npm run lint`:
//
//   shared  <  work-memory | attempt-memory  <  knowledge  <  agents  <  cli
//
// A file imports only from its own layer or the layers below; the two memories never
// import each other (knowledge joins them); a command's folder (cli/commands/<name>/) never
// imports another command's (what two share lives in src/cli/); no import cycles between
// files, `import type` included. Prints each violation as "file: imports target (why)"; exit 1 when
// there is one.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
export const RANK = { shared: 0, 'work-memory': 1, 'attempt-memory': 1, knowledge: 2, agents: 3, cli: 4 };

/** The .ts files below `dir`. */
export function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/**
 * The relative modules a file imports, read by TypeScript's own scanner: static and
 * type imports, re-exports, side-effect imports, import() and require(); never text
 * inside comments or strings.
 */
function importsOf(file) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const out = new Set();
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('.')) continue;
    out.add(path.resolve(path.dirname(file), fileName).replace(/\.js$/, '.ts'));
  }
  return [...out];
}

/** `dir`: the source tree to check (src/; the tests give a tree with known faults). */
export function checkLayers(dir = src) {
  const layerOf = (file) => path.relative(dir, file).split(path.sep)[0];
  /** The command a file belongs to (cli/commands/<name>/…), or null. */
  const commandOf = (file) => {
    const parts = path.relative(dir, file).split(path.sep);
    return parts[0] === 'cli' && parts[1] === 'commands' && parts.length > 3 ? parts[2] : null;
  };
  const files = walk(dir);
  const problems = [];
  const graph = new Map();
  for (const file of files) {
    const layer = layerOf(file);
    if (!(layer in RANK))
      problems.push(
        `${path.relative(root, file)}: outside the layers (src/ holds only ${Object.keys(RANK).join(', ')})`,
      );
    const targets = importsOf(file);
    graph.set(file, targets);
    for (const t of targets) {
      const [from, to] = [commandOf(file), commandOf(t)];
      if (from && to && from !== to)
        problems.push(
          `${path.relative(root, file)}: imports ${path.relative(root, t)} (one command never imports another: share it through src/cli/)`,
        );
      const tl = layerOf(t);
      if (!(tl in RANK) || !(layer in RANK) || tl === layer) continue;
      const why =
        RANK[tl] > RANK[layer]
          ? `${layer} is below ${tl}`
          : RANK[tl] === RANK[layer]
            ? `${layer} and ${tl} never import each other (src/knowledge joins them)`
            : null;
      if (why) problems.push(`${path.relative(root, file)}: imports ${path.relative(root, t)} (${why})`);
    }
  }
  for (const cycle of cycles(graph))
    problems.push(`import cycle: ${cycle.map((f) => path.relative(root, f)).join(' -> ')}`);
  return problems;
}

/** How many imports between files of src/ the check read (a checker that read none would pass everything). */
export function importCount(dir = src) {
  return walk(dir).reduce((n, f) => n + importsOf(f).length, 0);
}

/** Strongly connected components of more than one file (Tarjan), each as a cycle to read. */
function cycles(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const found = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const comp = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) found.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = checkLayers();
  for (const p of problems) process.stderr.write(`${p}\n`);
  if (problems.length) {
    process.stderr.write(
      `check-layers: ${problems.length} problem${problems.length === 1 ? '' : 's'} (the rules: docs/adrs/0016-layout.md)\n`,
    );
    process.exit(1);
  }
  process.stdout.write('check-layers: every import points down its layers; no cycles\n');
}
