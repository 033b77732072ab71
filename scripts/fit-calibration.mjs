#!/usr/bin/env node
// Fit the calibrated scores of src/work-memory/scoring/calibrated.ts (issues 20, 29) from `agentos eval --save`
// output of labelled sets, report them with each project held out of everything fitted, and (with
// --write) write the fitted numbers to src/work-memory/scoring/calibration-data.ts.
//
//   npm run build    # this script uses the product's own arithmetic from dist/
//   npm run calibration:refit    # the shipped calibration, from fixtures/calibration/ (scripts/calibration-inputs.mjs)
//   node scripts/fit-calibration.mjs [--write] [--out file] [--features a,b,...] [--ablate] [--governs-from md.json] results1.json[.gz] ...
//   Inputs: fixtures/calibration/*.json.gz (scripts/fit-inputs.mjs) or a whole `agentos eval --save`.
//   --out: write the calibration there instead of src/ (the refit test compares the two byte for byte).
//   --governs-from: the standards check's rows from another save (one that records which designs the history
//   check placed as related, `relatedWork`, 2026-11-26), the same-work rows from the results files.
//   --tracker-from: the trackers' model (weights, floors, placement) fitted, held out and reported on this
//   save's tracker briefs, while the markdown model keeps the results files' (a save that records a
//   feature the trackers use, 2026-11-27, without refitting markdown from rows measured differently).
//   env: FIT_DOMAINS=domains|pooled, FIT_FALSE_ALERTS[_MARKDOWN|_TRACKER], FIT_PLACE_MARKDOWN_ON=all|own,
//        FIT_RELATED_NOISE, FIT_LAMBDA, FIT_TOP, FIT_STANDARDS_LINE, FIT_UNRELATED_NONE,
//        FIT_IGNORE_NAMED=1 (measure the named-as-related cap). All of them, and the flags, are SETTINGS below.
//
// sameWork: logistic regression on every history candidate of every brief (label: the candidate
//   is the brief's expected work), each project weighing the same, features standardised,
//   L2 penalty. The query's decision is its top candidate's probability.
// governs: the same on standards candidates (label: a labelled governing standard/ADR; other
//   projects' standards asked with this project's briefs are unrelated: label 0).
// floors: the lowest best-passage cosine at which the same work is still found in the sets,
//   so that no alert and no "related" comes without absolute semantic evidence.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFitInput } from './fit-inputs.mjs';

// The product's own arithmetic, from the build: said in one line when there is none (not a module-not-found trace).
const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'work-memory');
if (!existsSync(path.join(dist, 'scoring', 'calibrated.js'))) {
  process.stderr.write('fit-calibration: dist/ has no build of the scoring code: run `npm run build` first\n');
  process.exit(2);
}
const { FEATURE_NAMES } = await import(path.join(dist, 'scoring', 'features.js'));
const { auc } = await import(path.join(dist, 'eval', 'metrics.js'));
const { calibratedScore, logit, sigmoid } = await import(path.join(dist, 'scoring', 'calibrated.js'));
const { isDesign } = await import(path.join(dist, 'check', 'standards.js'));
// The product's own solver (the project's line refits with it too).
const { solve } = await import(path.join(dist, 'eval', 'refit.js'));

const args = process.argv.slice(2);
const write = args.includes('--write');
const ablate = args.includes('--ablate');
const fIdx = args.indexOf('--features');
// The features that earned their place on the development sets (docs/scoring.md, ablation); --features to try others.
const DEFAULT_FEATURES = ['cosineMean', 'lexBrief', 'lexDoc', 'title', 'gap'];
// Bug reports: the relative evidence (gap, standout) and the report's own distinctive terms carry more than whole-text
// similarity (docs/scoring.md). filedNear (where a report was filed) is measured, not used: it costs re-filed old work.
const DEFAULT_TRACKER_FEATURES = ['gap', 'standout', 'lexBrief', 'title', 'docChunks', 'docRareCover', 'neighbourGap'];
// Rules, not weights (the named-related cap, the same-issue raise): never fitted. `all` is the markdown model's candidates, and filedNear is a tracker's.
const RULES = new Set(['namedRelated', 'sameIssue']);
const wanted =
  fIdx >= 0
    ? args[fIdx + 1] === 'all'
      ? FEATURE_NAMES.filter((n) => !RULES.has(n) && n !== 'filedNear')
      : args[fIdx + 1].split(',')
    : DEFAULT_FEATURES;
