/**
 * The matches as a person reads them: best first, one per past piece of work (an issue and
 * its design are one match), each with the passage of the brief that matched.
 */
import { compareText } from '../../shared/text/compare.js';
import { workKey, type HistoryMatch } from './match.js';

export function byScore(a: HistoryMatch, b: HistoryMatch): number {
  return b.score - a.score || compareText(a.filePath, b.filePath);
}

export function withExcerpt(m: HistoryMatch, s: { briefChunks?: string[] }): HistoryMatch {
  const text = m.briefChunk !== undefined ? s.briefChunks?.[m.briefChunk] : undefined;
  return text ? { ...m, briefExcerpt: excerpt(text) } : m;
}

function excerpt(text: string): string {
  const plain =
    text
      .replace(/^#{1,6}\s+.*$/gm, '')
      .replace(/[*`>]/g, '')
      .replace(/\s+/g, ' ')
      .trim() || text.trim();
  return plain.length > 280 ? `${plain.slice(0, 279)}…` : plain;
}

/**
 * One match per past piece of work: an issue and its design share an issue
 * id, so they are one match (the best-scoring document leads; `paths` lists
 * all). Input must be sorted best first.
 */
export function groupByWork(sorted: HistoryMatch[]): HistoryMatch[] {
  const out: HistoryMatch[] = [];
  const byIssue = new Map<string, HistoryMatch>();
  for (const m of sorted) {
    const work = workKey(m);
    const lead = work !== null ? byIssue.get(work) : undefined;
    if (lead) {
      lead.paths!.push(m.filePath);
      continue;
    }
    const copy = { ...m, paths: [m.filePath] };
    if (work !== null) byIssue.set(work, copy);
    out.push(copy);
  }
  return out;
}
