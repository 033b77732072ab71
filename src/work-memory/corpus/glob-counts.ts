import type { Config } from '../../shared/config/schema.js';
import { scanCorpus } from './scan.js';
import type { CorpusType } from './types.js';

export interface GlobCount {
  type: CorpusType;
  glob: string;
  /** Files the glob selects (after `exclude`), stat only. */
  files: number;
}

/**
 * How many files each corpus glob selects, so a user whose index came out
 * empty (or without history) is told which globs matched nothing.
 */
export async function countGlobMatches(
  root: string,
  corpus: Config['corpus'],
  types: CorpusType[] = ['standard', 'history'],
): Promise<GlobCount[]> {
  const out: GlobCount[] = [];
  for (const type of types) {
    for (const glob of type === 'standard' ? corpus.standards : corpus.history) {
      const scan = await scanCorpus(root, { standards: [glob], history: [], exclude: corpus.exclude }, false);
      out.push({ type, glob, files: scan.files.length });
    }
  }
  return out;
}

/** A path as a glob that matches only it: the characters picomatch reads as syntax (`[`, `*`, `@(`, …) escaped; the scan unescapes the folder it starts from. */
export function literalGlob(p: string): string {
  return p.replace(/[[\]{}()*?!+@\\]/g, (ch) => `\\${ch}`);
}

/** "a, b and 3 more" for a one-line message. */
export function listGlobs(globs: string[], max = 4): string {
  if (globs.length <= max) return globs.join(', ');
  return `${globs.slice(0, max).join(', ')} and ${globs.length - max} more`;
}