const tIdx = args.indexOf('--tracker-features');
const trackerWanted = tIdx >= 0 ? args[tIdx + 1].split(',') : DEFAULT_TRACKER_FEATURES;
const govIdx = args.indexOf('--governs-features');
// Only features whose weight keeps its sign (a relative feature with a negative weight rewarded candidates far below the others).
// lexBrief left in 2026-12-05 (issue 49): refitted from fixtures/calibration/ its weight turned negative (-0.07), and
// without it the held-out projects read better (Aletheia: nothing attached to another project's briefs 0.970 against
// 0.910; gh-link-auditor: recall 0.400 against 0.300).
const govWanted = govIdx >= 0 ? args[govIdx + 1].split(',') : ['cosine', 'cosineMean', 'lexDoc'];
const govFromIdx = args.indexOf('--governs-from');
const governsFrom = govFromIdx >= 0 ? args[govFromIdx + 1] : null;
const trackerFromIdx = args.indexOf('--tracker-from');
const trackerFrom = trackerFromIdx >= 0 ? args[trackerFromIdx + 1] : null;
const outIdx = args.indexOf('--out');
const files = args.filter(
  (a, i) =>
    /\.json(\.gz)?$/.test(a) &&
    !['--features', '--tracker-features', '--governs-features', '--governs-from', '--tracker-from', '--out'].includes(
      args[i - 1],
    ),
);
const repoRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
/** A file as the header names it: from the repository's root when it is inside it, so that any clone writes the same. */
const repoPath = (f) => {
  const rel = path.relative(repoRoot, path.resolve(f));
  return rel.startsWith('..') || path.isAbsolute(rel) ? path.basename(f) : rel.split(path.sep).join('/');
};
for (const n of [...wanted, ...trackerWanted, ...govWanted]) {
  if (!FEATURE_NAMES.includes(n)) {
    console.error(`fit-calibration: unknown feature ${n} (known: ${FEATURE_NAMES.join(', ')})`);
    process.exit(2);
  }
}
// Each input read once (its results, what it kept, its digest), whichever part of the fit asks for it.
const inputsRead = new Map();
const input = (f) => {
  if (!inputsRead.has(f)) inputsRead.set(f, readFitInput(f));
  return inputsRead.get(f);
};

// Every setting that changes the result, in one place: the written file's header records all of them (issue 49).
const env = process.env;
const SETTINGS = {
  features: wanted,
  trackerFeatures: trackerWanted,
  governsFeatures: govWanted,
  governsFrom: governsFrom && repoPath(governsFrom),
  trackerFrom: trackerFrom && repoPath(trackerFrom),
  FIT_DOMAINS: env.FIT_DOMAINS ?? 'domains',
  FIT_LAMBDA: Number(env.FIT_LAMBDA ?? 1),
  FIT_TOP: Number(env.FIT_TOP ?? 20),
  FIT_STANDARDS_LINE: Number(env.FIT_STANDARDS_LINE ?? 0.5),
  FIT_FALSE_ALERTS_MARKDOWN: Number(env.FIT_FALSE_ALERTS_MARKDOWN ?? env.FIT_FALSE_ALERTS ?? 0.05),
  FIT_FALSE_ALERTS_TRACKER: Number(env.FIT_FALSE_ALERTS_TRACKER ?? env.FIT_FALSE_ALERTS ?? 0.03),
  FIT_PLACE_MARKDOWN_ON: env.FIT_PLACE_MARKDOWN_ON ?? 'all',
  FIT_RELATED_NOISE: Number(env.FIT_RELATED_NOISE ?? 0.25),
  // Another project's briefs getting nothing attached, at least: 0.95 keeps b3cec1e's 2.2% with something attached on
  // markdown-dev (0.9 gave 9.9% in the product's eval), and held out Aletheia reads 0.910 against 0.866 at 0.9.
  FIT_UNRELATED_NONE: Number(env.FIT_UNRELATED_NONE ?? 0.95),
  FIT_IGNORE_NAMED: env.FIT_IGNORE_NAMED === '1',
  // What scripts/fit-inputs.mjs kept of each save (its nearest candidates per brief, the decimals): FIT_TOP above
  // `nearest` reads no more rows than it.
  inputs: Object.fromEntries(files.map((f) => [repoPath(f), input(f).kept])),
};
const LAMBDA = SETTINGS.FIT_LAMBDA;
const TRAIN_TOP = SETTINGS.FIT_TOP;
const LINES = { duplicate: 0.85, related: 0.5 };
const STD_LINE = SETTINGS.FIT_STANDARDS_LINE;

if (files.length === 0) {
  process.stderr.write(
    'usage: node scripts/fit-calibration.mjs [--write] [--features a,b,...] [--ablate] results1.json results2.json ... (`agentos eval --save` output)\n',
  );
  process.exit(2);
}
const results = files.flatMap((f) => input(f).results);
// FIT_IGNORE_NAMED=1: as if no text named another as related work (measures what that rule is worth).
if (SETTINGS.FIT_IGNORE_NAMED)
  for (const r of results) for (const c of r.history ?? []) if (c.features) c.features.namedRelated = 0;
