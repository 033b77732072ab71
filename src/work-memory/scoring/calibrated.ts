/**
 * The calibrated score (issue 20): the probability that a past document is
 * the same work as the brief (`sameWork`), or that a standard governs it
 * (`governs`), from the features of features.ts through a logistic model
 * fitted by scripts/fit-calibration.mjs on the development sets. The fitted
 * numbers are data (calibration-data.ts, versioned, with what they were
 * fitted on); this module only applies them and explains the result.
 *
 * Absolute evidence is required whatever the other features say: below
 * `floors.related` cosine the score is held under the related line, below
 * `floors.duplicate` cosine or `floors.lexicalDuplicate` lexical share under
 * the duplicate line; when one text names the other as related work
 * (`namedRelated`), under the duplicate line too. Relative features (how
 * far a match stands out) cannot make a moderate match in a small corpus
 * look like the same work. One rule raises a score: when the brief and the
 * past work state the same issue as their own (`sameIssue`), it is that
 * issue's work, done before (a re-run of the issue, a reopened one): at
 * least the duplicate line above the duplicate floor, at least the related
 * line above the related floor.
 */
import { CALIBRATION } from './calibration-data.js';
import { COMMIT_SAME_WORK } from './commit-calibration-data.js';
import type { LogisticModel } from './calibration-types.js';
import { FEATURE_NAMES, type FeatureName, type Features } from './features.js';

export type { LogisticModel };

export interface Explained {
  /** Calibrated probability, after the semantic floors. */
  score: number;
  /** The model's probability before the floors. */
  probability: number;
  /** Each feature's contribution to the log-odds, relative to an average candidate of the fit. */
  contributions: Partial<Record<FeatureName, number>>;
  /** Set when a semantic floor held the score down. */
  cappedBy: 'related-floor' | 'duplicate-floor' | 'named-related' | null;
  /** Set when both texts state the same issue (and clear the related floor): the score is then at least the related line, and the duplicate line above the duplicate floor. */
  raisedBy: 'same-issue' | null;
  /** The line the raise holds the score at or above (0 when nothing raised it). */
  raisedTo: number;
}

/** Just below a line: a capped score must never reach the band its evidence does not support. */
const BELOW = 1e-4;

export function logit(
  model: LogisticModel,
  f: Features,
): { z: number; contributions: Partial<Record<FeatureName, number>> } {
  let z = model.intercept;
  const contributions: Partial<Record<FeatureName, number>> = {};
  for (const name of FEATURE_NAMES) {
    const p = model.features[name];
    if (!p || p.weight === 0) continue;
    const c = (p.weight * (f[name] - p.mean)) / p.scale;
    contributions[name] = c;
    z += c;
  }
  return { z, contributions };
}

export const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** Score one candidate with a model and the lines its floors protect. */
export function calibratedScore(
  model: LogisticModel,
  f: Features,
  lines: { duplicate: number; related: number },
): Explained {
  const { z, contributions } = logit(model, f);
  const probability = sigmoid(z);
  let score = probability;
  let cappedBy: Explained['cappedBy'] = null;
  let raisedBy: Explained['raisedBy'] = null;
  let raisedTo = 0;
  if (f.cosine < model.floors.related) {
    if (score >= lines.related - BELOW) {
      score = Math.max(0, lines.related - BELOW);
      cappedBy = 'related-floor';
    }
  } else if (f.namedRelated === 1) {
    // One text names the other as related, prerequisite or followed-up work: siblings, never copies.
    // It goes before the same issue: a text that both states an issue and names it as other work says nothing sure.
    if (score >= lines.duplicate - BELOW) {
      score = lines.duplicate - BELOW;
      cappedBy = 'named-related';
    }
  } else if (f.sameIssue === 1) {
    // A re-run or re-filing of the same issue: its texts may have drifted apart (retitled, rescoped), its id has not.
    // The floors still say how far: an alert needs the alert floor's semantic evidence, related work the related floor's.
    raisedBy = 'same-issue';
    raisedTo = f.cosine >= model.floors.duplicate ? lines.duplicate : lines.related;
    if (raisedTo === lines.related && score >= lines.duplicate - BELOW) {
      score = lines.duplicate - BELOW;
      cappedBy = 'duplicate-floor';
    } else score = Math.max(score, raisedTo);
  } else if (
    (f.cosine < model.floors.duplicate ||
      f.lexBrief < (model.floors.lexicalDuplicate ?? 0) ||
      f.rareCover < (model.floors.rareDuplicate ?? 0)) &&
    score >= lines.duplicate - BELOW
  ) {
    score = lines.duplicate - BELOW;
    cappedBy = 'duplicate-floor';
  }
  return { score, probability, contributions, cappedBy, raisedBy, raisedTo };
}

