// The fit's inputs (issue 49): what scripts/fit-calibration.mjs reads of an `agentos eval --save`, and nothing else.
//
// The development data may not be copied into the repository (../shared/eval/README.md), so what is kept in
// fixtures/calibration/ is derived, not copied: per brief its project, kind and labels, and per candidate its label
// and the numbers the fit reads, rounded to 1e-5. Paths (of standards candidates and labels; the fit reads no other)
// and brief ids become opaque names that keep what the fit tells apart (equality, and whether a path is an ADR or
// standard). No timings, no text: the same save gives the same bytes, so the calibration refits byte for byte from
// a fresh clone.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

export const FORMAT = 'agentos-fit-input/1';

/**
 * The features the shipped models, floors and rules read (calibrated.ts): the markdown and tracker models' own,
 * the standards model's, the floors' (cosine, lexBrief, rareCover) and the rules (namedRelated, sameIssue).
 * To fit with another feature, add it here and run scripts/calibration-inputs.mjs again.
 */
export const KEPT_FEATURES = [
  'cosine',
  'cosineMean',
  'lexBrief',
  'lexDoc',
  'title',
  'gap',
  'standout',
  'docChunks',
  'docRareCover',
  'neighbourGap',
  'rareCover',
  'namedRelated',
  'sameIssue',
];
/** A tracker brief's candidates kept: its nearest this many by cosine and by lexical share, and its labelled work. */
export const KEPT_NEAREST = 20;

const STANDARD_PATH = /(^|\/)(adrs?|standards|decisions)\//i;
const opaque = (s) => createHash('sha256').update(s).digest('hex').slice(0, 12);
/** A path as the fit tells it apart: the same path the same name, an ADR or standard still one. */
const pathName = (p) => `${STANDARD_PATH.test(p) ? 'standards' : 'work'}/${opaque(p)}`;
const DECIMALS = 5;
const num = (x) => Math.round(x * 10 ** DECIMALS) / 10 ** DECIMALS;

/** A candidate as the fit reads it; a standards candidate keeps its (opaque) path, which the fit compares. */
function candidate(c, withPath) {
  return {
    ...(withPath ? { path: pathName(c.path) } : {}),
    label: c.label,
    ...(c.documentType !== undefined ? { documentType: c.documentType } : {}),
    ...(c.relatedWork !== undefined ? { relatedWork: c.relatedWork } : {}),
    f: KEPT_FEATURES.map((n) => {
      if (!Number.isFinite(c.features[n])) throw new Error(`feature ${n} missing from a saved candidate`);
      return num(c.features[n]);
    }),
  };
}

/**
 * Candidates in one order whatever calibration the eval ran with (a save lists them by the shipped score): by cosine,
 * then by every kept number, so that a refit after a refit reads the same rows in the same order.
 */
function canonical(cands) {
  const key = (c) => [...KEPT_FEATURES.map((n) => -c.features[n]), -c.label];
  return cands
    .filter((c) => c.features)
    .map((c) => ({ c, k: key(c) }))
    .sort((a, b) => {
      for (let i = 0; i < a.k.length; i++) if (a.k[i] !== b.k[i]) return a.k[i] - b.k[i];
      const [p, q] = [a.c.path ?? '', b.c.path ?? ''];
      return p < q ? -1 : p > q ? 1 : 0;
    })
    .map(({ c }) => c);
}

function nearest(history) {
  const scored = canonical(history);
  const by = (f) => [...scored].sort((a, b) => b.features[f] - a.features[f]).slice(0, KEPT_NEAREST);
  const near = new Set([...by('cosine'), ...by('lexBrief')]);
  return scored.filter((c) => near.has(c) || c.label === 1);
}

/** One `agentos eval --save` as the fit's input. */
export function trimSave(save) {
  return {
    format: FORMAT,
    // What was kept, recorded with it: the fit writes it into the calibration's header.
    kept: { nearest: KEPT_NEAREST, decimals: DECIMALS },
    features: KEPT_FEATURES,
    results: save.results.map((r) => ({
      id: opaque(r.id),
      project: r.project,
      kind: r.kind,
      targets: (r.targets ?? []).map(pathName),
      relatedPaths: (r.relatedPaths ?? []).map(pathName),
      history: nearest(r.history ?? []).map((c) => candidate(c, false)),
      ...(r.standards
        ? {
            standards: {
              governing: r.standards.governing.map(pathName),
              ...(r.standards.crossProject ? { crossProject: true } : {}),
              candidates: canonical(r.standards.candidates).map((c) => candidate(c, true)),
            },
          }
        : {}),
    })),
  };
}

const expand = (names, c) => {
  const { f, ...rest } = c;
  return { ...rest, features: Object.fromEntries(names.map((n, i) => [n, f[i]])) };
};

/**
 * A fit input (`.json.gz` from trimSave, or a whole `agentos eval --save` as `.json`), read once: its results, what it
 * kept (`kept`: candidates per brief and decimals; null for a whole save) and its content's digest, by which the
 * calibration's header names it (of the content, not the gzip's bytes, which may differ by platform).
 */
export function readFitInput(file) {
  const bytes = readFileSync(file);
  const content = file.endsWith('.gz') ? gunzipSync(bytes) : bytes;
  const data = JSON.parse(content.toString('utf8'));
  const digest = createHash('sha256').update(content).digest('hex').slice(0, 12);
  if (data.format !== FORMAT) return { results: data.results, kept: null, digest };
  const results = data.results.map((r) => ({
    ...r,
    history: r.history.map((c) => expand(data.features, c)),
    ...(r.standards
      ? { standards: { ...r.standards, candidates: r.standards.candidates.map((c) => expand(data.features, c)) } }
      : {}),
  }));
  return { results, kept: data.kept ?? null, digest };
}
