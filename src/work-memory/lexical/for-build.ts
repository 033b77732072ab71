import path from 'node:path';
import { readTextFile } from '../corpus/read.js';
import type { Manifest, StoredDoc } from '../index/types.js';
import {
  buildLexical,
  keepsTemplates,
  LEXICAL_FILE,
  readLexicalReuse,
  templatesBuffer,
  TEMPLATES_FILE,
} from './file.js';

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
  previous: { dir: string; manifest: Manifest; docs: StoredDoc[] } | null = null,
): Promise<Record<string, Buffer>> {
  const reuse = previous
    ? readLexicalReuse(previous.dir, previous.manifest, new Map(previous.docs.map((d) => [d.filePath, d.contentHash])))
    : null;
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
  const built = buildLexical(texts, keep ? reuse : null);
  return { [LEXICAL_FILE]: built.buffer, [TEMPLATES_FILE]: templatesBuffer(built.data.templates, built.changed) };
}
