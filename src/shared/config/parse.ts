import { createRequire } from 'node:module';
import type picomatchType from 'picomatch';
import { DEFAULT_CONFIG, type Config } from './schema.js';
import { CONFIGURED_DTYPES, isConfiguredDtype, SCORING_METHODS, type ScoringMethod } from './model-values.js';

export interface ParsedConfig {
  config: Config;
  warnings: string[];
  errors: string[];
}

type Raw = Record<string, unknown>;

const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

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

  const err = (key: string, problem: string) => errors.push(`${source}: ${key}: ${problem}`);

  const section = (name: string, allowed: string[]): Raw | null => {
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
  };

  const globs = (key: string, v: unknown): string[] | undefined => {
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
  };

  const num = (key: string, v: unknown, min: number, max: number, integer = false): number | undefined => {
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
  };

  for (const k of Object.keys(raw)) {
    if (
      ![
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
      ].includes(k)
    ) {
      err(
        k,
        'unknown key (allowed: corpus, sources, thresholds, history, standards, model, check, search, attempts, scoring, store)',
      );
    }
  }

  const corpus = section('corpus', ['standards', 'history', 'exclude', 'max_file_kb']);
  if (corpus) {
    config.corpus.standards = globs('corpus.standards', corpus.standards) ?? config.corpus.standards;
    config.corpus.history = globs('corpus.history', corpus.history) ?? config.corpus.history;
    config.corpus.exclude = globs('corpus.exclude', corpus.exclude) ?? config.corpus.exclude;
    const kb = num('corpus.max_file_kb', corpus.max_file_kb, 1, 1024 * 1024, true);
    if (kb !== undefined) config.corpus.maxFileBytes = kb * 1024;
  }

  parseSources(section('sources', ['git', 'trackers', 'github']), err, config);

  const th = section('thresholds', ['duplicate', 'related', 'standards']);
  if (th) {
    config.thresholds.duplicate = num('thresholds.duplicate', th.duplicate, 0, 1) ?? config.thresholds.duplicate;
    config.thresholds.related = num('thresholds.related', th.related, 0, 1) ?? config.thresholds.related;
    config.thresholds.standards = num('thresholds.standards', th.standards, 0, 1) ?? config.thresholds.standards;
  }
  if (!(config.thresholds.related < config.thresholds.duplicate)) {
    err(
      'thresholds',
      `related (${config.thresholds.related}) must be below duplicate (${config.thresholds.duplicate})`,
    );
  }

  const hist = section('history', ['k']);
  if (hist) config.history.k = num('history.k', hist.k, 1, 50, true) ?? config.history.k;

  const std = section('standards', ['k', 'candidates']);
  if (std) {
    config.standards.k = num('standards.k', std.k, 1, 50, true) ?? config.standards.k;
    config.standards.candidates =
      num('standards.candidates', std.candidates, 1, 200, true) ?? config.standards.candidates;
    if (config.standards.candidates < config.standards.k) {
      warnings.push(`${source}: standards.candidates is below standards.k; using ${config.standards.k}`);
      config.standards.candidates = config.standards.k;
    }
  }

  const model = section('model', ['dir', 'id', 'dtype']);
  if (model) {
    if (model.dir !== undefined) {
      if (typeof model.dir !== 'string' || model.dir === '') err('model.dir', 'expected a folder path');
      else config.model.dir = model.dir;
    }
    if (model.id !== undefined) {
      const problem = modelIdProblem(model.id);
      if (problem) err('model.id', problem);
      else config.model.id = model.id as string;
    }
    if (model.dtype !== undefined) {
      if (!isConfiguredDtype(model.dtype)) err('model.dtype', `expected ${CONFIGURED_DTYPES.join(', ')}`);
      else config.model.dtype = model.dtype;
    }
  }

  const check = section('check', ['timeout_ms']);
  if (check)
    config.check.timeoutMs = num('check.timeout_ms', check.timeout_ms, 100, 600_000, true) ?? config.check.timeoutMs;

  // `agentos search`: results below this score are not listed (0.0167 is noise, not an answer).
  const search = section('search', ['min_score']);
  if (search) config.search.minScore = num('search.min_score', search.min_score, 0, 1) ?? config.search.minScore;
  const store = section('store', ['url', 'repository', 'scope', 'timeout_ms', 'publish']);
  if (store) {
    for (const key of ['url', 'repository'] as const) {
      const v = store[key];
      if (v === undefined || v === null) continue;
      if (typeof v !== 'string' || v.trim() === '') err(`store.${key}`, 'expected a non-empty string');
      else config.store[key] = v.trim();
    }
    if (config.store.url !== null && !/^postgres(ql)?:\/\//.test(config.store.url))
      err('store.url', 'expected a postgres:// or postgresql:// URL');
    else if (config.store.url !== null && urlHoldsPassword(config.store.url))
      warnings.push(
        `${source}: store.url holds a password, and this file is usually committed: keep the password in ~/.pgpass or AGENTOS_DATABASE_URL`,
      );
    if (store.scope !== undefined && store.scope !== null) {
      if (store.scope === 'repo' || store.scope === 'org') config.store.scope = store.scope;
      else err('store.scope', 'expected repo or org');
    }
    config.store.timeoutMs = num('store.timeout_ms', store.timeout_ms, 100, 600_000, true) ?? config.store.timeoutMs;
    if (store.publish !== undefined && store.publish !== null) {
      if (typeof store.publish === 'boolean') config.store.publish = store.publish;
      else err('store.publish', `expected true or false, got ${JSON.stringify(store.publish)}`);
    }
  }
  // `attempts:` configures the attempt memory; `retrieval:`, its first name, is still read.
  const r = raw as Raw;
  const given = (v: unknown) => v !== undefined && v !== null;
  if (given(r.attempts) && given(r.retrieval)) err('retrieval', 'given twice (also as attempts:); keep attempts:');
  else if (given(r.retrieval)) warnings.push(`${source}: retrieval: is now called attempts: (still read; rename it)`);
  parseAttempts(given(r.retrieval) && !given(r.attempts) ? 'retrieval' : 'attempts', section, num, err, config, (w) =>
    warnings.push(`${source}: ${w}`),
  );

  // scoring (issue 11): how a past document's similarity is computed.
  const scoring = section('scoring', ['method']);
  if (scoring && scoring.method !== undefined) {
    if (scoring.method === 'hybrid') {
      warnings.push(`${source}: scoring.method: hybrid is now called calibrated (still read; rename it)`);
      config.scoring.method = 'calibrated';
    } else if (!(SCORING_METHODS as readonly unknown[]).includes(scoring.method))
      err('scoring.method', `expected ${SCORING_METHODS.join(', ')}, got ${JSON.stringify(scoring.method)}`);
    else config.scoring.method = scoring.method as ScoringMethod;
  }

  return { config, warnings, errors };
}

