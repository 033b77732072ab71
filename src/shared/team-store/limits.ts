/**
 * The most one document in the team store may hold: far above what agentos writes (a 1 MB file
 * is about a thousand chunks; an excerpt is EXCERPT_CHARS, a section a heading), far below what
 * would hold up a check. A reader skips a larger document before reading any of it
 * (work-memory/org/fetch.ts), and the server counts it for nothing in the statistics the score
 * reads (schema.ts, version 7): what is never read weighs nothing either.
 */
export const DOCUMENT_LIMITS = {
  chunks: 10_000,
  terms: 200_000,
  path: 4096,
  section: 2000,
  excerpt: 4000,
  metadataBytes: 1_000_000,
} as const;