const historyCase = (r) => !/_adr$|^design_cites_standard$|^cross_project$/.test(r.kind ?? '');
const briefs = results.filter((r) => historyCase(r) && r.history?.length);
const projects = [...new Set(briefs.map((r) => r.project))].sort();
// The tracker briefs the trackers' model is fitted and judged on (--tracker-from), by project.
const trackerBriefs = trackerFrom
  ? input(trackerFrom).results.filter((r) => historyCase(r) && r.history?.length)
  : null;
/** The briefs a domain is judged on: the trackers' from --tracker-from when given. */
const briefsOf = (domain) => (domain === 'tracker' && trackerBriefs ? trackerBriefs : briefs);

// ---------- logistic regression (Newton / IRLS with an L2 penalty) ----------
function standardiser(rows, names) {
  const mean = {};
  const scale = {};
  for (const n of names) {
    // A save from before a feature existed has none: say so, not a fit of NaN.
    const bad = rows.find((r) => !Number.isFinite(r.f[n]));
    if (bad) {
      console.error(
        `fit-calibration: feature ${n} is missing from the saved rows of ${bad.r?.project ?? 'a project'} (brief ${bad.r?.id ?? '?'}): save them again with a build that computes it, or pass that save with --tracker-from`,
      );
      process.exit(2);
    }
    const xs = rows.map((r) => r.f[n]);
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length) || 1;
    mean[n] = m;
    scale[n] = sd;
  }
  return { mean, scale };
}

function fit(rows, names) {
  const st = standardiser(rows, names);
  const X = rows.map((r) => [1, ...names.map((n) => (r.f[n] - st.mean[n]) / st.scale[n])]);
  const d = names.length + 1;
  let w = new Array(d).fill(0);
  for (let it = 0; it < 50; it++) {
    const g = new Array(d).fill(0);
    const H = Array.from({ length: d }, () => new Array(d).fill(0));
    rows.forEach((r, i) => {
      const z = X[i].reduce((a, x, j) => a + x * w[j], 0);
      const p = 1 / (1 + Math.exp(-z));
      const s = r.w * p * (1 - p);
      for (let j = 0; j < d; j++) {
        g[j] += r.w * (p - r.y) * X[i][j];
        for (let k = j; k < d; k++) H[j][k] += s * X[i][j] * X[i][k];
      }
    });
    for (let j = 1; j < d; j++) {
      g[j] += LAMBDA * w[j];
      H[j][j] += LAMBDA;
    }
    for (let j = 0; j < d; j++) for (let k = 0; k < j; k++) H[j][k] = H[k][j];
    const step = solve(H, g);
    w = w.map((x, j) => x - step[j]);
    if (Math.max(...step.map(Math.abs)) < 1e-8) break;
  }
  const features = {};
  names.forEach((n, j) => (features[n] = { weight: w[j + 1], mean: st.mean[n], scale: st.scale[n] }));
  return { intercept: w[0], features };
}

// The product's own arithmetic (src/work-memory/scoring/calibrated.ts): a standards model here may carry a trial `shift` of its intercept.
const shifted = (model, floors) => ({
  ...model,
  intercept: model.intercept + (model.shift ?? 0),
  floors: floors ?? model.floors ?? { related: 0, duplicate: 0 },
});
const zOf = (model, f) => logit(shifted(model), f).z;
const prob = (model, f) => sigmoid(zOf(model, f));
/** The score as the product gives it: the probability held under a line its floors do not allow. */
const score = (model, f, floors, lines) => calibratedScore(shifted(model, floors), f, lines).score;

// ---------- data ----------
function historyRows(rs) {
  const perProject = new Map();
  for (const r of rs) perProject.set(r.project, (perProject.get(r.project) ?? 0) + 1);
  // The decision is made on a brief's best candidates: fit on its nearest TRAIN_TOP by cosine (hard negatives) and its expected work.
  return rs.flatMap((r) => {
    const cands = r.history.filter((c) => c.features);
    const by = (f) => [...cands].sort((a, b) => b.features[f] - a.features[f]).slice(0, TRAIN_TOP);
    const near = new Set([...by('cosine'), ...by('lexBrief')]);
    // Each project weighs the same; in all, one unit per brief (so that LAMBDA means the same whatever the sizes).
    const kept = cands.filter((c) => near.has(c) || c.label === 1);
    const w = rs.length / perProject.size / perProject.get(r.project) / kept.length;
    return kept.map((c) => ({ f: c.features, y: c.label, w, r }));
  });
}