/** `sources:` (src/work-memory/sources): git history and tracker exports as completed work. */
function parseSources(sec: Raw | null, err: (key: string, problem: string) => void, config: Config): void {
  if (!sec) return;
  const g = config.sources.git;
  const gitRaw = sec.git;
  if (typeof gitRaw === 'boolean') g.enabled = gitRaw;
  else if (isObject(gitRaw)) {
    const allowed = ['enabled', 'branch', 'exclude_subjects', 'exclude_authors'];
    for (const k of Object.keys(gitRaw))
      if (!allowed.includes(k)) err(`sources.git.${k}`, `unknown key (allowed: ${allowed.join(', ')})`);
    g.enabled = true;
    if (gitRaw.enabled !== undefined) {
      if (typeof gitRaw.enabled !== 'boolean')
        err('sources.git.enabled', `expected true or false, got ${JSON.stringify(gitRaw.enabled)}`);
      else g.enabled = gitRaw.enabled;
    }
    if (gitRaw.branch !== undefined && gitRaw.branch !== null) {
      // Passed to git as a revision: never something git would read as an option.
      if (
        typeof gitRaw.branch !== 'string' ||
        !/^[\w][\w./-]{0,199}$/.test(gitRaw.branch) ||
        gitRaw.branch.includes('..')
      )
        err('sources.git.branch', 'expected a branch name (letters, digits, "/", ".", "_", "-")');
      else g.branch = gitRaw.branch;
    }
    for (const [key, field] of [
      ['exclude_subjects', 'excludeSubjects'],
      ['exclude_authors', 'excludeAuthors'],
    ] as const) {
      const v = gitRaw[key];
      if (v === undefined || v === null) continue;
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || x === '')) {
        err(`sources.git.${key}`, 'expected a list of regular expressions');
        continue;
      }
      for (const re of v as string[]) {
        try {
          new RegExp(re, 'i');
        } catch (e) {
          err(`sources.git.${key}`, `bad regular expression "${re}": ${(e as Error).message}`);
        }
      }
      g[field] = v as string[];
    }
  } else if (gitRaw !== undefined && gitRaw !== null)
    err('sources.git', 'expected true, false or a mapping (enabled, branch, exclude_subjects, exclude_authors)');
  if (sec.github !== undefined && sec.github !== null) {
    if (typeof sec.github !== 'boolean')
      err('sources.github', `expected true or false, got ${JSON.stringify(sec.github)}`);
    else config.sources.github = sec.github;
  }
  const t = sec.trackers;
  if (t !== undefined && t !== null) {
    if (!Array.isArray(t) || t.some((x) => typeof x !== 'string' || x.trim() === ''))
      err('sources.trackers', 'expected a list of export file paths');
    else {
      for (const p of t as string[]) {
        const problem = globProblem(p);
        if (problem || /[*?[\]{}]/.test(p))
          err('sources.trackers', `bad path "${p}": ${problem ?? 'a file path, not a glob'}`);
      }
      config.sources.trackers = t as string[];
    }
  }
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

