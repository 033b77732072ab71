/** The layout (docs/adrs/0016-layout.md): the layer check passes, and the README names every folder of src/. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO } from '../helpers/paths.js';

test('every import points down its layers, and there is no import cycle', async () => {
  const { checkLayers } = (await import(path.join(REPO, 'scripts', 'check-layers.mjs'))) as { checkLayers: () => string[] };
  expect(checkLayers()).toEqual([]);
});

test("the README's layout section names every folder of src/ (two levels)", () => {
  const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const layout = readme.slice(readme.indexOf('### Layout'));
  const src = path.join(REPO, 'src');
  for (const top of readdirSync(src).filter((d) => statSync(path.join(src, d)).isDirectory())) {
    expect(layout).toContain(`src/${top}/`);
    for (const sub of readdirSync(path.join(src, top)).filter((d) => statSync(path.join(src, top, d)).isDirectory())) expect(layout).toContain(`${sub}/`);
  }
});
