import { chunkMarkdown } from '../chunks/chunk.js';
import type { Embedder } from '../embeddings/embedder.js';

/** Chunks indexed per document (about 250 KB of prose; docs/commands.md "Limits"). */
export const MAX_DOC_CHUNKS = 256;

/** Chunks of one document, at most MAX_DOC_CHUNKS (a warning names a document cut short). */
export function chunkDoc(e: Embedder, name: string, body: string, title: string, warnings: string[]) {
  const chunks = chunkMarkdown(body, title, {
    maxTokens: e.maxTokens - 2,
    minTokens: 24,
    countTokens: (t) => e.countTokens(t),
  });
  if (chunks.length > MAX_DOC_CHUNKS) {
    // Bounded work per file (10,000 headings made 2,000 chunks): the opening part is indexed, and the user told.
    warnings.push(`${name}: ${chunks.length} chunks; indexed the first ${MAX_DOC_CHUNKS}`);
    chunks.length = MAX_DOC_CHUNKS;
  }
  return chunks;
}
