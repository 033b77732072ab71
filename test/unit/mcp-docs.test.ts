/** docs/mcp.md documents every tool the server lists, and each of its arguments (no silent drift). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TOOLS } from '../../src/agents/mcp/tools.js';
import { z } from 'zod';
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

/** A tool's documented `Input: {...}`, read as { name: { optional, type } }. */
function documentedInput(name: string): Map<string, { optional: boolean; type: string }> {
  const start = doc.indexOf(`### \`${name}\``);
  const section = doc.slice(start, doc.indexOf('\n### ', start + 1) >>> 0 || undefined);
  const line = /^Input: `\{(.*?)\}`/m.exec(section);
  expect(line).not.toBeNull();
  const args = new Map<string, { optional: boolean; type: string }>();
  // "name"?: type, where a type may hold quoted alternatives ("a" | "b") and a range (1–50 (default 5)).
  for (const m of line![1].matchAll(/"(\w+)"(\??): ((?:"[^"]*"|[^,"])+)/g))
    args.set(m[1], { optional: m[2] === '?', type: m[3].trim() });
  return args;
}

/** A value of the documented type the schema must take (the types docs/mcp.md uses). */
function sample(type: string): unknown {
  const alt = /^"([^"]*)"/.exec(type);
  if (alt) return alt[1];
  if (type.startsWith('string[]')) return ['a'];
  if (type.startsWith('string')) return 'x';
  if (type.startsWith('int')) return 3;
  const range = /^(\d+)–(\d+)/.exec(type);
  if (range) return Number(range[1]);
  throw new Error(`docs/mcp.md: a type the test does not read: ${type}`);
}

describe.each(TOOLS.map((t) => [t.name, t] as const))('%s: the documented input is the schema', (name, tool) => {
  const schema = z.object(tool.input).strict();
  const args = documentedInput(name);

  test('the same arguments, each optional exactly when the schema says so', () => {
    expect([...args.keys()].sort()).toEqual(Object.keys(tool.input).sort());
    for (const [arg, d] of args)
      expect({ arg, optional: (tool.input[arg] as z.ZodType).isOptional() }).toEqual({ arg, optional: d.optional });
  });

  test('a call built from the documentation is taken; one without a required argument, or with an unknown one, is not', () => {
    const call = Object.fromEntries([...args].map(([arg, d]) => [arg, sample(d.type)]));
    expect(schema.safeParse(call).success).toBe(true);
    for (const [arg, d] of args) {
      if (d.optional) continue;
      const { [arg]: _gone, ...without } = call;
      const r = schema.safeParse(without);
      expect(r.success).toBe(false);
      expect(JSON.stringify(r.error?.issues)).toContain(arg);
    }
    expect(schema.safeParse({ ...call, notAnArgument: 1 }).success).toBe(false);
  });

  test('documented choices and ranges are the ones the schema takes', () => {
    for (const [arg, d] of args) {
      const one = (v: unknown) => z.object({ [arg]: tool.input[arg] }).safeParse({ [arg]: v }).success;
      const choices = [...d.type.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
      if (choices.length > 1 && !/YYYY/.test(d.type)) {
        for (const c of choices) expect({ arg, c, taken: one(c) }).toEqual({ arg, c, taken: true });
        expect(one('not-a-choice')).toBe(false);
      }
      const range = /^(\d+)–(\d+)/.exec(d.type);
      if (range) {
        const [lo, hi] = [Number(range[1]), Number(range[2])];
        expect([one(lo), one(hi), one(lo - 1), one(hi + 1)]).toEqual([true, true, false, false]);
      }
    }
  });
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
  for (const m of methods)
    expect(m).toMatch(new RegExp(`^embedding:${model.id.replace(/[/.-]/g, '\\$&')}@${dtype}\\+hnsw`));
});
