/**
 * The config's sections about what the two memories read (parse.ts parses the rest): `sources:`,
 * completed work from git history and tracker exports, and `attempts:`, the attempt memory.
 */
import { createRequire } from 'node:module';
import type picomatchType from 'picomatch';
import type { Config } from './schema.js';

export type Raw = Record<string, unknown>;

export const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `sources:` (src/work-memory/sources): git history and tracker exports as completed work. */
export function parseSources(sec: Raw | null, err: (key: string, problem: string) => void, config: Config): void {
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
 * `attempts:` (the attempt memory; `retrieval:` before). Keys are spelled as issue 9
 * and the PRD spell them (camelCase); the snake_case spelling of the rest of the file
 * is accepted too. Errors name the key as the file spells it.
 */
export function parseAttempts(
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
