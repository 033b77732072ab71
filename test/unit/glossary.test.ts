/**
 * docs/glossary.md names, for each word, the one file that defines it and the name declared
 * there (issue 33): a rename or a move that forgets the glossary fails here.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO } from '../helpers/paths.js';

const doc = readFileSync(path.join(REPO, 'docs', 'glossary.md'), 'utf8');
const rows = doc
  .slice(0, doc.indexOf('## Retired words'))
  .split('\n')
  .filter((l) => l.startsWith('| ') && !l.startsWith('| word ') && !l.startsWith('|---'));
/** Every "`src/…` (`Name`)" pair of a row's last cell. */
const defs = rows.flatMap((row) => {
  const word = row.split('|')[1].trim();
  const cell = row.split('|').at(-2) ?? '';
  return [...cell.matchAll(/`(src\/[^`]+)` \(`([A-Za-z_0-9]+)`\)/g)].map((m) => [word, m[1], m[2]] as const);
});

test('the glossary has its words, and every one names a file', () => {
  expect(rows.length).toBeGreaterThanOrEqual(30);
  const named = new Set(defs.map(([word]) => word));
  expect(rows.map((row) => row.split('|')[1].trim()).filter((word) => !named.has(word))).toEqual([]);
});

test.each(defs)('%s: %s declares %s', (_word, file, name) => {
  expect(existsSync(path.join(REPO, file))).toBe(true);
  const text = readFileSync(path.join(REPO, file), 'utf8');
  expect(text).toMatch(new RegExp(`export (?:async )?(?:function|const|class|interface|type) ${name}\\b`));
});

/** The words of a row's first cell, each as it may be written in code: "duplicate line" is also duplicateLine, duplicate_line. */
const spellings = (word: string) =>
  word
    .replace(/`/g, '')
    .split(/,\s*|\s*\/\s*/)
    .map((w) => w.trim().toLowerCase())
    .filter(Boolean)
    .map((w) => new RegExp(w.split(/[\s-]+/).join('[\\s_-]?'), 'i'));

test.each(defs)('%s: %s speaks of it (a row that points at the wrong file fails)', (word, file) => {
  const text = readFileSync(path.join(REPO, file), 'utf8');
  expect({ word, file, spoken: spellings(word).some((re) => re.test(text)) }).toEqual({ word, file, spoken: true });
});

test('one word for one thing: the index, the attempt memory and the team store are never just "store" in a name', () => {
  // The three were all called "store" once (issue 33); a file or exported name saying Store means the team store.
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const at = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(at);
      else if (entry.name.endsWith('.ts')) {
        const rel = path.relative(REPO, at);
        if (/store/i.test(entry.name) && !/team-store/.test(rel) && !/commands\/store\//.test(rel)) offenders.push(rel);
        for (const m of readFileSync(at, 'utf8').matchAll(
          /export (?:class|interface|type|function|const) (\w*Store\w*)/g,
        ))
          if (!/TeamStore|Stored/.test(m[1])) offenders.push(`${rel}: ${m[1]}`);
      }
    }
  };
  walk(path.join(REPO, 'src'));
  expect(offenders).toEqual([]);
});

test("a retired word stays retired: not in src/, scripts/, the README or docs/ outside the places the glossary's last table lists", () => {
  const retired = doc
    .slice(doc.indexOf('## Retired words'))
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| retired word') && !l.startsWith('|---'))
    .map((row) => {
      const cells = row.split('|').map((c) => c.trim());
      // In any case and inside a name (librarianOrder, duplicateCheck), across a line break or a hyphen, plural or not.
      const pattern = new RegExp(cells[1].split(' ').join('[\\s*_-]*') + 's?', 'i');
      return {
        word: cells[1],
        pattern,
        allowed: new Set([...cells[3].matchAll(/`((?:src|docs|scripts)\/[^`]+)`/g)].map((m) => m[1])),
      };
    });
  expect(retired.map((r) => r.word)).toEqual(
    expect.arrayContaining([
      'hybrid',
      'Historian',
      'Librarian',
      'duplicate check',
      'standout score',
      'method: standout',
    ]),
  );
  const files: string[] = [
    'README.md',
    ...readdirSync(path.join(REPO, 'docs'))
      .filter((f) => f.endsWith('.md') && f !== 'glossary.md')
      .map((f) => `docs/${f}`),
  ];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(REPO, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (/\.(ts|mjs)$/.test(entry.name)) files.push(rel);
    }
  };
  walk('src');
  walk('scripts');
  const found: string[] = [];
  for (const file of files) {
    const raw = readFileSync(path.join(REPO, file), 'utf8');
    // A markdown link's target names a file (ADR-0005's is `0005-hybrid-standout-scoring.md`), not the thing.
    const text = file.endsWith('.md') ? raw.replace(/\]\([^)\s]*\)/g, '](…)') : raw;
    for (const { word, pattern, allowed } of retired) {
      if (allowed.has(file)) continue;
      const at = text.search(pattern);
      if (at >= 0) found.push(`${file}: "${word}" (line ${text.slice(0, at).split('\n').length})`);
    }
  }
  expect(found).toEqual([]);
});
