/**
 * The past work a text names as *other* work: related, a dependency, a
 * prerequisite, the work it follows up (issue 29). A brief that cites #12 as
 * related is telling us it is not #12; a past design that lists the brief's
 * issue under "Related Issues" is its sibling, not its copy.
 *
 * Only explicit references count: a relation phrase (`depends on #12`,
 * `blocked by #12`, `follow-up to #12`), a line or section headed Related /
 * Dependencies / See also, or `Issue #12` spelled out. A bare `#3` is too
 * often a list number ("test #3") to mean an issue. Ids the text calls a
 * duplicate, reopen or replacement of are the same work and are never here.
 * Bugzilla's own form counts where `#12` does: `clone of bug 12`, `regressed
 * by Bug #12` (its "+++ This bug was initially created as a clone of Bug
 * #12 +++" opens every clone: a clone is the next piece of work, never a copy).
 */

/** Issue ids (digits, leading zeros dropped) a text names as related or prerequisite work. */
export function namedRelatedIds(text: string, ownId: string | null = null): string[] {
  const ids = new Set<string>();
  const add = (n: string) => ids.add(String(Number(n)));
  const body = text.length > MAX_CHARS ? text.slice(0, MAX_CHARS) : text;
  for (const re of RELATION_PHRASES)
    for (const m of body.matchAll(re)) for (const n of m[1].matchAll(ISSUE_REF)) add(n[1]);
  for (const m of body.matchAll(SPELLED_OUT)) add(m[1]);
  for (const line of relatedSectionLines(body)) for (const n of line.matchAll(ISSUE_REF)) add(n[1]);
  for (const re of SAME_WORK) for (const m of body.matchAll(re)) ids.delete(String(Number(m[1])));
  if (ownId !== null) ids.delete(String(Number(ownId)));
  ids.delete('NaN');
  return [...ids].sort((a, b) => Number(a) - Number(b));
}

