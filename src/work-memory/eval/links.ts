/**
 * Links between past documents that mark them as the same work: the positive
 * pairs of `agentos eval` on a project's own history. A follow-up or a
 * "related" issue is sibling work (issue 29, corpus/relations.ts): "related"
 * is its right band, so it is not a positive here.
 */
const LINKS: RegExp[] = [
  /\bduplicates?\s+(?:of\s+)?#\s?(\d+)/gi,
  /\b(?:replaces|replacing|supersedes|superseding)\s+(?:issue\s+)?#\s?(\d+)/gi,
];

/** Issue ids a document names as duplicate, replaced or superseded work. */
export function linkedIssueIds(text: string): string[] {
  const ids = new Set<string>();
  for (const re of LINKS) for (const m of text.matchAll(re)) ids.add(String(Number(m[1])));
  return [...ids];
}

/** Titles compared loosely: case, punctuation and spacing do not matter. */
export function titleKey(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export interface LinkDoc {
  filePath: string;
  issueId: string | null;
  title: string;
  text: string;
}

/**
 * For each document, the paths of the other documents it is linked to:
 * by a link either way (A names B or B names A) or by an identical title.
 * Documents of the same issue (an issue and its design) are never pairs.
 */
export function linkedPairs(docs: LinkDoc[]): Map<string, Set<string>> {
  const byIssue = new Map<string, LinkDoc[]>();
  for (const d of docs) if (d.issueId) byIssue.set(d.issueId, [...(byIssue.get(d.issueId) ?? []), d]);
  const out = new Map<string, Set<string>>();
  const add = (a: LinkDoc, b: LinkDoc) => {
    if (a.filePath === b.filePath || (a.issueId !== null && a.issueId === b.issueId)) return;
    if (!out.has(a.filePath)) out.set(a.filePath, new Set());
    if (!out.has(b.filePath)) out.set(b.filePath, new Set());
    out.get(a.filePath)!.add(b.filePath);
    out.get(b.filePath)!.add(a.filePath);
  };
  for (const d of docs) for (const id of linkedIssueIds(d.text)) for (const t of byIssue.get(id) ?? []) add(d, t);
  const byTitle = new Map<string, LinkDoc[]>();
  for (const d of docs) {
    const k = titleKey(d.title);
    if (k) byTitle.set(k, [...(byTitle.get(k) ?? []), d]);
  }
  for (const group of byTitle.values())
    for (let i = 0; i < group.length; i++) for (let j = i + 1; j < group.length; j++) add(group[i], group[j]);
  return out;
}