/** Query-level outcome: the top candidate under the model (grouping as scored). */
function decide(rs, model, floors) {
  return rs.map((r) => {
    let best = null;
    for (const c of r.history) {
      if (!c.features) continue;
      const s = score(model, c.features, floors, LINES);
      if (!best || s > best.s) best = { s, label: c.label };
    }
    return { r, top: best?.s ?? 0, hit: best?.label === 1, positive: r.targets.length > 0 };
  });
}

function metrics(ds) {
  const pos = ds.filter((d) => d.positive);
  const neg = ds.filter((d) => !d.positive);
  const sh = (n, d) => (d ? n / d : NaN);
  const tp = pos.filter((d) => d.hit && d.top >= LINES.duplicate).length;
  const posAlerts = pos.filter((d) => d.top >= LINES.duplicate).length;
  const fp = neg.filter((d) => d.top >= LINES.duplicate).length;
  const wP = 0.1 / (pos.length || 1);
  const wN = 0.9 / (neg.length || 1);
  const alerts = posAlerts * wP + fp * wN;
  return {
    n: `${pos.length}+${neg.length}`,
    top1: sh(pos.filter((d) => d.hit).length, pos.length),
    recall: sh(tp, pos.length),
    falseAlerts: sh(fp, neg.length),
    related: sh(neg.filter((d) => d.top >= LINES.related).length, neg.length),
    prec10: alerts ? (tp * wP) / alerts : 1,
    auc: auc(
      pos.map((d) => d.top),
      neg.map((d) => d.top),
    ),
  };
}

const fmt = (m) =>
  Object.entries(m)
    .map(([k, v]) => `${k} ${typeof v === 'number' ? (Number.isNaN(v) ? 'n/a' : v.toFixed(3)) : v}`)
    .join('  ');

/** The lowest cosine at which the expected work was still ranked first, less a margin, per line. */
function fitFloors(rs) {
  const cos = rs
    .flatMap((r) =>
      r.history
        .filter((c) => c.label === 1 && c.features)
        .slice(0, 1)
        .map((c) => c.features.cosine),
    )
    .sort((a, b) => a - b);
  const q = (p) => cos[Math.min(cos.length - 1, Math.floor(p * cos.length))];
  return { related: round(q(0.02) - 0.02), duplicate: round(q(0.1)), positives: cos.length };
}
const round = (x) => Math.round(x * 1000) / 1000;

// ---------- sameWork: everything fitted inside one function, so that it can be held out whole ----------
// A project is a markdown history or a tracker; the product tells them apart by where the work came
// from (a tracker's export: origin tracker/github issue) and places each domain on its own.
const isMarkdown = (p) =>
  briefs.some((r) => r.project === p && r.kind !== 'duplicate' && r.kind !== 'novel') || /\//.test(p);
const domainOf = (p) => (isMarkdown(p) ? 'markdown' : 'tracker');
const DOMAINS = ['markdown', 'tracker'];
// domains (the default): markdown histories keep weights fitted on every project (their own two are
// few) with their own floors' placement; trackers get their own features, weights and placement.
// pooled: one model and one placement for both (before issue 29), to compare against.
const MODE = SETTINGS.FIT_DOMAINS;
if (!['pooled', 'domains'].includes(MODE)) {
  console.error(`fit-calibration: FIT_DOMAINS must be domains or pooled (got ${MODE})`);
  process.exit(2);
}
// The alert line's noise budget per domain: a markdown history's lines are placed over every domain's
// briefs with nothing to find (FIT_PLACE_MARKDOWN_ON, default all), a tracker's over its own.
const BUDGETS = { markdown: SETTINGS.FIT_FALSE_ALERTS_MARKDOWN, tracker: SETTINGS.FIT_FALSE_ALERTS_TRACKER };
const FALSE_ALERTS = `markdown ${BUDGETS.markdown}, trackers ${BUDGETS.tracker}`;
const RELATED_NOISE = SETTINGS.FIT_RELATED_NOISE;
const logOdds = (p) => Math.log(p / (1 - p));

/**
 * Placement (Platt-style, z' = a z + b on the fitted log-odds): 0.85 where the briefs of `neg` with
 * nothing to find alert at FALSE_ALERTS, 0.5 where they reach related at RELATED_NOISE. The ranking is
 * unchanged; only where the two lines fall. A brief's top is taken under the floors: a candidate held
 * under a line by its cosine cannot place that line.
 */
