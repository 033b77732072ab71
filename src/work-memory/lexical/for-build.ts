import path from 'node:path';
import { readTextFile } from '../corpus/read.js';
import type { StoredDoc } from '../index/types.js';
import { buildLexical, keepsTemplates, LEXICAL_FILE, readLexicalReuse } from './file.js';

/**
 * The lexical files of a new index generation. A first build counts every document's text; an
 * update reuses the counts of documents whose content is unchanged and the boilerplate found before
 * (file.ts buildLexical), reading only the texts it needs. `known` holds texts the build already read.
 */
export async function lexicalFiles(
  root: string,
  docs: StoredDoc[],
  known: Map<string, string>,
  maxBytes: number,
  previous: { file: string; sha256: string; docs: StoredDoc[] } | null = null,
): Promise<Record<string, Buffer>> {
  const reuse = previous ? readLexicalReuse(previous.file, previous.sha256, new Map(previous.docs.map((d) => [d.filePath, d.contentHash]))) : null;
  const keep = keepsTemplates(
    reuse,
    docs.map((d) => ({ path: d.filePath, hash: d.contentHash })),
  );
  const texts: Array<{ path: string; text: string | null; hash: string }> = [];
  for (const d of docs) {
    // Only the texts whose counts cannot be reused are read (all of them when the boilerplate is found again).
    let text = known.get(d.filePath) ?? null;
    if (text === null && !(keep && reuse!.docs.get(d.filePath)?.hash === d.contentHash)) {
      const r = await readTextFile(path.join(root, d.filePath), maxBytes);
      text = r.ok ? r.text : d.title;
    }
    texts.push({ path: d.filePath, text, hash: d.contentHash });
  }
  return { [LEXICAL_FILE]: buildLexical(texts, keep ? reuse : null).buffer };
}
