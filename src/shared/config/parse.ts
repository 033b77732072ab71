import { DEFAULT_CONFIG, type Config } from './schema.js';
import {
  CONFIGURED_DTYPES,
  isConfiguredDtype,
  RENAMED_METHODS,
  SCORING_METHODS,
  type ScoringMethod,
} from './model-values.js';
import { globProblem, isObject, parseAttempts, parseSources, type Raw } from './parse-memories.js';

export { globProblem };

export interface ParsedConfig {
  config: Config;
  warnings: string[];
  errors: string[];
}

/**
 * Validate a parsed YAML document into a Config. Pure: no I/O, never throws.
 * Unknown keys are errors (a typo in a threshold must not be silently ignored).
 * Keys are snake_case in YAML.
 */
export function parseConfig(raw: unknown, source = '.agentos/config.yaml'): ParsedConfig {
  const errors: string[] = [];
  const warnings: string[] = [];
  const config: Config = structuredClone(DEFAULT_CONFIG);
  if (raw === null || raw === undefined) return { config, warnings, errors };
  if (!isObject(raw)) {
    return { config, warnings, errors: [`${source}: expected a mapping at the top level`] };
  }
  const r = readerOf(raw, source, errors, warnings);
  for (const k of Object.keys(raw)) {
    if (!TOP_KEYS.includes(k)) {
      r.err(
        k,
        'unknown key (allowed: corpus, sources, thresholds, history, standards, model, check, search, attempts, scoring, store)',
      );
    }
  }
  // In this order: the order of the errors a user reads.
  parseCorpus(r, config);
  parseSources(r.section('sources', ['git', 'trackers', 'github']), r.err, config);
  parseThresholds(r, config);
  parseDepths(r, config);
  parseModel(r, config);
  parseLimits(r, config);
  parseStore(r, config);
  // `attempts:` configures the attempt memory; `retrieval:`, its first name, is still read.
  const given = (v: unknown) => v !== undefined && v !== null;
  if (given(raw.attempts) && given(raw.retrieval))
    r.err('retrieval', 'given twice (also as attempts:); keep attempts:');
  else if (given(raw.retrieval)) r.warn('retrieval: is now called attempts: (still read; rename it)');
  parseAttempts(
    given(raw.retrieval) && !given(raw.attempts) ? 'retrieval' : 'attempts',
    r.section,
    r.num,
    r.err,
    config,
    r.warn,
  );
  parseScoring(r, config);
  return { config, warnings, errors };
}

/** The top-level keys (`retrieval` is the first name of `attempts`). */
const TOP_KEYS = [
  'corpus',
  'sources',
  'thresholds',
  'history',
  'standards',
  'model',
  'check',
  'search',
  'attempts',
  'retrieval',
  'scoring',
  'store',
];

/** How each section reads its values: errors and warnings named by the file and the key. */
interface Reader {
  err(key: string, problem: string): void;
  warn(message: string): void;
  /** A section's mapping (null when absent), its unknown keys reported. */
  section(name: string, allowed: string[]): Raw | null;
  globs(key: string, v: unknown): string[] | undefined;
  num(key: string, v: unknown, min: number, max: number, integer?: boolean): number | undefined;
}