function place(fitted, floors, negSets, falseAlerts) {
  const topZ = (rs, line) =>
    rs
      .filter((r) => !r.targets.length)
      .map((r) =>
        Math.max(
          -99,
          ...r.history
            .filter(
              (c) =>
                c.features &&
                c.features.cosine >= (line === 'alert' ? floors.duplicate : floors.related) &&
                !(line === 'alert' && c.features.namedRelated === 1),
            )
            .map((c) => zOf(fitted, c.features)),
        ),
      );
  const quantileAbove = (zs, share) => [...zs].sort((x, y) => y - x)[Math.floor(share * zs.length)] ?? 0;
  const zAlert = Math.max(...negSets.map((d) => quantileAbove(topZ(d, 'alert'), falseAlerts)));
  const zRelated = Math.max(...negSets.map((d) => quantileAbove(topZ(d, 'related'), RELATED_NOISE)));
  const a = zAlert > zRelated ? (logOdds(LINES.duplicate) - logOdds(LINES.related)) / (zAlert - zRelated) : 1;
  const b = logOdds(LINES.related) - a * zRelated;
  const features = Object.fromEntries(
    Object.entries(fitted.features).map(([k, v]) => [k, { ...v, weight: v.weight * a }]),
  );
  return {
    intercept: a * fitted.intercept + b,
    features,
    floors: { related: floors.related, duplicate: floors.duplicate },
    placement: { a, b, zAlert, zRelated },
  };
}

/** The lexical floor for alerts: the 2nd percentile of the brief's lexical share among the right alerts of the placed model. */
function lexicalFloor(placed, rs) {
  const xs = rs
    .flatMap((r) => {
      const top = r.history
        .filter((c) => c.features)
        .reduce((x, c) => (!x || prob(placed, c.features) > prob(placed, x.features) ? c : x), null);
      return top && top.label === 1 && prob(placed, top.features) >= LINES.duplicate ? [top.features.lexBrief] : [];
    })
    .sort((x, y) => x - y);
  return xs.length ? round(Math.max(0, xs[Math.floor(0.02 * xs.length)] - 0.01)) : 0;
}

/** Everything the product ships for one domain, fitted on `train` only: weights, floors, placement, lexical floor. */
function fitSameWork(train, domain, features) {
  if (domain === 'tracker' && trackerBriefs) train = withTrackerBriefs(train);
  const inDomain = train.filter((r) => domainOf(r.project) === domain);
  const own = MODE === 'domains' && domain === 'tracker';
  const weightsFrom = own ? inDomain : train;
  const names = features[MODE === 'domains' ? domain : 'markdown'];
  // Placed on its own domain's briefs with nothing to find; the markdown lines must also hold their budget on the
  // trackers' briefs (many more of them than a markdown history has; FIT_PLACE_MARKDOWN_ON=own to compare).
  const everyDomain = DOMAINS.map((d) => train.filter((r) => domainOf(r.project) === d)).filter((x) => x.length);
  const placeOn =
    MODE === 'pooled' || (domain === 'markdown' && SETTINGS.FIT_PLACE_MARKDOWN_ON === 'all') ? everyDomain : [inDomain];
  // Floors are absolute semantic evidence, read off every positive there is: a domain's few positives would set them by chance.
  const floorsFrom = train;
  if (
    !weightsFrom.some((r) => r.targets.length) ||
    !placeOn.every((x) => x.length) ||
    !floorsFrom.some((r) => r.targets.length)
  )
    return null;
  const floors = fitFloors(floorsFrom);
  const fitted = fit(historyRows(weightsFrom), names);
  const placed = place(fitted, floors, placeOn, BUDGETS[domain]);
  const lex = Math.min(...placeOn.map((x) => lexicalFloor(placed, x)));
  return { ...placed, floors: { ...placed.floors, lexicalDuplicate: lex } };
}

/** `rs` with its tracker briefs taken from --tracker-from (the same projects). */
function withTrackerBriefs(rs) {
  const keep = new Set(rs.filter((r) => domainOf(r.project) === 'tracker').map((r) => r.project));
  return [...rs.filter((r) => domainOf(r.project) !== 'tracker'), ...trackerBriefs.filter((r) => keep.has(r.project))];
}

/** Each project held out of everything fitted (weights, floors, placement), then asked with what the others gave. */
function heldOut(features, quiet = false) {
  const all = [];
  for (const p of projects) {
    const model = fitSameWork(
      briefs.filter((r) => r.project !== p),
      domainOf(p),
      features,
    );
    const test = briefsOf(domainOf(p)).filter((r) => r.project === p);
    if (!model) {
      if (!quiet) console.log(`  held out ${p.padEnd(32)} (nothing left to fit its domain on)`);
      continue;
    }
    const ds = decide(test, model, model.floors);
    all.push(...ds);
    if (!quiet) console.log(`  held out ${p.padEnd(32)} ${fmt(metrics(ds))}`);
  }
  const byDomain = Object.fromEntries(DOMAINS.map((d) => [d, metrics(all.filter((x) => domainOf(x.r.project) === d))]));
  const bySibling = metrics(
    all.filter((x) => domainOf(x.r.project) === 'markdown' && (x.positive || x.r.kind === 'sibling')),
  );
  return {
    byDomain,
    bySibling,
    byProject: Object.fromEntries(projects.map((p) => [p, metrics(all.filter((d) => d.r.project === p))])),
  };
}