/**
 * `attempts:` (the attempt memory; `retrieval:` before). Keys are spelled as issue 9
 * and the PRD spell them (camelCase); the snake_case spelling of the rest of the file
 * is accepted too. Errors name the key as the file spells it.
 */
function parseAttempts(
  name: 'attempts' | 'retrieval',
  section: (name: string, allowed: string[]) => Raw | null,
  num: (key: string, v: unknown, min: number, max: number, integer?: boolean) => number | undefined,
  err: (key: string, problem: string) => void,
  config: Config,
  warn: (message: string) => void,
): void {
  const keys = {
    enabled: 'enabled',
    warnOnDuplicateFailure: 'warn_on_duplicate_failure',
    failureLookbackDays: 'failure_lookback_days',
    archiveAfterDays: 'archive_after_days',
    repeatThreshold: 'repeat_threshold',
    maxContextSize: 'max_context_size',
    autoInject: 'auto_inject',
    scope: 'scope',
  } as const;
  const sec = section(name, [...new Set([...Object.keys(keys), ...Object.values(keys)])]);
  if (!sec) return;
  const r = config.attempts;
  // snake_case like every other section; the camelCase of issue 9 is still read, with a warning.
  const pick = (camel: keyof typeof keys): [string, unknown] => {
    const snake = keys[camel];
    if (snake !== camel && sec[camel] !== undefined && sec[snake] !== undefined) {
      err(`${name}.${snake}`, `given twice (also as ${camel})`);
    }
    if (snake !== camel && sec[camel] !== undefined && sec[snake] === undefined)
      warn(`${name}.${camel} is now spelled ${snake} (still read; rename it)`);
    return sec[snake] !== undefined ? [`${name}.${snake}`, sec[snake]] : [`${name}.${camel}`, sec[camel]];
  };
  const bool = (camel: 'enabled' | 'warnOnDuplicateFailure' | 'autoInject') => {
    const [key, v] = pick(camel);
    if (v === undefined) return;
    if (typeof v !== 'boolean') err(key, `expected true or false, got ${JSON.stringify(v)}`);
    else r[camel] = v;
  };
  bool('enabled');
  bool('warnOnDuplicateFailure');
  bool('autoInject');
  const [scopeKey, scope] = pick('scope');
  if (scope !== undefined && scope !== null) {
    // repo | org, as store.scope says it; `local` (the first word for repo) is still read.
    if (scope === 'repo' || scope === 'org') r.scope = scope;
    else if (scope === 'local') {
      r.scope = 'repo';
      warn(`${scopeKey}: local is now called repo, as in store.scope (still read; rename it)`);
    } else err(scopeKey, `expected repo or org, got ${JSON.stringify(scope)}`);
  }
  r.failureLookbackDays = num(...pick('failureLookbackDays'), 1, 3650, true) ?? r.failureLookbackDays;
  r.archiveAfterDays = num(...pick('archiveAfterDays'), 1, 36500, true) ?? r.archiveAfterDays;
  r.repeatThreshold = num(...pick('repeatThreshold'), 0.01, 1) ?? r.repeatThreshold;
  r.maxContextSize = num(...pick('maxContextSize'), 100, 1_000_000, true) ?? r.maxContextSize;
  if (r.failureLookbackDays > r.archiveAfterDays) {
    err(
      name,
      `failure_lookback_days (${r.failureLookbackDays}) must not exceed archive_after_days (${r.archiveAfterDays}): archived failures never warn`,
    );
  }
}

/** Why a glob is unusable for repo-relative matching, or null when fine. */
export function globProblem(glob: string): string | null {
  if (glob.startsWith('/') || /^[A-Za-z]:[\\/]/.test(glob)) return 'must be relative to the repository root';
  if (glob.split('/').includes('..')) return 'must not leave the repository (contains "..")';
  if (glob.includes('\\')) return 'use "/" as the path separator';
  let depth = 0;
  for (const ch of glob) {
    if (ch === '[' || ch === '{') depth++;
    if (ch === ']' || ch === '}') depth--;
    if (depth < 0) return 'unbalanced brackets';
  }
  if (depth !== 0) return 'unbalanced brackets';
  try {
    // Loaded only when a config names globs: `attempt check` and `run` start without it.
    (createRequire(import.meta.url)('picomatch') as typeof picomatchType).makeRe(glob);
  } catch (e) {
    return (e as Error).message;
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
