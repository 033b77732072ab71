import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './paths.js';

/** The example of `name` (```json agentos-<name>) in docs/json.md. */
export function documentedExample(name: string): Record<string, unknown> {
  const doc = readFileSync(path.join(REPO, 'docs', 'json.md'), 'utf8');
  const m = new RegExp('```json agentos-' + name + '\\n([\\s\\S]*?)\\n```').exec(doc);
  if (!m) throw new Error(`docs/json.md has no example for ${name}`);
  return JSON.parse(m[1]) as Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Key paths of a JSON value, one level into objects and into the first element
 * of arrays of objects: "matches[].score", "brief.sha256". Nested paths are
 * compared only where both sides have an element to look at.
 */
export function keyPaths(v: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [k, x] of Object.entries(v)) {
    out.push(k);
    if (isObject(x) && k !== 'timings') for (const s of Object.keys(x)) out.push(`${k}.${s}`);
    if (Array.isArray(x) && isObject(x[0])) for (const s of Object.keys(x[0])) out.push(`${k}[].${s}`);
  }
  return out.sort();
}

/** Keys of `actual` and of the documented example, restricted to what both can show. */
export function compareWithDoc(
  name: string,
  actual: Record<string, unknown>,
): { documented: string[]; actual: string[] } {
  const doc = keyPaths(documentedExample(name));
  const got = keyPaths(actual);
  const comparable = (p: string, other: string[]) =>
    !p.includes('[]') || other.some((o) => o.startsWith(p.split('[]')[0] + '[]'));
  return { documented: doc.filter((p) => comparable(p, got)), actual: got.filter((p) => comparable(p, doc)) };
}
