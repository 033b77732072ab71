/** docs/mcp.md documents every tool the server lists, and each of its arguments (no silent drift). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TOOLS } from '../../src/agents/mcp/tools.js';
import { REPO } from '../helpers/paths.js';
import { DEFAULT_CONFIG } from '../../src/shared/config/schema.js';
import { AUTO_DTYPES } from '../../src/work-memory/embeddings/model-files.js';

const doc = readFileSync(path.join(REPO, 'docs', 'mcp.md'), 'utf8');

test.each(TOOLS.map((t) => [t.name, t] as const))('%s has its section and names every argument', (name, tool) => {
  const start = doc.indexOf(`### \`${name}\``);
  expect(start).toBeGreaterThan(0);
  const next = doc.indexOf('\n### ', start + 1);
  const section = doc.slice(start, next < 0 ? undefined : next);
  for (const arg of Object.keys(tool.input)) expect(section).toContain(`"${arg}"`);
});

test('the documented tools are exactly the served ones', () => {
  const toolSection = doc.slice(doc.indexOf('## Tools'), doc.indexOf('## How it is tested'));
  const documented = [...toolSection.matchAll(/^### `([a-z_]+)`/gm)].map((m) => m[1]);
  expect(documented.sort()).toEqual(TOOLS.map((t) => t.name).sort());
});

test('the method strings in docs/mcp.md and docs/json.md are the ones the default model reports (`embedding:<id>@<dtype>+hnsw`)', () => {
  const { model } = DEFAULT_CONFIG;
  // dtype auto answers with the first file provisioning builds (int8).
  const dtype = model.dtype === 'auto' ? AUTO_DTYPES[0] : model.dtype;
  const json = readFileSync(path.join(REPO, 'docs', 'json.md'), 'utf8');
  const methods = [...(doc + json).matchAll(/"method": "(embedding:[^"]+)"/g)].map((m) => m[1]);
  expect(methods.length).toBeGreaterThan(0);
  for (const m of methods) expect(m).toMatch(new RegExp(`^embedding:${model.id.replace(/[/.-]/g, '\\$&')}@${dtype}\\+hnsw`));
});
