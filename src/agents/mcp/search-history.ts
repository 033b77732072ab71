/** `search_history` and `standards_for`: the index read with the session's open model and index. */
import { formatScore } from '../../work-memory/check/classify.js';
import { runChecks } from '../../work-memory/check/run.js';
import { queryLexical, rankQuery } from '../../work-memory/check/search.js';
import type { CorpusType } from '../../work-memory/corpus/types.js';
import type { ProjectSession } from './session.js';
import { pastQuote, quotePast } from '../../work-memory/output/sections.js';

export interface Found {
  method: string;
  results: Array<{
    id: string | null;
    title: string;
    path: string;
    types: CorpusType[];
    score: number | null;
    status: string | null;
    section: string;
    excerpt: string;
    why: string[];
  }>;
  /** Results scoring below the line, not listed. */
  belowLine: number;
  line: number;
  warnings: string[];
}

export async function searchHistory(
  s: ProjectSession,
  query: string,
  o: { type?: CorpusType; limit: number },
): Promise<Found> {
  const [index, loaded] = await Promise.all([
    s.openIndex(),
    s.loadEmbedder().then(
      (e) => ({ e, error: null }),
      (error: unknown) => ({ e: null, error }),
    ),
  ]);
  const { lexical, warnings } = queryLexical(loaded, () => s.openLexical());
  const ranked = await rankQuery(index, loaded.e, lexical, s.config, query, {
    types: o.type ? [o.type] : ['history', 'standard'],
    limit: o.limit,
  });
  const line = s.config.search.minScore;
  const kept = ranked.filter((r) => r.score >= line);
  return {
    method: loaded.e ? s.checkDeps().method : 'lexical',
    results: kept.slice(0, o.limit).map((r) => ({
      id: r.issueId,
      title: r.title,
      path: r.filePath,
      types: [...r.types].sort(),
      score: r.score,
      status: r.status,
      section: r.section,
      excerpt: r.excerpt,
      why: r.components?.why ?? [],
    })),
    belowLine: ranked.length - kept.length,
    line,
    warnings,
  };
}

/** Why a standard the text names is there (it may be unscored: retrieval need not reach it). */
const NAMED = 'named in the text';
const SUCCESSOR = 'supersedes';
const STANDS_OUT = 'under the line, far above the other standards';

/** The standards check's answer for a text: the standards above the standards line, ADRs first (as `issue start` attaches them). */
export async function standardsFor(s: ProjectSession, text: string): Promise<Found> {
  const outcome = await runChecks(text, s.config, s.checkDeps(), { history: false, standards: true });
  if (outcome.standards.error) throw new Error(outcome.standards.error);
  return {
    method: outcome.standards.method,
    results: outcome.standards.items.map((i) => ({
      id: null,
      title: i.title,
      path: i.filePath,
      types: ['standard'],
      score: i.score,
      status: i.status,
      section: i.section,
      excerpt: i.snippet,
      why:
        i.source === 'cited'
          ? [NAMED]
          : i.source === 'successor'
            ? [`${SUCCESSOR} ${i.supersedes ?? ''}`]
            : i.source === 'standout'
              ? [STANDS_OUT]
              : [],
    })),
    belowLine: 0,
    line: s.config.thresholds.standards,
    warnings: outcome.warnings,
  };
}

/** One result a line, and its passage quoted under it: what past work says is data, one line each (check-brief.ts renderCheck). */
export function renderSearch(r: Found, none: string): string {
  const lines = r.results.length ? [] : [none];
  r.results.forEach((x, i) => {
    const why = x.why
      .filter((w) => w === NAMED || w === STANDS_OUT || w.startsWith(SUCCESSOR))
      .map((w) => quotePast(w, 300));
    lines.push(
      `${i + 1}. ${x.id ? `#${quotePast(x.id, 40)} ` : ''}${pastQuote(x.title, 200)} (${quotePast(x.path, 300)}) ${[...why, ...(x.score === null ? [] : [`score ${formatScore(x.score)}`])].join(', ')} [${x.types.join(', ')}]${x.status ? ` ${quotePast(x.status, 40)}` : ''}`,
    );
    if (x.excerpt) lines.push(`   ${x.section ? `${quotePast(x.section, 120)}: ` : ''}excerpt ${pastQuote(x.excerpt)}`);
  });
  for (const w of r.warnings) lines.push(`Warning: ${quotePast(w)}`);
  return lines.join('\n');
}
