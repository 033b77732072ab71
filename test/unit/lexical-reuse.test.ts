/** An update's lexical index (issue 46): unchanged documents keep their counts, new ones are counted, the boilerplate stays until the corpus drifts. */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import {
  buildLexical,
  keepsTemplates,
  readLexicalReuse,
  templatesBuffer,
  templatesHold,
} from '../../src/work-memory/lexical/file.js';
import type { Manifest } from '../../src/work-memory/index/types.js';

/** The part of a generation's manifest a lexical read checks: the file's size and hash. */
const manifestOf = (buf: Buffer, sha256 = createHash('sha256').update(buf).digest('hex')) =>
  ({ integrity: { extra: { 'lexical.json': { bytes: buf.length, sha256 } } } }) as unknown as Manifest;

const TEMPLATE = '## Checklist\n\n- [ ] I have read the contributing guide and searched for duplicates before filing\n';
const docs = Array.from({ length: 40 }, (_, i) => ({
  path: `docs/${String(i).padStart(2, '0')}.md`,
  text: `# Issue ${i}\n\nThe widget number ${i} breaks when resized to ${i * 7} pixels.\n\n${TEMPLATE}`,
  hash: `h${i}`,
}));

async function saved(d: typeof docs) {
  const built = buildLexical(d);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'agentos-lex-'));
  await writeFile(path.join(dir, 'lexical.json'), built.buffer);
  return { dir, manifest: manifestOf(built.buffer), buffer: built.buffer };
}

test('one new document: the others keep their counts without their texts, the boilerplate is the one found before, the result is a full build', async () => {
  const { dir, manifest } = await saved(docs);
  const reuse = readLexicalReuse(dir, manifest, new Map(docs.map((d) => [d.path, d.hash])))!;
  expect(reuse.templates.hashes.size).toBeGreaterThan(0);
  const added = {
    path: 'docs/99.md',
    text: `# Issue 99\n\nThe gadget flickers on resize.\n\n${TEMPLATE}`,
    hash: 'h99',
  };
  const next = [...docs, added];
  expect(keepsTemplates(reuse, next)).toBe(true);
  // No text for the documents whose counts are reused: a read of one would throw.
  const incremental = buildLexical([...docs.map((d) => ({ ...d, text: null })), added], reuse);
  const full = buildLexical(next);
  // The same counts and boilerplate as a full build (only the count it was found at differs: 40, not 41).
  const json = (b: Buffer) =>
    JSON.parse(b.toString('utf8')) as {
      terms: string[];
      docs: unknown[];
      templates: { hashes: number[]; docs: number };
    };
  expect(json(incremental.buffer).terms).toEqual(json(full.buffer).terms);
  expect(json(incremental.buffer).docs).toEqual(json(full.buffer).docs);
  expect(json(incremental.buffer).templates.hashes).toEqual(json(full.buffer).templates.hashes);
  expect(json(incremental.buffer).templates.docs).toBe(40);
  // A changed document is counted again from its text.
  const changed = next.map((d, i) =>
    i === 3
      ? { ...d, text: d.text.replace('widget', 'sprocket'), hash: 'h3b' }
      : { ...d, text: i === 3 ? d.text : null },
  );
  const withChange = buildLexical(
    changed.map((d) => (d.path === added.path ? added : d)),
    reuse,
  );
  expect(withChange.data.bm25.search(['sprocket'], 5).map((h) => h.path)).toEqual(['docs/03.md']);
});

test('a corpus that drifted past the bound finds its boilerplate again, and a hash that does not match is not reused', async () => {
  const { dir, manifest, buffer } = await saved(docs);
  const reuse = readLexicalReuse(dir, manifest, new Map(docs.map((d) => [d.path, d.hash])))!;
  const many = [
    ...docs,
    ...Array.from({ length: 20 }, (_, i) => ({
      path: `docs/new-${i}.md`,
      text: `# New ${i}\n\nSomething else entirely ${i}.\n`,
      hash: `n${i}`,
    })),
  ];
  expect(keepsTemplates(reuse, many)).toBe(false);
  expect(readLexicalReuse(dir, manifestOf(buffer, 'f'.repeat(64)), new Map())).toBeNull();
});

test('drift adds up over updates: many small ones find the boilerplate again as one large one would', async () => {
  let current = docs.map((d) => ({ ...d }));
  let built = buildLexical(current);
  let kept = 0;
  for (let round = 0; round < 6; round++) {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'agentos-lex-'));
    await writeFile(path.join(dir, 'lexical.json'), built.buffer);
    const reuse = readLexicalReuse(dir, manifestOf(built.buffer), new Map(current.map((d) => [d.path, d.hash])))!;
    // Each update adds 3 documents: under the bound of 8 alone, past it after three updates.
    current = [
      ...current,
      ...Array.from({ length: 3 }, (_, i) => ({
        path: `docs/r${round}-${i}.md`,
        text: `# R ${round} ${i}\n\nMore text ${round} ${i}.\n`,
        hash: `r${round}${i}`,
      })),
    ];
    if (keepsTemplates(reuse, current)) kept++;
    built = buildLexical(current, keepsTemplates(reuse, current) ? reuse : null);
  }
  expect(kept).toBeLessThan(6);
  expect(kept).toBeGreaterThan(0);
});

test('an update that appends keeps the boilerplate by the same bound as keepsTemplates (templates.json carries the drift)', () => {
  const built = buildLexical(docs);
  // 40 documents: the bound is max(8, 5% of 40) = 8 documents changed since the boilerplate was found.
  expect(templatesHold(built.data.templates, 8)).toBe(true);
  expect(templatesHold(built.data.templates, 9)).toBe(false);
  const saved = JSON.parse(templatesBuffer(built.data.templates, 3).toString('utf8')) as {
    changed: number;
    hashes: number[];
  };
  expect(saved.changed).toBe(3);
  expect(saved.hashes).toEqual([...built.data.templates.hashes]);
});
