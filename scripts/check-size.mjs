#!/usr/bin/env node
// Sizes a reader can hold (issue 49), checked on every `npm run lint` at the formatter's width
// (.prettierrc, printWidth 120): no file in src/ over MAX_FILE_LINES lines, no function over
// MAX_FUNCTION_LINES unless the comment right above it says why with a line starting `long:`
// (a flow read top to bottom may be longer than a screen; it has to say so). Prints each as
// "file:line: name is N lines (at most M)"; exit 1 when there is one.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { walk } from './check-layers.mjs';

export const MAX_FILE_LINES = 400;
export const MAX_FUNCTION_LINES = 80;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const isFunction = (n) =>
  ts.isFunctionDeclaration(n) ||
  ts.isMethodDeclaration(n) ||
  ts.isArrowFunction(n) ||
  ts.isFunctionExpression(n) ||
  ts.isConstructorDeclaration(n) ||
  ts.isGetAccessorDeclaration(n) ||
  ts.isSetAccessorDeclaration(n);

function nameOf(n) {
  if (n.name) return n.name.getText();
  const p = n.parent;
  if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)))
    return p.name.getText();
  return '(anonymous function)';
}

/** The comments right above the statement that holds `n` (a declaration, or the `const` an arrow is assigned to). */
function leadingComments(n, text) {
  let holder = n;
  while (
    holder.parent &&
    !ts.isSourceFile(holder.parent) &&
    !ts.isBlock(holder.parent) &&
    !ts.isClassLike(holder.parent)
  )
    holder = holder.parent;
  const ranges = ts.getLeadingCommentRanges(text, holder.getFullStart()) ?? [];
  return ranges.map((r) => text.slice(r.pos, r.end)).join('\n');
}

/** Each file and function over its limit, as "file:line: what". */
export function oversized(files) {
  const out = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const rel = path.relative(root, file);
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_FILE_LINES) out.push(`${rel}:1: the file is ${lines} lines (at most ${MAX_FILE_LINES})`);
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (n) => {
      if (isFunction(n)) {
        const first = sf.getLineAndCharacterOfPosition(n.getStart()).line;
        const last = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
        const size = last - first + 1;
        if (size > MAX_FUNCTION_LINES && !/^\s*(?:\/\/|\*|\/\*\*?)\s*long:/im.test(leadingComments(n, text)))
          out.push(
            `${rel}:${first + 1}: ${nameOf(n)} is ${size} lines (at most ${MAX_FUNCTION_LINES}, or a "long:" comment saying why)`,
          );
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const found = oversized(walk(path.join(root, 'src')));
  for (const line of found) console.error(`check-size: ${line}`);
  if (found.length) process.exit(1);
  console.log(`check-size: no file over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}`);
}
