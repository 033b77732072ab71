/**
 * Labelled evaluation sets as projects (issue 20): each project is a corpus
 * laid out as files plus the new briefs asked against it with what they
 * should find. Two sources: a JSONL of labelled bug reports (`--pairs`,
 * one project per tracker) and a folder of real markdown work histories
 * (`corpus.jsonl` + `queries.jsonl`, one project per repository).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CorpusType } from '../corpus/types.js';
import { UsageError } from '../../shared/errors.js';
import { parsePairs, reportText, splitPairs } from './pairs.js';
import { namedRelatedIds } from '../corpus/relations.js';

export interface EvalDoc {
  id: string;
  /** Where the document is written in the scratch project. */
  relPath: string;
  text: string;
  types: CorpusType[];
  /** A tracker's record: indexed through a tracker export (sources.trackers), as a team's bug tracker is, not as a file. */
  record?: { title: string; body: string };
}

export interface EvalCase {
  id: string;
  text: string;
  /** Doc ids that are the same work (any of them ranked first is a hit); empty: nothing to find. */
  expected: string[];
  /** Doc ids left out of the index for this brief (its own text). */
  exclude: string[];
  /** e.g. duplicate, novel, issue_text, brief_adr. */
  kind: string;
  /** Briefs about the same work share a group (negatives are also counted per group). */
  group: string;
  /** Doc ids of the standards/ADRs that govern this brief (the standards check's labels); empty when unlabelled. */
  governing: string[];
  /** Doc ids for which "related" is the right band. */
  related: string[];
  /** The brief is itself a report of the project's tracker, with this id: its place in the filing order (scoring/filing.ts). */
  reportId?: string;
}

export interface EvalProject {
  name: string;
  docs: EvalDoc[];
  cases: EvalCase[];
}

/** The kinds of markdown-dev whose expected documents are ADRs: the standards check answers them, not the history check. */
export const STANDARD_ANSWERED = /_adr$/;

/** Load a labelled set: a JSONL of reports, or a folder holding corpus.jsonl and queries.jsonl. */
export function loadEvalSet(file: string, opts: { subset: number; heldOut?: number }): EvalProject[] {
  let isDir = false;
  try {
    isDir = statSync(file).isDirectory();
  } catch {
    throw new UsageError(`${file}: no such file or folder`);
  }
  return isDir ? loadMarkdownSet(file) : loadPairsSet(file, opts.subset, opts.heldOut ?? 0.2);
}

/** One project per tracker (`project` field): originals and unrelated reports are its history. */
export function loadPairsSet(file: string, subset: number, heldOut: number): EvalProject[] {
  const reports = parsePairs(readFileSync(file, 'utf8'), file);
  const byProject = new Map<string, typeof reports>();
  for (const r of reports) {
    const p = r.project ?? 'default';
    let list = byProject.get(p);
    if (!list) byProject.set(p, (list = []));
    list.push(r);
  }
  return [...byProject].map(([name, rs]) => {
    const split = splitPairs(rs, heldOut, subset);
    // A tracker's reports come in as its export: the product recognises them (origin tracker) and scores them as reports.
    const docs: EvalDoc[] = split.history.map((r, i) => ({
      id: r.id,
      relPath: `docs/audit/done/${i + 1}-report/001-issue.md`,
      text: reportText(r),
      types: ['history'],
      record: { title: r.title.replace(/\s+/g, ' ').trim() || r.id, body: r.body },
    }));
    const cases: EvalCase[] = split.queries.map((q) => ({
      id: q.id,
      text: q.text,
      expected: q.target ? [q.target] : [],
      exclude: [],
      kind: q.target ? 'duplicate' : 'novel',
      group: q.id,
      governing: [],
      related: [],
      reportId: q.id,
    }));
    return { name, docs, cases };
  });
}

interface CorpusRow {
  doc_id: string;
  path: string;
  kind: string;
  repo: string;
  source_path: string;
  issue_number?: number;
}

interface QueryRow {
  query_id: string;
  query_path: string;
  query_kind: string;
  expected: string[];
  also_relevant: string[];
  exclude_from_corpus: string[];
  repo: string;
  work_group: string;
}

