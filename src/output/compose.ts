import type { HistoryMatch } from '../check/history.js';
import type { StandardContext } from '../check/standards.js';
import type { TriedLookup } from '../knowledge/tried-during.js';
import { linkedPastWorkSection, relatedPastWorkSection, relevantStandardsSection, removeSection, upsertSection } from './sections.js';

/**
 * The brief downstream steps should use: the user's text plus agentos' own
 * marked sections. Re-running on an enriched brief replaces those sections
 * (never a second copy) and removes ones that no longer apply.
 */
export function composeBrief(
  text: string,
  parts: { linked: HistoryMatch | null; related: HistoryMatch[]; standards: StandardContext[]; tried?: TriedLookup },
): string {
  let out = text;
  out = parts.linked ? upsertSection(out, 'linked-past-work', linkedPastWorkSection(parts.linked, parts.tried)) : removeSection(out, 'linked-past-work');
  out = parts.related.length ? upsertSection(out, 'related-past-work', relatedPastWorkSection(parts.related, parts.tried)) : removeSection(out, 'related-past-work');
  out = parts.standards.length ? upsertSection(out, 'relevant-standards', relevantStandardsSection(parts.standards)) : removeSection(out, 'relevant-standards');
  return out;
}
