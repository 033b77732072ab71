import path from 'node:path';
import { readTextFile } from '../corpus/read.js';
import type { StoredDoc } from '../index/types.js';
import { buildLexical, LEXICAL_FILE } from './file.js';

/**
 * The lexical files of a new index generation. Recomputed from every
 * document's text at each write (reading text is cheap next to embedding it),
 * so the term statistics and the boilerplate found always match the corpus.
 * `known` holds texts the build already read.
 */
export async function lexicalFiles(root: string, docs: StoredDoc[], known: Map<string, string>, maxBytes: number): Promise<Record<string, Buffer>> {
  const texts: Array<{ path: string; text: string }> = [];
  for (const d of docs) {
    let text = known.get(d.filePath);
    if (text === undefined) {
      const read = await readTextFile(path.join(root, d.filePath), maxBytes);
      text = read.ok ? read.text : d.title;
    }
    texts.push({ path: d.filePath, text });
  }
  return { [LEXICAL_FILE]: buildLexical(texts).buffer };
}