function readerOf(raw: Raw, source: string, errors: string[], warnings: string[]): Reader {
  const err = (key: string, problem: string) => errors.push(`${source}: ${key}: ${problem}`);
  return {
    err,
    warn: (message) => warnings.push(`${source}: ${message}`),
    section: (name, allowed) => {
      const v = raw[name];
      if (v === undefined || v === null) return null;
      if (!isObject(v)) {
        err(name, 'expected a mapping');
        return null;
      }
      for (const k of Object.keys(v)) {
        if (!allowed.includes(k)) err(`${name}.${k}`, `unknown key (allowed: ${allowed.join(', ')})`);
      }
      return v;
    },
    globs: (key, v) => {
      if (v === undefined) return undefined;
      if (!Array.isArray(v) || v.some((g) => typeof g !== 'string' || g.trim() === '')) {
        err(key, 'expected a list of non-empty glob strings');
        return undefined;
      }
      for (const g of v as string[]) {
        const problem = globProblem(g);
        if (problem) err(key, `bad glob "${g}": ${problem}`);
      }
      return v as string[];
    },
    num: (key, v, min, max, integer = false) => {
      if (v === undefined) return undefined;
      if (typeof v !== 'number' || Number.isNaN(v) || (integer && !Number.isInteger(v))) {
        err(key, `expected ${integer ? 'an integer' : 'a number'}, got ${JSON.stringify(v)}`);
        return undefined;
      }
      if (v < min || v > max) {
        err(key, `must be between ${min} and ${max}, got ${v}`);
        return undefined;
      }
      return v;
    },
  };
}

function parseCorpus(r: Reader, config: Config): void {
  const corpus = r.section('corpus', ['standards', 'history', 'exclude', 'max_file_kb']);
  if (!corpus) return;
  config.corpus.standards = r.globs('corpus.standards', corpus.standards) ?? config.corpus.standards;
  config.corpus.history = r.globs('corpus.history', corpus.history) ?? config.corpus.history;
  config.corpus.exclude = r.globs('corpus.exclude', corpus.exclude) ?? config.corpus.exclude;
  const kb = r.num('corpus.max_file_kb', corpus.max_file_kb, 1, 1024 * 1024, true);
  if (kb !== undefined) config.corpus.maxFileBytes = kb * 1024;
}

function parseThresholds(r: Reader, config: Config): void {
  const th = r.section('thresholds', ['duplicate', 'related', 'standards']);
  if (th) {
    config.thresholds.duplicate = r.num('thresholds.duplicate', th.duplicate, 0, 1) ?? config.thresholds.duplicate;
    config.thresholds.related = r.num('thresholds.related', th.related, 0, 1) ?? config.thresholds.related;
    config.thresholds.standards = r.num('thresholds.standards', th.standards, 0, 1) ?? config.thresholds.standards;
  }
  if (!(config.thresholds.related < config.thresholds.duplicate)) {
    r.err(
      'thresholds',
      `related (${config.thresholds.related}) must be below duplicate (${config.thresholds.duplicate})`,
    );
  }
}

/** How many matches each check keeps: `history.k`, `standards.k` and `standards.candidates`. */
function parseDepths(r: Reader, config: Config): void {
  const hist = r.section('history', ['k']);
  if (hist) config.history.k = r.num('history.k', hist.k, 1, 50, true) ?? config.history.k;
  const std = r.section('standards', ['k', 'candidates']);
  if (std) {
    config.standards.k = r.num('standards.k', std.k, 1, 50, true) ?? config.standards.k;
    config.standards.candidates =
      r.num('standards.candidates', std.candidates, 1, 200, true) ?? config.standards.candidates;
    if (config.standards.candidates < config.standards.k) {
      r.warn(`standards.candidates is below standards.k; using ${config.standards.k}`);
      config.standards.candidates = config.standards.k;
    }
  }
}

function parseModel(r: Reader, config: Config): void {
  const model = r.section('model', ['dir', 'id', 'dtype']);
  if (!model) return;
  if (model.dir !== undefined) {
    if (typeof model.dir !== 'string' || model.dir === '') r.err('model.dir', 'expected a folder path');
    else config.model.dir = model.dir;
  }
  if (model.id !== undefined) {
    const problem = modelIdProblem(model.id);
    if (problem) r.err('model.id', problem);
    else config.model.id = model.id as string;
  }
  if (model.dtype !== undefined) {
    if (!isConfiguredDtype(model.dtype)) r.err('model.dtype', `expected ${CONFIGURED_DTYPES.join(', ')}`);
    else config.model.dtype = model.dtype;
  }
}