export const sameWorkModel = (): LogisticModel => CALIBRATION.sameWork;
/** Reports from a tracker's export: the same features, their own floors and lines (docs/scoring.md). */
export const trackerSameWorkModel = (): LogisticModel => CALIBRATION.trackerSameWork ?? CALIBRATION.sameWork;
/** Fitted by bench/git-dev-eval.mjs --fit on a real git history and hand-written briefs (docs/scoring.md). */
export const commitSameWorkModel = (): LogisticModel => COMMIT_SAME_WORK;
export const governsModel = (): LogisticModel => CALIBRATION.governs;
export const calibrationVersion = (): string => CALIBRATION.version;

/** A tracker's report (the trackers' model scores it): an export's record or a GitHub issue, in this repository or another's (`<repository>:` before it). */
export const isTrackerReport = (filePath: string): boolean => /(?:^|:)(?:tracker:|github:issue\/)/.test(filePath);

/**
 * Whether the model that scores `filePath` is the same in calibration `version` as today (calibration-data.ts
 * `lineage`): a tracker's report (`tracker:…`, `github:issue/…`) is scored by the trackers' model, a commit
 * (`git:…`) by a model no calibration version covers, anything else by the same-work model.
 */
export function sameModelAs(version: string, filePath: string): boolean {
  const then = CALIBRATION.lineage?.[version];
  const now = CALIBRATION.lineage?.[CALIBRATION.version];
  // A commit's model is not part of a calibration version: its answers count on the same version only.
  if (!then || !now || /(?:^|:)git:/.test(filePath)) return version === CALIBRATION.version;
  // Another repository's (org scope) keeps its own path after `<repository>:`.
  const model = isTrackerReport(filePath) ? 'trackerSameWork' : 'sameWork';
  return then[model] !== undefined && then[model] === now[model];
}

const PHRASES: Record<FeatureName, (f: Features, shared: string[]) => string> = {
  cosine: (f) => `close in meaning (best passage cosine ${f.cosine.toFixed(2)})`,
  cosineMean: (f) => `similar as a whole (cosine ${f.cosineMean.toFixed(2)})`,
  lexBrief: (f) => `shares ${Math.round(f.lexBrief * 100)}% of the brief's weighted terms`,
  lexDoc: (f) => `the brief uses ${Math.round(f.lexDoc * 100)}% of its vocabulary`,
  title: (f) => `titles overlap (${Math.round(f.title * 100)}%)`,
  titleCover: (f) => `the brief is about its subject (${Math.round(f.titleCover * 100)}% of its title's words)`,
  identifiers: (_f, shared) => `names the same things (${shared.slice(0, 3).join(', ')})`,
  standout: (f) => `stands out from the brief's other neighbours (+${f.standout.toFixed(2)})`,
  gap: (f) => `ahead of the next past work (cosine +${f.gap.toFixed(2)})`,
  corpusDocs: () => 'project size',
  briefTerms: () => 'brief length',
  docChunks: () => 'document length',
  rareCover: (f) => `has ${Math.round(f.rareCover * 100)}% of the brief's most distinctive terms`,
  docRareCover: (f) => `the brief has ${Math.round(f.docRareCover * 100)}% of its most distinctive terms`,
  namedRelated: () => 'named as related work',
  sameIssue: () => "the brief's own issue",
  neighbourGap: (f) => `closer to the brief than to any other past work (cosine +${f.neighbourGap.toFixed(2)})`,
  filedNear: (f) => `filed nearer the brief than ${Math.round(f.filedNear * 100)}% of the other reports found`,
};

/** What must hold for a phrase to be true of the candidate (a push up relative to the fit's mean is not enough). */
const SUPPORTS: Partial<Record<FeatureName, (f: Features, shared: string[]) => boolean>> = {
  gap: (f) => f.gap > 0,
  standout: (f) => f.standout > 0,
  title: (f) => f.title > 0,
  titleCover: (f) => f.titleCover > 0,
  identifiers: (_f, shared) => shared.length > 0,
  lexBrief: (f) => f.lexBrief > 0,
  rareCover: (f) => f.rareCover > 0,
  docRareCover: (f) => f.docRareCover > 0,
  neighbourGap: (f) => f.neighbourGap > 0,
  filedNear: (f) => f.filedNear > 0.5,
  namedRelated: () => false,
  sameIssue: () => false,
};

/**
 * The evidence in words: the features that pushed the score up most, strongest
 * first. Only positive-weight features whose value says what the phrase says:
 * "ahead of the next candidate" is never printed for a candidate behind it.
 */
export function whyInWords(e: Explained, f: Features, shared: string[], model?: LogisticModel, most = 3): string[] {
  // The same issue is a fact both texts state, not a weighed feature: it leads wherever it held.
  const stated = e.raisedBy === 'same-issue' ? [PHRASES.sameIssue(f, shared)] : [];
  const weighed = (Object.entries(e.contributions) as Array<[FeatureName, number]>)
    .filter(([name, c]) => c > 0.25 && !['corpusDocs', 'briefTerms', 'docChunks'].includes(name))
    .filter(([name]) => (model?.features[name]?.weight ?? 1) > 0 && (SUPPORTS[name]?.(f, shared) ?? true))
    .sort((a, b) => b[1] - a[1])
    .map(([name]) => PHRASES[name](f, shared));
  return [...stated, ...weighed].slice(0, most);
}
