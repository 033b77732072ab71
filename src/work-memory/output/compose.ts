import type { HistoryMatch } from '../check/history.js';
import type { StandardContext } from '../check/standards.js';
import type { MatchNotes } from './notes.js';
import {
  linkedPastWorkSection,
  relatedPastWorkSection,
  relevantStandardsSection,
  removeSection,
  upsertSection,
} from './sections.js';

/**
 * The brief downstream steps should use: the user's text plus agentos' own
 * marked sections. Re-running on an enriched brief replaces those sections
 * (never a second copy) and removes ones that no longer apply.
 */
export function composeBrief(
  text: string,
  parts: { linked: HistoryMatch | null; related: HistoryMatch[]; standards: StandardContext[]; notes?: MatchNotes },
): string {
  let out = text;
  out = parts.linked
    ? upsertSection(out, 'linked-past-work', linkedPastWorkSection(parts.linked, parts.notes))
    : removeSection(out, 'linked-past-work');
  out = parts.related.length
    ? upsertSection(out, 'related-past-work', relatedPastWorkSection(parts.related, parts.notes))
    : removeSection(out, 'related-past-work');
  out = parts.standards.length
    ? upsertSection(out, 'relevant-standards', relevantStandardsSection(parts.standards))
    : removeSection(out, 'relevant-standards');
  return out;
}