/** `check.timeout_ms`, and `search.min_score`: results below it are not listed (0.0167 is noise, not an answer). */
function parseLimits(r: Reader, config: Config): void {
  const check = r.section('check', ['timeout_ms']);
  if (check)
    config.check.timeoutMs = r.num('check.timeout_ms', check.timeout_ms, 100, 600_000, true) ?? config.check.timeoutMs;
  const search = r.section('search', ['min_score']);
  if (search) config.search.minScore = r.num('search.min_score', search.min_score, 0, 1) ?? config.search.minScore;
}

function parseStore(r: Reader, config: Config): void {
  const store = r.section('store', ['url', 'repository', 'scope', 'timeout_ms', 'publish']);
  if (!store) return;
  for (const key of ['url', 'repository'] as const) {
    const v = store[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string' || v.trim() === '') r.err(`store.${key}`, 'expected a non-empty string');
    else config.store[key] = v.trim();
  }
  if (config.store.url !== null && !/^postgres(ql)?:\/\//.test(config.store.url))
    r.err('store.url', 'expected a postgres:// or postgresql:// URL');
  else if (config.store.url !== null && urlHoldsPassword(config.store.url))
    r.warn(
      'store.url holds a password, and this file is usually committed: keep the password in ~/.pgpass or AGENTOS_DATABASE_URL',
    );
  if (store.scope !== undefined && store.scope !== null) {
    if (store.scope === 'repo' || store.scope === 'org') config.store.scope = store.scope;
    else r.err('store.scope', 'expected repo or org');
  }
  config.store.timeoutMs = r.num('store.timeout_ms', store.timeout_ms, 100, 600_000, true) ?? config.store.timeoutMs;
  if (store.publish !== undefined && store.publish !== null) {
    if (typeof store.publish === 'boolean') config.store.publish = store.publish;
    else r.err('store.publish', `expected true or false, got ${JSON.stringify(store.publish)}`);
  }
}

/** `scoring:` (issue 11): how a past document's score is computed. */
function parseScoring(r: Reader, config: Config): void {
  const scoring = r.section('scoring', ['method']);
  if (!scoring || scoring.method === undefined) return;
  const renamed = typeof scoring.method === 'string' ? RENAMED_METHODS[scoring.method] : undefined;
  if (renamed) {
    r.warn(`scoring.method: ${scoring.method as string} is now called ${renamed} (still read; rename it)`);
    config.scoring.method = renamed;
  } else if (!(SCORING_METHODS as readonly unknown[]).includes(scoring.method))
    r.err('scoring.method', `expected ${SCORING_METHODS.join(', ')}, got ${JSON.stringify(scoring.method)}`);
  else config.scoring.method = scoring.method as ScoringMethod;
}

/**
 * The model id becomes part of a path (`<model dir>/<owner>/<name>/`): only
 * `owner/name` with plain name characters, never `.`/`..` or an absolute path.
 */
export function modelIdProblem(id: unknown): string | null {
  if (typeof id !== 'string') return 'expected "owner/name"';
  const parts = id.split('/');
  if (id.startsWith('/') || /^[A-Za-z]:[\\/]/.test(id)) return `expected "owner/name", got an absolute path "${id}"`;
  if (parts.length !== 2) return `expected "owner/name", got "${id}"`;
  for (const p of parts) {
    if (p === '.' || p === '..') return `expected "owner/name", got "${id}" (contains "${p}")`;
    if (!/^[A-Za-z0-9][\w.-]{0,95}$/.test(p))
      return `expected "owner/name" of letters, digits, ".", "_" and "-", got "${id}"`;
  }
  return null;
}

/** A URL with a password in its user part or a password= parameter. */
function urlHoldsPassword(url: string): boolean {
  try {
    const u = new URL(url);
    return u.password !== '' || [...u.searchParams.keys()].some((k) => /pass/i.test(k));
  } catch {
    return false;
  }
}