/** Long texts are read this far: references sit in the head and the related sections. */
const MAX_CHARS = 200_000;
/** `#12`, or Bugzilla's `bug 12` / `Bug #12`. */
const ISSUE_REF = /(?:#\s?|\bbugs?\s+#?\s?)0*(\d{1,7})\b/gi;
/** A relation word, then up to a short list of references (`depends on #4 and #5`). */
const LIST = String.raw`((?:[\s,;&]|and|or|issues?|bugs?|\(|\)|#\s?\d{1,7}\b|(?<=bugs?\s+)\d{1,7}\b){1,40})`;
const RELATION_PHRASES: RegExp[] = [
  new RegExp(
    String.raw`\b(?:related(?:\s+to)?|relates\s+to|depends\s+on|dependent\s+on|dependency\s+on|blocked\s+(?:by|until|on)|blocks|follow[- ]?up\s+(?:to|of|on|from)|follows\s+up|part\s+of|see\s+also|split\s+(?:from|out\s+of)|builds\s+on|extends|requires|prerequisites?|sibling\s+of|after|parent(?:\s+issue)?|epic|sub[- ]?task\s+of|child\s+of|continuation\s+of|complementary\s+to|companion\s+(?:to|of)|counterpart\s+(?:to|of)|port\s+of|ported\s+from|clone\s+of|cloned\s+from|regressed\s+by|regression\s+(?:from|caused\s+by))\s*:?\s*(?:\*\*)?\s*${LIST}`,
    'gi',
  ),
];
/** "Issue #5 must be completed first", "issue #22 covers ...": the word issue makes it a reference. */
const SPELLED_OUT = /\bissue\s+#\s?0*(\d{1,7})\b/gi;
/** These name the same work: a duplicate, a reopen, a replacement. */
const SAME_WORK: RegExp[] = [
  /\b(?:duplicates?(?:\s+of)?|dup(?:e)?\s+of|same\s+as|reopen(?:s|ed|ing)?|re-?fil(?:es?|ed|ing)|replaces|replacing|supersedes|superseding|resolves|fixes|closes)\s+(?:(?:issue\s+)?#\s?|bug\s+#?\s?)0*(\d{1,7})\b/gi,
];
const RELATED_HEADING =
  /^(?:#{1,6}\s*|\*\*)?\s*(?:related(?:\s+(?:issues?|work|prs?))?|dependencies|depends\s+on|prerequisites?|see\s+also|follow[- ]?ups?|blocked\s+by)\b/i;

/** Lines of a section headed Related / Dependencies / See also, up to the next heading (a `**Related Issues:** …` line is its own section). */
function relatedSectionLines(text: string): string[] {
  const out: string[] = [];
  let inSection = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/^\s*(?:[-*]\s+)?/, '');
    const heading = /^#{1,6}\s/.test(line);
    if (RELATED_HEADING.test(line)) {
      out.push(line);
      inSection = heading;
      continue;
    }
    if (heading) inSection = false;
    else if (inSection) out.push(line);
  }
  return out;
}

/** `{ related }` for a document's metadata, or nothing when the text names no other work. */
export function relatedOf(text: string, ownId: string | null): { related?: string[] } {
  const related = namedRelatedIds(text, ownId);
  return related.length ? { related } : {};
}

/** What a new brief says of itself: the issue it states as its own (statedIssueId), and the work it names as other work. */
export interface BriefRelations {
  own: string | null;
  related: ReadonlySet<string>;
}

/**
 * `own`: the issue the brief is, either as its caller knows it (`given`: `agentos ci`'s issue just opened, whose
 * title may well open with another issue's number, and which is normalised here) or as the text states it
 * (statedIssueId, read with the brief's metadata: check/parsed-brief.ts); null, none.
 */
export function briefRelations(text: string, own: string | null, given = false): BriefRelations {
  const id = own !== null && given ? (/^0*(\d{1,7})$/.exec(own)?.[1] ?? null) : own;
  return { own: id, related: new Set(namedRelatedIds(text, id)) };
}

/** `# Issue #19: …`, `# #19 - Feature: …`: a heading that opens with its issue (not "Follow-up to #19"). */
const OWN_HEADING = /^(?:issue\s*)?#\s?0*(\d{1,7})\b/i;

/**
 * The issue a text states it is the work of: a numeric frontmatter `issue_id` / `issue`, a header
 * field (declaredIssueId), or an H1 that opens with it. Never a file or folder number: those are
 * often a series of their own. One rule for an indexed document (metadata `ownIssue`) and a brief,
 * so that a brief that states the same issue is recognised as that issue's work (isOwnIssue).
 */
export function statedIssueId(data: Record<string, unknown>, h1: string | null, body: string): string | null {
  for (const key of ['issue_id', 'issue']) {
    const v = data[key];
    const s =
      typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'string' ? v.trim().slice(0, 64) : '';
    if (s) {
      // `19`, `#19`, or the issue's address.
      const m = /^#?\s*0*(\d{1,7})$/.exec(s) ?? /^https?:\/\/\S{1,200}\/issues\/0*(\d{1,7})$/.exec(s);
      return m && Number(m[1]) > 0 ? m[1] : null;
    }
  }
  const declared = declaredIssueId(body);
  if (declared) return declared;
  const m = h1 ? OWN_HEADING.exec(h1.trim()) : null;
  return m && Number(m[1]) > 0 ? m[1] : null;
}

/** The head of a text is where a template declares its own issue. */
const DECLARED_HEAD_LINES = 40;
/**
 * `Issue: #116`, `* **Issue:** #116`, `GitHub issue: [#116](…)`, `Issue: https://…/issues/116`:
 * a field naming the text's own issue. `Related issues:`, `Parent issue:` and the like name other work,
 * and so does `Tracking issue:` (on GitHub a sub-issue names its epic that way).
 */
const DECLARED_ISSUE =
  /^(?:github\s+)?issue\s*:\s*(?:\[\s*)?(?:#\s?0*(\d{1,7})\b|https?:\/\/[^\s)\]]{1,200}\/issues\/0*(\d{1,7})\b)/i;

/**
 * The issue a text's header declares as its own, when it declares exactly one
 * (outside code fences, in its first lines). Two different declared ids say nothing.
 */
export function declaredIssueId(body: string): string | null {
  const ids = new Set<string>();
  let inFence = false;
  let seen = 0;
  for (const raw of body.slice(0, 8_000).split('\n')) {
    if (/^\s*(```|~~~)/.test(raw)) inFence = !inFence;
    if (inFence || raw.trim() === '') continue;
    if (++seen > DECLARED_HEAD_LINES) break;
    // `* **Issue:** #116` and `**Issue**: #116`: the bullet and bold markers are layout, not words.
    const line = raw
      .replace(/^\s*(?:[-*+]\s+)?/, '')
      .replace(/\*\*|__/g, '')
      .trim();
    const m = DECLARED_ISSUE.exec(line);
    if (m && Number(m[1] ?? m[2]) > 0) ids.add(m[1] ?? m[2]);
  }
  return ids.size === 1 ? [...ids][0] : null;
}

/**
 * Is this past work the brief's own issue? The brief states its id (briefRelations.own) and the
 * document states the same one: its frontmatter, a header field or an `#N` H1 (metadata `ownIssue`),
 * a commit or pull request that closes it, or GitHub's report of it. A file or folder number
 * alone is not enough: designs and ADRs are often numbered in a series of their own.
 */
export function isOwnIssue(
  brief: BriefRelations,
  doc: { ownIssue?: string; origin?: { source: string; kind: string; ref: string; closes: string[] } },
): boolean {
  if (brief.own === null) return false;
  const own = String(Number(brief.own));
  const same = (id: string | undefined) => id !== undefined && /^\d{1,9}$/.test(id) && String(Number(id)) === own;
  if (same(doc.ownIssue)) return true;
  const o = doc.origin;
  // Another tracker's report numbers are its own series: its bug 19 is not the #19 a brief states.
  return o !== undefined && (o.closes.some(same) || (o.source === 'github' && o.kind === 'issue' && same(o.ref)));
}

/**
 * The number a text cites a report by: `12` for `012`, and for a tracker export's `firefox/12` or
 * `owner/repo#12` (a tracker's numbers are one series across its products); any other id as it is.
 */
function reportNumber(id: string): string {
  const m = /^(?:.*[/#])?0*(\d{1,9})$/.exec(id);
  return m ? String(Number(m[1])) : id;
}

/** Does the brief name this past work as other work, or the past work name the brief (sibling work: capped under the alert line)? */
export function namesAsRelated(brief: BriefRelations, doc: { issueId: string | null; related?: string[] }): boolean {
  const id = doc.issueId === null ? null : reportNumber(doc.issueId);
  return (id !== null && brief.related.has(id)) || (brief.own !== null && (doc.related ?? []).includes(brief.own));
}