console.log(
  `briefs ${briefs.length} in ${projects.map((p) => `${p} (${domainOf(p)})`).join(', ')}; mode ${MODE}; lambda ${LAMBDA}; budgets: false alerts ${FALSE_ALERTS}, related ${RELATED_NOISE}`,
);
const FEATURES = { markdown: wanted, tracker: trackerWanted };
console.log(
  `sameWork, leave-one-project-out (weights, floors and placement all fitted without the held-out project), features: markdown ${wanted.join(', ')}; trackers ${MODE === 'domains' ? trackerWanted.join(', ') : 'the same'}`,
);
const cv = heldOut(FEATURES);
for (const d of DOMAINS) console.log(`  out of sample ${d.padEnd(27)} ${fmt(cv.byDomain[d])}`);
console.log(`  out of sample markdown, siblings only    ${fmt(cv.bySibling)}`);

if (ablate) {
  console.log(
    'ablation (one feature left out or added, everything held out): AUC, recall, false alerts, precision at 10% of that domain',
  );
  const line = (r, d) =>
    `auc ${r.byDomain[d].auc.toFixed(3)} rec ${r.byDomain[d].recall.toFixed(3)} fa ${r.byDomain[d].falseAlerts.toFixed(3)} p10 ${r.byDomain[d].prec10.toFixed(3)}`;
  for (const d of MODE === 'domains' ? DOMAINS : ['markdown']) {
    const base = FEATURES[d];
    const other = (names) => ({ ...FEATURES, [d]: names });
    console.log(`  ${d}: all          ${line(cv, d)}`);
    for (const n of base)
      console.log(`  ${d}: - ${n.padEnd(12)} ${line(heldOut(other(base.filter((x) => x !== n)), true), d)}`);
    // A feature the save predates is left out of the trial, not the cause of an exit halfway through.
    const saved = (n) =>
      briefsOf(d).every((r) => r.history.every((c) => !c.features || Number.isFinite(c.features[n])));
    for (const n of FEATURE_NAMES.filter((x) => !base.includes(x) && !RULES.has(x) && saved(x)))
      console.log(`  ${d}: + ${n.padEnd(12)} ${line(heldOut(other([...base, n]), true), d)}`);
  }
}

const shipped = Object.fromEntries(DOMAINS.map((d) => [d, fitSameWork(briefs, d, FEATURES)]));
const sameWork = shipped.markdown;
const trackerSameWork = shipped.tracker;
const inSample = {};
for (const d of DOMAINS) {
  const m = shipped[d];
  if (!m) continue;
  console.log(
    `${d}: weights ${JSON.stringify(Object.fromEntries(Object.entries(m.features).map(([k, v]) => [k, round(v.weight)])))} intercept ${round(m.intercept)} floors ${JSON.stringify(m.floors)}`,
  );
  inSample[d] = metrics(
    decide(
      briefsOf(d).filter((r) => domainOf(r.project) === d),
      m,
      m.floors,
    ),
  );
  console.log(`  in sample ${d.padEnd(31)} ${fmt(inSample[d])}`);
}