function jsonl<T>(file: string): T[] {
  if (!existsSync(file))
    throw new UsageError(`${file}: missing (a markdown eval folder holds corpus.jsonl and queries.jsonl)`);
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l, i) => {
      if (!l.trim()) return null;
      try {
        return JSON.parse(l) as T;
      } catch (e) {
        throw new UsageError(`${file}:${i + 1}: not JSON (${(e as Error).message})`);
      }
    })
    .filter((x): x is T => x !== null);
}

/** Designs are completed work and also govern later work (the product's default globs index them as both). */
function typesOf(kind: string): CorpusType[] {
  if (kind === 'adr' || kind === 'standard') return ['standard'];
  if (kind === 'lld') return ['history', 'standard'];
  return ['history'];
}

export const isStandardKind = (kind: string) => kind === 'adr' || kind === 'standard';

/** One project per repository; documents at their repository paths. */
export function loadMarkdownSet(dir: string): EvalProject[] {
  const corpus = jsonl<CorpusRow>(path.join(dir, 'corpus.jsonl'));
  const queries = jsonl<QueryRow>(path.join(dir, 'queries.jsonl'));
  const read = (rel: string) => {
    const f = path.join(dir, rel);
    if (!existsSync(f)) throw new UsageError(`${f}: listed in ${dir} but missing`);
    return readFileSync(f, 'utf8');
  };
  const repos = [...new Set(corpus.map((c) => c.repo))].sort();
  return repos.map((repo) => {
    const rows = corpus.filter((c) => c.repo === repo);
    const docs: EvalDoc[] = rows.map((c) => ({
      id: c.doc_id,
      relPath: c.source_path,
      text: read(c.path),
      types: typesOf(c.kind),
    }));
    const standards = rows.filter((c) => isStandardKind(c.kind));
    const kindOf = new Map(rows.map((c) => [c.doc_id, c.kind]));
    const cases: EvalCase[] = queries
      .filter((q) => q.repo === repo)
      .map((q) => {
        const text = read(q.query_path);
        const governing = new Set<string>();
        if (STANDARD_ANSWERED.test(q.query_kind)) for (const id of q.expected) governing.add(id);
        for (const id of q.also_relevant) if (isStandardKind(kindOf.get(id) ?? '')) governing.add(id);
        for (const id of citedStandards(text, standards)) governing.add(id);
        return {
          id: q.query_id,
          text,
          expected: STANDARD_ANSWERED.test(q.query_kind) ? [] : q.expected,
          exclude: q.exclude_from_corpus,
          kind: q.query_kind,
          group: q.work_group,
          governing: [...governing].sort(),
          related: q.also_relevant,
        };
      });
    // Finished designs that cite a standard or ADR are labelled briefs for the standards check (asked with the design itself left out).
    for (const c of rows.filter((r) => r.kind === 'lld')) {
      const text = read(c.path);
      const cited = citedStandards(text, standards);
      if (!cited.length) continue;
      cases.push({
        id: `${c.doc_id}#cites`,
        text,
        expected: [],
        exclude: [c.doc_id],
        kind: 'design_cites_standard',
        group: `design:${c.doc_id}`,
        governing: cited,
        related: [],
      });
    }
    cases.push(...siblingCases(rows, cases, read));
    return { name: repo, docs, cases };
  });
}

/**
 * Sibling work as labelled negatives (issue 29): a brief whose own work is
 * left out of the index while work it names as related (or that names it)
 * stays in. "Related" is the right answer; an alert is a false alarm.
 * From the set's own labels (a query's `also_relevant` history documents)
 * and from the corpus (a document naming another issue as related,
 * prerequisite or followed-up work, either way round).
 */
