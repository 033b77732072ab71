import { writeFileSync } from 'node:fs';

// The commit-sized documents' same-work model (src/work-memory/scoring/commit-calibration-data.ts):
// a logistic regression over the calibrated score's features of the candidates a check returned,
// and the decisions it would make. Shared by bench/git-dev-eval.mjs (one repository, leave one
// brief out) and bench/git-dev-fit.mjs (several repositories, leave one repository out).

export const DEFAULT_FEATURES = ['cosineMean', 'lexBrief', 'lexDoc', 'title', 'gap'];
// rareDuplicate (issue 46): an alert needs a fifth of the brief's most distinctive terms (IDF-weighted) in the work.
export const FLOORS = { related: 0.348, duplicate: 0.491, rareDuplicate: 0.2 };

/** The labelled candidates of a run's results: 1 for the done brief's own commit, 0 for every other. */
export function samplesOf(rows, tag = '') {
  return rows.flatMap((x) =>
    x.nearest
      .filter((m) => m.components?.features && m.source === 'git')
      .map((m) => ({
        brief: `${tag}${x.id}`,
        y: x.expect && (m.ref ?? '').startsWith(x.expect) ? 1 : 0,
        f: m.components.features,
      })),
  );
}

export function train(data, names = DEFAULT_FEATURES, lambda = 1) {
  const mean = {};
  const scale = {};
  for (const n of names) {
    const v = data.map((s) => s.f[n] ?? 0);
    mean[n] = v.reduce((a, b) => a + b, 0) / v.length;
    scale[n] = Math.sqrt(v.reduce((a, b) => a + (b - mean[n]) ** 2, 0) / v.length) || 1;
  }
  const X = data.map((s) => names.map((n) => ((s.f[n] ?? 0) - mean[n]) / scale[n]));
  const w = names.map(() => 0);
  let b = 0;
  // Positives are rare among the candidates: weight them so the fit does not learn "never".
  const pos = data.filter((s) => s.y).length;
  const wPos = Math.max(1, (data.length - pos) / Math.max(1, pos)) / 4;
  for (let it = 0; it < 4000; it++) {
    const gw = w.map(() => 0);
    let gb = 0;
    let total = 0;
    data.forEach((s, i) => {
      const z = b + w.reduce((a, wj, j) => a + wj * X[i][j], 0);
      const p = 1 / (1 + Math.exp(-z));
      const sw = s.y ? wPos : 1;
      total += sw;
      for (let j = 0; j < w.length; j++) gw[j] += sw * (p - s.y) * X[i][j];
      gb += sw * (p - s.y);
    });
    for (let j = 0; j < w.length; j++) w[j] -= 0.5 * (gw[j] / total + (lambda * w[j]) / total);
    b -= 0.5 * (gb / total);
  }
  return {
    intercept: b,
    features: Object.fromEntries(names.map((n, j) => [n, { weight: w[j], mean: mean[n], scale: scale[n] }])),
  };
}

export function prob(m, f) {
  let z = m.intercept;
  for (const [n, p] of Object.entries(m.features)) z += (p.weight * ((f[n] ?? 0) - p.mean)) / p.scale;
  return 1 / (1 + Math.exp(-z));
}

/** What the model decides for a brief, and which candidate it puts first (floors as the product applies them). */
export function decide(m, x) {
  let best = null;
  let top = 0;
  for (const c of x.nearest) {
    if (!c.components?.features) continue;
    const f = c.components.features;
    let p = prob(m, f);
    if (f.cosine < FLOORS.related) p = Math.min(p, 0.4999);
    else if (f.cosine < FLOORS.duplicate || (f.rareCover ?? 1) < FLOORS.rareDuplicate) p = Math.min(p, 0.8499);
    if (p > top) [top, best] = [p, c];
  }
  return { status: top >= 0.85 ? 'duplicate_alert' : top >= 0.5 ? 'related_context' : 'clear', first: best, top };
}

/** One line per kind of brief; `decision(x)` gives { status, rank } (rank of the expected commit, 0 = first). */
export function report(label, rows, decision) {
  const done = rows.filter((x) => x.expect);
  const never = rows.filter((x) => !x.expect && !x.sibling);
  const siblings = rows.filter((x) => x.sibling);
  const cnt = (a, s) => a.filter((x) => decision(x).status === s).length;
  const found = done.filter((x) => decision(x).rank === 0 && decision(x).status !== 'clear').length;
  const lines = [
    `\n${label}`,
    `  done work (${done.length}): first and shown ${found} (${Math.round((100 * found) / Math.max(1, done.length))}%); first ${done.filter((x) => decision(x).rank === 0).length}; alert ${cnt(done, 'duplicate_alert')}, related ${cnt(done, 'related_context')}, clear ${cnt(done, 'clear')}`,
    `  never done (${never.length}): alert ${cnt(never, 'duplicate_alert')}, related ${cnt(never, 'related_context')}, clear ${cnt(never, 'clear')}`,
  ];
  if (siblings.length)
    lines.push(
      `  sibling work (${siblings.length}): alert ${cnt(siblings, 'duplicate_alert')}, related ${cnt(siblings, 'related_context')}, clear ${cnt(siblings, 'clear')}`,
    );
  console.log(lines.join('\n'));
  return {
    found,
    done: done.length,
    neverAlerts: cnt(never, 'duplicate_alert'),
    siblingAlerts: cnt(siblings, 'duplicate_alert'),
  };
}

/** A model's decision for a brief with the rank of its expected commit under that model. */
export function modelDecision(m) {
  return (x) => {
    const d = decide(m, x);
    const scored = x.nearest
      .filter((c) => c.components?.features)
      .map((c) => ({ c, p: prob(m, c.components.features) }));
    scored.sort((a, b) => b.p - a.p);
    const rank = x.expect ? scored.findIndex((s) => (s.c.ref ?? '').startsWith(x.expect)) : -1;
    return { status: d.status, rank };
  };
}

export const round = (v) => Number(v.toFixed(6));

/** The model as src/work-memory/scoring/commit-calibration-data.ts, saying what it was fitted on (`by`: the script; `from`: the data). */
export function writeModel(out, model, by, from) {
  const data = {
    intercept: round(model.intercept),
    features: Object.fromEntries(
      Object.entries(model.features).map(([n, p]) => [
        n,
        { weight: round(p.weight), mean: round(p.mean), scale: round(p.scale) },
      ]),
    ),
    floors: FLOORS,
  };
  writeFileSync(
    out,
    `// Generated by ${by} on ${new Date().toISOString().slice(0, 10)} from ${from}: do not edit by hand, refit.\n` +
      `import type { LogisticModel } from './calibration-types.js';\n\n` +
      `/** The same-work model for commit-sized documents (work read from git): short texts whose vocabulary a brief covers easily. */\n` +
      `export const COMMIT_SAME_WORK: LogisticModel = ${JSON.stringify(data, null, 2)};\n`,
  );
}
