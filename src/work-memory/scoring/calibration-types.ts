import type { FeatureName } from './features.js';

/** A fitted logistic model over the features of features.ts (calibrated.ts applies it). */
export interface LogisticModel {
  intercept: number;
  /** Weight per standardised feature: contribution = weight * (value - mean) / scale. */
  features: Partial<Record<FeatureName, { weight: number; mean: number; scale: number }>>;
  /**
   * Best-passage cosine below which the score is held under the related (or duplicate) line;
   * `lexicalDuplicate`: the share of the brief's weighted terms below which it is held under the
   * duplicate line (a topic in common is not the same work); `rareDuplicate`: the share of the
   * brief's most distinctive terms (IDF-weighted, `rareCover`) the work must hold to alert (a
   * sibling of merged work, "the same for GitLab", lacks the brief's own words: issue 46).
   */
  floors: { related: number; duplicate: number; lexicalDuplicate?: number; rareDuplicate?: number };
}

/** The fitted numbers scripts/fit-calibration.mjs writes to calibration-data.ts. */
export interface Calibration {
  /** A hash of the numbers: reports and recorded answers name the scale they were made on. */
  version: string;
  /** The saved eval results the fit read, with their SHA-256. */
  fittedOn: string;
  /** Same work in a project's own files (markdown issues, designs). */
  sameWork: LogisticModel;
  /** Same work in a tracker's reports (sources.trackers, GitHub issues): placed on its own (issue 29). */
  trackerSameWork?: LogisticModel;
  governs: LogisticModel;
  /**
   * Each calibration version this one descends from, itself included, with a fingerprint of its
   * same-work models (fit-calibration.mjs): an answer given on an earlier version still places the
   * project's lines where the model that scored it has not changed since (a refit of the trackers'
   * model leaves a markdown project's labels on their scale).
   */
  lineage?: Record<string, { sameWork: string; trackerSameWork?: string }>;
}