export function siblingCases(rows: CorpusRow[], cases: EvalCase[], read: (rel: string) => string): EvalCase[] {
  const history = rows.filter((r) => typesOf(r.kind).includes('history'));
  const issueOf = new Map(history.map((r) => [r.doc_id, r.issue_number]));
  const docsOf = (n: number | undefined) =>
    n === undefined ? [] : history.filter((r) => r.issue_number === n).map((r) => r.doc_id);
  const out: EvalCase[] = [];
  for (const c of cases) {
    if (!c.expected.length) continue;
    const own = new Set([...c.exclude, ...c.expected, ...c.expected.flatMap((id) => docsOf(issueOf.get(id)))]);
    const related = c.related.filter((id) => issueOf.has(id) && !own.has(id));
    if (related.length)
      out.push({
        ...c,
        id: `${c.id}#sibling`,
        expected: [],
        exclude: [...own].sort(),
        kind: 'sibling',
        group: `sibling:${c.group}`,
        governing: [],
        related,
      });
  }
  const numbers = new Set(history.map((r) => r.issue_number).filter((n): n is number => n !== undefined));
  const links = new Map<number, Set<number>>();
  const link = (a: number, b: number) => links.set(a, (links.get(a) ?? new Set()).add(b));
  for (const r of history) {
    if (r.issue_number === undefined) continue;
    for (const id of namedRelatedIds(read(r.path), String(r.issue_number))) {
      const n = Number(id);
      if (!numbers.has(n) || n === r.issue_number) continue;
      link(r.issue_number, n);
      link(n, r.issue_number);
    }
  }
  const asked = new Set(cases.map((c) => c.text));
  for (const [n, others] of [...links].sort((a, b) => a[0] - b[0])) {
    const related = [...others].sort((a, b) => a - b).flatMap((m) => docsOf(m));
    for (const r of history.filter((x) => x.issue_number === n)) {
      const text = read(r.path);
      if (asked.has(text)) continue;
      asked.add(text);
      out.push({
        id: `${r.doc_id}#sibling`,
        text,
        expected: [],
        exclude: docsOf(n),
        kind: 'sibling',
        group: `sibling:${r.repo}#${n}`,
        governing: [],
        related,
      });
    }
  }
  return out;
}

/**
 * The standards a text names: `ADR-0216`, `ADR 10217`, `standard 00007`, or a
 * file stem (`00008-json-report-schema`). Numbers match with or without the
 * repository's renumbering prefix (`0216` = `10216`). A labelling aid for the
 * development sets, not product logic.
 */
export function citedStandards(
  text: string,
  standards: Array<{ doc_id: string; source_path: string; kind: string }>,
): string[] {
  const out: string[] = [];
  for (const s of standards) {
    const stem = path.basename(s.source_path, '.md');
    const num = /^(\d+)/.exec(stem)?.[1];
    const forms = new Set<string>([stem.toLowerCase()]);
    const alternatives: string[] = [];
    if (num) {
      const n = String(Number(num));
      const short = num.length > 4 ? num.slice(-4) : num;
      const nums = [...new Set([num, short, n])].join('|');
      alternatives.push(s.kind === 'adr' ? `adr[\\s#-]*0*(?:${nums})\\b` : `standards?[\\s#-]*0*(?:${nums})\\b`);
    }
    // A file stem counts only when it names one document (a number and a slug), on word boundaries: `api` is not cited by "rapid".
    const stemCited = [...forms].some(
      (f) => /\d/.test(f) && f.length >= 8 && new RegExp(`(^|[^\\w-])${escapeRegExp(f)}($|[^\\w-])`, 'i').test(text),
    );
    if (stemCited || alternatives.some((a) => new RegExp(a, 'i').test(text))) out.push(s.doc_id);
  }
  return out;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A deterministic sample of n items, in their own order: those whose hash of
 * `seed:id` (of the id alone without a seed) sorts first. The sweep's corpora
 * and `eval --limit` both sample this way.
 */
export function sampleById<T extends { id: string }>(items: T[], n: number, seed = ''): T[] {
  if (n >= items.length) return items;
  const key = (x: T) =>
    createHash('sha1')
      .update(seed ? `${seed}:${x.id}` : x.id)
      .digest('hex');
  const keep = new Set(
    [...items]
      .sort((a, b) => (key(a) < key(b) ? -1 : 1))
      .slice(0, n)
      .map((x) => x.id),
  );
  return items.filter((x) => keep.has(x.id));
}

/** The project cut to a corpus: briefs whose expected work is gone have nothing to find. */
export function restrictTo(p: EvalProject, docs: EvalDoc[], name: string): EvalProject {
  const ids = new Set(docs.map((d) => d.id));
  return {
    name,
    docs,
    cases: p.cases.map((c) => {
      const expected = c.expected.filter((id) => ids.has(id));
      return {
        ...c,
        expected,
        kind: c.expected.length && !expected.length ? 'novel' : c.kind,
        governing: c.governing.filter((id) => ids.has(id)),
      };
    }),
  };
}
