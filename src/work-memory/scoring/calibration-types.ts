import type { FeatureName } from './features.js';

/** A fitted logistic model over the features of features.ts (calibrated.ts applies it). */
export interface LogisticModel {
  intercept: number;
  /** Weight per standardised feature: contribution = weight * (value - mean) / scale. */
  features: Partial<Record<FeatureName, { weight: number; mean: number; scale: number }>>;
  /**
   * Best-passage cosine below which the score is held under the related (or duplicate) line;
   * `lexicalDuplicate`: the share of the brief's weighted terms below which it is held under the
   * duplicate line (a topic in common is not the same work).
   */
  floors: { related: number; duplicate: number; lexicalDuplicate?: number };
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
}
