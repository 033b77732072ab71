import { citationsIn, type Citations } from '../corpus/citations.js';
import { extractMetadata } from '../corpus/metadata.js';
import { briefRelations, type BriefRelations } from '../corpus/relations.js';
import { briefForCheck } from './brief-limit.js';

/**
 * A brief read once (issue 49): its title, the body that is embedded, the issue it states, the work it names as
 * other work and the standards it cites, each read by one parser over one split of the frontmatter. Every step of a
 * check (embedding, scoring, the standards check) reads this value; none goes back to the text for its part.
 */
export interface ParsedBrief {
  /** The text compared: whole lines, at most MAX_CHECK_CHARS (brief-limit.ts), unless parsed `whole`. */
  text: string;
  /** What was left out when the brief was cut, said once as a warning; null when nothing was. */
  limitNote: string | null;
  /** As the index reads a title (frontmatter `title`, the H1, else the file name): the title feature compares it. */
  title: string;
  /** Without the frontmatter or a tool's wrapper header: what is chunked and embedded. */
  body: string;
  /** The issue the caller says the brief is (`agentos ci`: the issue just opened), when it knows. */
  ownIssue?: string;
  /** The issue it is (the caller's, else the one it states) and the work it names as other work. */
  relations: BriefRelations;
  /** The ADRs, standards and files it names, read from the whole brief (one cited at its end is still named), on first use: a history-only check or a search never reads them. */
  readonly citations: Citations;
}

export function parseBrief(text: string, o: { ownIssue?: string; whole?: boolean } = {}): ParsedBrief {
  const limited = o.whole ? { text, note: null } : briefForCheck(text);
  const { metadata, body } = extractMetadata('brief.md', limited.text, ['history'], '');
  let cited: Citations | undefined;
  return {
    text: limited.text,
    limitNote: limited.note,
    title: metadata.title,
    body,
    ...(o.ownIssue !== undefined ? { ownIssue: o.ownIssue } : {}),
    relations: briefRelations(limited.text, o.ownIssue ?? metadata.ownIssue ?? null, o.ownIssue !== undefined),
    get citations() {
      return (cited ??= citationsIn(text));
    },
  };
}
