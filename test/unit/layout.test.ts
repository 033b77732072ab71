/** The layout (docs/adrs/0016-layout.md): the layer check passes, and docs/development.md names every folder of src/. */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO } from '../helpers/paths.js';
import { makeIO } from '../helpers/fakes.js';

type Checker = { checkLayers: (dir?: string) => string[]; importCount: (dir?: string) => number };
const checker = async () => (await import(path.join(REPO, 'scripts', 'check-layers.mjs'))) as Checker;

test('every import points down its layers, and there is no import cycle', async () => {
  const { checkLayers, importCount } = await checker();
  expect(checkLayers()).toEqual([]);
  // It read the imports it judged: src/ has hundreds (a checker that saw none would pass too).
  expect(importCount()).toBeGreaterThan(500);
});

test("the checker sees an import up a layer, across the two memories, into another command's folder, a cycle, and a folder outside the layers", async () => {
  const { checkLayers } = await checker();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agentos-layers-'));
  try {
    const file = (rel: string, text: string) => {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), text);
    };
    file('shared/a.ts', "import { cli } from '../cli/c.js';\nexport const a = 1;\n");
    file('cli/c.ts', 'export const cli = 1;\n');
    file('work-memory/w.ts', "import type { T } from '../attempt-memory/t.js';\nexport type W = T;\n");
    file('attempt-memory/t.ts', 'export type T = 1;\n');
    file('knowledge/x.ts', "import { y } from './y.js';\nexport const x = y;\n");
    file('knowledge/y.ts', "export { x as y } from './x.js';\n");
    file('elsewhere/z.ts', 'export const z = 1;\n');
    file('cli/commands/ci/index.ts', "import { run } from '../issue-start/index.js';\nexport const ci = run;\n");
    file(
      'cli/commands/issue-start/index.ts',
      "import { shared } from '../../shared-part.js';\nexport const run = shared;\n",
    );
    file('cli/shared-part.ts', 'export const shared = 1;\n');
    const problems = checkLayers(dir);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/shared\/a\.ts: imports .*cli\/c\.ts \(shared is below cli\)/),
        expect.stringMatching(
          /work-memory\/w\.ts: imports .*attempt-memory\/t\.ts \(work-memory and attempt-memory never import each other/,
        ),
        expect.stringMatching(/^import cycle: .*knowledge\/x\.ts -> .*knowledge\/y\.ts$/),
        expect.stringMatching(/elsewhere\/z\.ts: outside the layers/),
        expect.stringMatching(
          /cli\/commands\/ci\/index\.ts: imports .*cli\/commands\/issue-start\/index\.ts \(one command never imports another/,
        ),
      ]),
    );
    // Importing what src/cli/ shares is allowed.
    expect(problems).toHaveLength(5);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("docs/development.md's layout section names every folder of src/ (two levels)", () => {
  const doc = readFileSync(path.join(REPO, 'docs', 'development.md'), 'utf8');
  expect(doc).toContain('### Layout');
  const layout = doc.slice(doc.indexOf('### Layout'));
  const src = path.join(REPO, 'src');
  for (const top of readdirSync(src).filter((d) => statSync(path.join(src, d)).isDirectory())) {
    expect(layout).toContain(`src/${top}/`);
    for (const sub of readdirSync(path.join(src, top)).filter((d) => statSync(path.join(src, top, d)).isDirectory()))
      expect(layout).toContain(`${sub}/`);
  }
});

test('docs/commands.md names every command and flag: its usage lines are the command definitions (issue 49)', async () => {
  const { buildProgram } = await import('../../src/cli/cli.js');
  const { usageLines, USAGE_START, USAGE_END } = await import('../../src/cli/synopsis.js');
  const doc = readFileSync(path.join(REPO, 'docs', 'commands.md'), 'utf8');
  const block = doc.slice(doc.indexOf(USAGE_START), doc.indexOf(USAGE_END) + USAGE_END.length);
  const generated = usageLines(buildProgram(makeIO(REPO).io, () => undefined));
  // A changed command: `npm run build && node scripts/readme-synopsis.mjs --write`.
  expect(block).toBe(generated);
  for (const must of [
    'agentos store sync',
    'agentos mcp',
    'agentos hooks install',
    'agentos ci github',
    'agentos worked-on',
    '[--scope <scope>]',
    '[--format <format>]',
  ])
    expect(block).toContain(must);
  expect(
    generated
      .split('\n')
      .filter((l) => !l.startsWith('<!--'))
      .every((l) => l.length <= 80),
  ).toBe(true);
});

test('the README is a front page: its synopsis is the command definitions, and it stays under 200 lines', async () => {
  const { buildProgram } = await import('../../src/cli/cli.js');
  const { synopsis, SYNOPSIS_START, SYNOPSIS_END } = await import('../../src/cli/synopsis.js');
  const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const block = readme.slice(readme.indexOf(SYNOPSIS_START), readme.indexOf(SYNOPSIS_END) + SYNOPSIS_END.length);
  // A changed command: `npm run build && node scripts/readme-synopsis.mjs --write`.
  expect(block).toBe(synopsis(buildProgram(makeIO(REPO).io, () => undefined)));
  expect(readme.split('\n').length).toBeLessThan(200);
  // The two commands of the quick start.
  expect(readme).toMatch(/npm install && npm run demo/);
  expect(readme).toMatch(/^npm test\b/m);
});
