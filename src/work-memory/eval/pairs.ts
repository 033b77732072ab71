import { createHash } from 'node:crypto';
import { UsageError } from '../../shared/errors.js';

/** One labelled report of a `--pairs` file (the format of dupes-dev.jsonl). */
export interface LabelledReport {
  id: string;
  title: string;
  body: string;
  duplicateOf: string | null;
  /** The tracker it came from (one scratch project each); absent in single-project files. */
  project?: string;
}

/** A query of the evaluation: a report asked as a new brief, and the indexed report it duplicates (null: nothing to find). */
export interface EvalQuery {
  id: string;
  text: string;
  target: string | null;
}

export interface EvalSplit {
  /** Reports indexed as the project's completed work. */
  history: LabelledReport[];
  queries: EvalQuery[];
}

/** Parse a JSONL file of labelled reports; a bad line is a usage error naming file and line. */
export function parsePairs(text: string, file: string): LabelledReport[] {
  const out: LabelledReport[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(line) as Record<string, unknown>;
    } catch (e) {
      throw new UsageError(`${file}:${i + 1}: not JSON (${(e as Error).message})`);
    }
    if (typeof o.id !== 'string' && typeof o.id !== 'number') throw new UsageError(`${file}:${i + 1}: "id" is missing`);
    const dup = o.duplicate_of;
    out.push({
      id: String(o.id),
      title: typeof o.title === 'string' ? o.title : '',
      body: typeof o.body === 'string' ? o.body : '',
      duplicateOf: dup === null || dup === undefined ? null : String(dup),
      ...(typeof o.project === 'string' && o.project ? { project: o.project } : {}),
    });
  });
  if (out.length === 0) throw new UsageError(`${file}: no reports`);
  return out;
}

/** The text a report is indexed and asked with. */
export function reportText(r: LabelledReport): string {
  return `# ${r.title.replace(/\s+/g, ' ').trim() || r.id}\n\n${r.body}\n`;
}

function held(key: string, share: number): boolean {
  return createHash('sha1').update(key).digest().readUInt32BE(0) / 2 ** 32 < share;
}

/**
 * Build the evaluation from labelled reports. Reports linked by duplicate_of
 * form clusters; each cluster's original (the member that duplicates nothing
 * in the file) is indexed and its duplicates are asked (target: the
 * original). A deterministic `heldOut` share of clusters is left out of the
 * index entirely and its reports are asked too: nothing to find, any alert on
 * them is false.
 */
export function splitPairs(reports: LabelledReport[], heldOut = 0.2, subset = 1): EvalSplit {
  const byId = new Map(reports.map((r) => [r.id, r]));
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r)!;
    return r;
  };
  for (const r of reports) parent.set(r.id, r.id);
  for (const r of reports) {
    if (r.duplicateOf && byId.has(r.duplicateOf)) {
      const a = find(r.id);
      const b = find(r.duplicateOf);
      if (a !== b) parent.set(a, b);
    }
  }
  const clusters = new Map<string, LabelledReport[]>();
  for (const r of reports) {
    const root = find(r.id);
    let c = clusters.get(root);
    if (!c) clusters.set(root, (c = []));
    c.push(r);
  }
  const history: LabelledReport[] = [];
  const queries: EvalQuery[] = [];
  for (const [root, members] of [...clusters].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    // A deterministic share of whole clusters, when the file is too large to embed on this machine.
    if (subset < 1 && !held(`subset:${root}`, subset)) continue;
    if (held(root, heldOut)) {
      for (const m of members) queries.push({ id: m.id, text: reportText(m), target: null });
      continue;
    }
    const original =
      members.find((m) => !m.duplicateOf || !byId.has(m.duplicateOf)) ?? members.find((m) => m.id === root)!;
    history.push(original);
    for (const m of members) if (m !== original) queries.push({ id: m.id, text: reportText(m), target: original.id });
  }
  return { history, queries };
}
