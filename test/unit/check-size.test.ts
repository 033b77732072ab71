/** Sizes a reader can hold (issue 49, scripts/check-size.mjs): src/ passes, and the check sees what it is for. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO } from '../helpers/paths.js';

type Sizes = { oversized: (files: string[]) => string[]; MAX_FILE_LINES: number; MAX_FUNCTION_LINES: number };
const sizes = async () => (await import(path.join(REPO, 'scripts', 'check-size.mjs'))) as Sizes;

test('no file in src/ over 400 lines, no function over 80 without a "long:" reason', async () => {
  const { oversized } = await sizes();
  const { walk } = (await import(path.join(REPO, 'scripts', 'check-layers.mjs'))) as {
    walk: (dir: string) => string[];
  };
  const files = walk(path.join(REPO, 'src'));
  expect(files.length).toBeGreaterThan(200); // it read src/ (a checker that saw nothing would pass too)
  expect(oversized(files)).toEqual([]);
});

test('the check sees a long function, an arrow assigned to a const, a long file, and takes a stated reason', async () => {
  const { oversized, MAX_FILE_LINES, MAX_FUNCTION_LINES } = await sizes();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agentos-sizes-'));
  try {
    const body = Array.from({ length: MAX_FUNCTION_LINES }, () => '  x += 1;').join('\n');
    const fn = (head: string) => `${head} {\n  let x = 0;\n${body}\n  return x;\n}`;
    const a = path.join(dir, 'a.ts');
    writeFileSync(
      a,
      [
        fn('export function declared(): number'),
        fn('export const assigned = (): number =>'),
        `// long: one flow read top to bottom\n${fn('export function explained(): number')}`,
      ].join('\n\n') + '\n',
    );
    const b = path.join(dir, 'b.ts');
    writeFileSync(
      b,
      Array.from({ length: MAX_FILE_LINES + 1 }, (_, i) => `export const v${i} = ${i};`).join('\n') + '\n',
    );
    const found = oversized([a, b]).map((l) => l.replace(/^.*?([ab]\.ts)/, '$1'));
    expect(found).toEqual([
      `a.ts:1: declared is ${MAX_FUNCTION_LINES + 4} lines (at most ${MAX_FUNCTION_LINES}, or a "long:" comment saying why)`,
      `a.ts:${MAX_FUNCTION_LINES + 6}: assigned is ${MAX_FUNCTION_LINES + 4} lines (at most ${MAX_FUNCTION_LINES}, or a "long:" comment saying why)`,
      `b.ts:1: the file is ${MAX_FILE_LINES + 1} lines (at most ${MAX_FILE_LINES})`,
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
