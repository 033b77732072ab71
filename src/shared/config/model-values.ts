/**
 * The words the config file uses for the model and the scoring (model.dtype,
 * scoring.method). They live with the config, below the modules that act on
 * them (src/embeddings, src/scoring), so that the config never imports upward.
 */

/**
 * `int8`: dynamically quantized (int8 GEMM), built locally by provisioning.
 * `q8`: int8 stored, fp32 computed (the hub's export). `fp32`: full precision.
 */
export type ModelDtype = 'int8' | 'q8' | 'fp32';
export const MODEL_DTYPES: readonly ModelDtype[] = ['int8', 'q8', 'fp32'];

/**
 * What `model.dtype` may say: a dtype, or `auto` (the default): the int8 file
 * where provisioning built it, else q8 — what `agentos model fetch` can get.
 */
export type ConfiguredDtype = ModelDtype | 'auto';
export const CONFIGURED_DTYPES: readonly ConfiguredDtype[] = ['auto', ...MODEL_DTYPES];
export const DEFAULT_DTYPE: ConfiguredDtype = 'auto';

export function isConfiguredDtype(v: unknown): v is ConfiguredDtype {
  return typeof v === 'string' && (CONFIGURED_DTYPES as readonly string[]).includes(v);
}

/**
 * `calibrated` (default): the calibrated probability of src/work-memory/scoring/calibrated.ts (issue 20);
 *   its first name, `hybrid`, is still read, with a warning.
 * `fused`: the issue-11 score (src/work-memory/scoring/fused.ts), kept to compare against; its first name,
 *   `standout`, is still read, with a warning (the word names how far a candidate stands above the others).
 * `cosine`: the best-chunk cosine alone.
 */
export type ScoringMethod = 'calibrated' | 'fused' | 'cosine';
export const SCORING_METHODS: readonly ScoringMethod[] = ['calibrated', 'fused', 'cosine'];
/** Earlier names of a scoring method, still read (config, `--method`) with a warning: each says what it is now. */
export const RENAMED_METHODS: Readonly<Record<string, ScoringMethod>> = { hybrid: 'calibrated', standout: 'fused' };