// ---------- governs: the standards check ----------
const stdResults = governsFrom ? input(governsFrom).results : results;
const stdCases = stdResults.filter(
  (r) => r.standards && (r.standards.crossProject || r.standards.governing.length > 0),
);
const isStandardPath = (p) => /(^|\/)(adrs?|standards|decisions)\//i.test(p);
function govRows(rs) {
  const perProject = new Map();
  for (const r of rs) perProject.set(r.project, (perProject.get(r.project) ?? 0) + 1);
  return rs.flatMap((r) =>
    r.standards.candidates
      // A design beside a labelled brief may well govern it too: unknown, not a negative.
      .filter((c) => c.features && (r.standards.crossProject || c.label === 1 || isStandardPath(c.path)))
      .map((c) => ({ f: c.features, y: c.label, w: rs.length / perProject.size / perProject.get(r.project), r })),
  );
}
function govFloors(rs) {
  const cos = rs
    .flatMap((r) => r.standards.candidates.filter((c) => c.label === 1 && c.features).map((c) => c.features.cosine))
    .sort((a, b) => a - b);
  const related = cos.length ? round(cos[Math.floor(0.05 * cos.length)] - 0.02) : 0.3;
  return { related, duplicate: related };
}
function govMetrics(rs, model, fl) {
  // As src/work-memory/check/standards.ts: of the best 5 by score, those over the line, ADRs/standards before designs, the best 3.
  const attached = (r) =>
    r.standards.candidates
      .filter((c) => c.features)
      .map((c) => ({ ...c, s: score(model, c.features, fl, { duplicate: STD_LINE, related: STD_LINE }) }))
      .sort((a, b) => b.s - a.s)
      .slice(0, 5)
      // A design counts only where the history check placed it as related work (saves that record it).
      .filter((c) => c.s >= STD_LINE && c.relatedWork !== false)
      .sort((a, b) => Number(isDesign(a)) - Number(isDesign(b)) || b.s - a.s)
      .slice(0, 3);
  const lab = rs.filter((r) => !r.standards.crossProject);
  const unrel = rs.filter((r) => r.standards.crossProject);
  let att = 0;
  let ok = 0;
  let hit = 0;
  for (const r of lab) {
    const a = attached(r);
    const okSet = new Set([...r.standards.governing, ...(r.relatedPaths ?? []), ...(r.targets ?? [])]);
    att += a.length;
    ok += a.filter((c) => okSet.has(c.path)).length;
    if (a.some((c) => c.label === 1)) hit++;
  }
  return {
    labelled: lab.length,
    recall: lab.length ? hit / lab.length : NaN,
    precision: att ? ok / att : 1,
    unrelated: unrel.length,
    unrelatedNone: unrel.length ? unrel.filter((r) => attached(r).length === 0).length / unrel.length : NaN,
  };
}
let governs = null;
if (stdCases.length) {
  const stdProjects = [...new Set(stdCases.map((r) => r.project))].sort();
  const gfl = govFloors(stdCases);
  console.log(
    `governs: ${stdCases.length} briefs (${stdProjects.join(', ')}), floors ${JSON.stringify(gfl)}, line ${STD_LINE}, features ${govWanted.join(', ')}`,
  );
  for (const p of stdProjects) {
    const model = fit(govRows(stdCases.filter((r) => r.project !== p)), govWanted);
    console.log(
      `  held out ${p.padEnd(32)} ${fmt(
        govMetrics(
          stdCases.filter((r) => r.project === p),
          model,
          gfl,
        ),
      )}`,
    );
  }
  const g = fit(govRows(stdCases), govWanted);
  console.log(
    'governs, fitted on all:',
    JSON.stringify(Object.fromEntries(Object.entries(g.features).map(([k, v]) => [k, round(v.weight)]))),
    'intercept',
    round(g.intercept),
  );
  // Placed like sameWork: the largest shift at which unrelated briefs still get nothing at UNRELATED_NONE.
  const UNRELATED_NONE = SETTINGS.FIT_UNRELATED_NONE;
  const placeGoverns = (rs, model, log = false) => {
    let shift = 0;
    for (let s = 0; s <= 4.001; s += 0.25) {
      const m = govMetrics(rs, { ...model, shift: s }, gfl);
      if (log) console.log(`  shift ${s.toFixed(2)} ${fmt(m)}`);
      if (m.unrelatedNone >= UNRELATED_NONE) shift = s;
    }
    return shift;
  };
  // Held out of everything fitted, the placement included: weights and shift from the other project.
  for (const p of stdProjects) {
    const rest = stdCases.filter((r) => r.project !== p);
    const model = fit(govRows(rest), govWanted);
    const shift = placeGoverns(rest, model);
    console.log(
      `  held out, placed ${p.padEnd(24)} shift ${shift.toFixed(2)} ${fmt(
        govMetrics(
          stdCases.filter((r) => r.project === p),
          { ...model, shift },
          gfl,
        ),
      )}`,
    );
  }
  const gShift = placeGoverns(stdCases, g, true);
  governs = { intercept: g.intercept + gShift, features: g.features, floors: gfl };
  console.log(`placed: shift ${gShift}`);
  console.log(`  in-sample ${fmt(govMetrics(stdCases, governs, gfl))}`);
}

/** Every number written must be finite: JSON would write NaN as null into a number field. */
function assertFinite(m, name) {
  const nums = [
    m.intercept,
    m.floors.related,
    m.floors.duplicate,
    m.floors.lexicalDuplicate ?? 0,
    ...Object.values(m.features).flatMap((p) => [p.weight, p.mean, p.scale]),
  ];
  if (!nums.every(Number.isFinite)) {
    console.error(
      `fit-calibration: ${name} has a non-finite number (missing feature in the saved results, no positives, or a singular fit); nothing written`,
    );
    process.exit(1);
  }
}

