/**
 * docs/glossary.md names, for each word, the one file that defines it and the name declared
 * there (issue 33): a rename or a move that forgets the glossary fails here.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO } from '../helpers/paths.js';

const doc = readFileSync(path.join(REPO, 'docs', 'glossary.md'), 'utf8');
const rows = doc.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| word ') && !l.startsWith('|---'));
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
        for (const m of readFileSync(at, 'utf8').matchAll(/export (?:class|interface|type|function|const) (\w*Store\w*)/g)) if (!/TeamStore|Stored/.test(m[1])) offenders.push(`${rel}: ${m[1]}`);
      }
    }
  };
  walk(path.join(REPO, 'src'));
  expect(offenders).toEqual([]);
});