if (write) {
  assertFinite(sameWork, 'sameWork');
  if (trackerSameWork) assertFinite(trackerSameWork, 'trackerSameWork');
  if (governs) assertFinite(governs, 'governs');
  // Named by content, from the repository's root.
  const inputs = [...files, ...(governsFrom ? [governsFrom] : []), ...(trackerFrom ? [trackerFrom] : [])].map(
    (f) => `${repoPath(f)} sha256:${input(f).digest}`,
  );
  const clean = (m) => ({
    intercept: round6(m.intercept),
    features: Object.fromEntries(
      Object.entries(m.features).map(([k, v]) => [
        k,
        { weight: round6(v.weight), mean: round6(v.mean), scale: round6(v.scale) },
      ]),
    ),
    floors: m.floors,
  });
  // Of the numbers as written (rounded to 1e-6), not the doubles: a last-bit difference elsewhere names the same version.
  const version = createHash('sha256')
    .update(
      JSON.stringify({
        sameWork: clean(sameWork),
        trackerSameWork: trackerSameWork && clean(trackerSameWork),
        governs: clean(governs ?? sameWork),
      }),
    )
    .digest('hex')
    .slice(0, 8);
  // The versions this one descends from (the build's calibration, the one being replaced) and a fingerprint of each
  // same-work model: a project's answers on an earlier version still count where their model did not change.
  const fingerprint = (m) => (m ? createHash('sha256').update(JSON.stringify(m)).digest('hex').slice(0, 8) : undefined);
  const models = (c) => ({
    sameWork: fingerprint(c.sameWork),
    ...(c.trackerSameWork ? { trackerSameWork: fingerprint(c.trackerSameWork) } : {}),
  });
  const { CALIBRATION: previous } = await import(path.join(dist, 'scoring', 'calibration-data.js'));
  // The lineage grows from the build's calibration: a build older than the source would drop the versions between.
  const target = fileURLToPath(new URL('../src/work-memory/scoring/calibration-data.ts', import.meta.url));
  const sourceVersion = /^\s*version:\s*'([0-9a-f]{8})'/m.exec(readFileSync(target, 'utf8'))?.[1];
  if (sourceVersion !== previous.version) {
    process.stderr.write(
      `fit-calibration: dist/ holds calibration ${previous.version}, src/work-memory/scoring/calibration-data.ts ${sourceVersion ?? '(no version found)'}: run \`npm run build\` first (the lineage is read from the build)\n`,
    );
    process.exit(2);
  }
  const lineage = {
    ...(previous.lineage ?? { [previous.version]: models(previous) }),
    [version]: models({ sameWork: clean(sameWork), trackerSameWork: trackerSameWork && clean(trackerSameWork) }),
  };
  // No date and no timing: the same inputs and settings give the same file (test/integration/calibration-refit.test.ts).
  const text = `// Generated by scripts/fit-calibration.mjs: do not edit by hand, refit (docs/scoring.md, "Refitting the calibration").
// Fitted on: ${inputs.join(', ')}.
// Settings: ${JSON.stringify(SETTINGS)}.
// Mode ${MODE}; features: markdown ${wanted.join(', ')}; trackers ${MODE === 'domains' ? trackerWanted.join(', ') : 'the same'}; budgets: false alerts ${FALSE_ALERTS}, related ${RELATED_NOISE}.
// OUT OF SAMPLE (each project held out of weights, floors and placement; pooled over held-out projects):
${DOMAINS.map((d) => `//   ${d}: ${fmt(cv.byDomain[d])}`).join('\n')}
//   markdown, siblings as the negatives: ${fmt(cv.bySibling)}
// In sample (fitted and asked on the same briefs; for comparison only):
${DOMAINS.filter((d) => inSample[d])
  .map((d) => `//   ${d}: ${fmt(inSample[d])}`)
  .join('\n')}
import type { Calibration } from './calibration-types.js';

export const CALIBRATION: Calibration = ${JSON.stringify({ version, fittedOn: inputs.join(', '), sameWork: clean(sameWork), ...(trackerSameWork ? { trackerSameWork: clean(trackerSameWork) } : {}), governs: clean(governs ?? sameWork), lineage }, null, 2)};
`;
  // Written as the repository formats it (the lint checks it): the same inputs give the same file, byte for byte.
  const prettier = await import('prettier');
  const out = outIdx >= 0 ? path.resolve(args[outIdx + 1]) : target;
  writeFileSync(out, await prettier.format(text, { ...(await prettier.resolveConfig(target)), filepath: target }));
  console.log(`wrote ${repoPath(out)} (version ${version})`);
}
function round6(x) {
  return Math.round(x * 1e6) / 1e6;
}
