import { DEFAULT_DTYPE, type ConfiguredDtype, type ScoringMethod } from './model-values.js';
/** The shape of `.agentos/config.yaml` after validation, with defaults applied. */
export interface Config {
  corpus: {
    /** Globs (repo-relative, matched case-insensitively) of standing decisions. */
    standards: string[];
    /** Globs of completed work, indexed with `--include-history`. */
    history: string[];
    /** Globs never indexed, whatever else matches. */
    exclude: string[];
    /** Files larger than this are skipped with a warning. */
    maxFileBytes: number;
  };
  thresholds: {
    /** Top score at or above this raises the duplicate alert. */
    duplicate: number;
    /** Top score at or above this (and below `duplicate`) adds related context. */
    related: number;
    /** Standards at or above this are attached as relevant standards. */
    standards: number;
  };
  history: { k: number };
  /** Completed work that does not live in files (src/work-memory/sources), indexed with history. */
  sources: {
    git: {
      /** The default branch's first-parent history: one document per pull request or commit. */
      enabled: boolean;
      /** The branch to read; null: the remote's default branch, else main/master, else HEAD. */
      branch: string | null;
      /** Further subject patterns (regular expressions) whose commits are not work. */
      excludeSubjects: string[];
      /** Further author name or e-mail patterns whose commits are not work. */
      excludeAuthors: string[];
    };
    /** Tracker exports (repo-relative): `gh issue|pr list --json …` arrays or JSON lines. */
    trackers: string[];
    /** `agentos index` fetches closed issues and merged pull requests through the GitHub CLI (`gh`). */
    github: boolean;
  };
  standards: { k: number; candidates: number };
  model: {
    /** Folder holding `<model id>/` (tokenizer, config, onnx/). Offline when set. */
    dir: string | null;
    id: string;
    /** `auto`: int8 where provisioning built it, else q8. */
    dtype: ConfiguredDtype;
  };
  check: {
    /** The history check gives up (and fails open) after this long. */
    timeoutMs: number;
  };
  search: {
    /** `agentos search` lists nothing below this score (`search.min_score`, `--min-score`). */
    minScore: number;
  };
  /** The team store (PostgreSQL + pgvector, src/shared/team-store); unused while no URL is set. */
  store: {
    /** `postgres://…`; AGENTOS_DATABASE_URL wins. Credentials only here, in the environment or PGPASSFILE. */
    url: string | null;
    /** This repository's name in the team store (default: its git remote; never the folder's name). */
    repository: string | null;
    /** What `issue start` and `search` compare with by default: this repository, or every repository in the store (`--scope`). */
    scope: 'repo' | 'org';
    /** Longest wait for the server, per connection and per statement (ms). */
    timeoutMs: number;
    /** This repository's index goes to the store (after `index`, and by `store sync`) only when its config says so: a URL alone never uploads. */
    publish: boolean;
  };
  /** Attempt memory (src/attempts): what was tried, repeat-failure warnings, session context. */
  attempts: {
    /** Record attempts and warn; false: `run` just runs, `attempt record` writes nothing. */
    enabled: boolean;
    /** Warn (and at a TTY ask) before a command that resembles a recent failure. */
    warnOnDuplicateFailure: boolean;
    /** Only failures this recent count for warnings. */
    failureLookbackDays: number;
    /** Failures older than this are archived: kept, never used for warnings. */
    archiveAfterDays: number;
    /** Similarity (0..1) at or above which a past failure is raised. */
    repeatThreshold: number;
    /** Most characters of attempt history injected into a session's context (recall, hooks). */
    maxContextSize: number;
    /** Hooks inject what the project learned at session start. */
    autoInject: boolean;
    /** `org`: every attempt also goes to the team store (redacted here first), and the team's come back as warnings. */
    scope: 'repo' | 'org';
  };
  /** How similarity is scored: the calibrated probability (default), the issue-11 fused score, or the cosine alone. */
  scoring: { method: ScoringMethod };
}

export const DEFAULT_CONFIG: Config = {
  corpus: {
    standards: [
      'docs/adrs/**/*.md',
      'docs/adr/**/*.md',
      'docs/standards/**/*.md',
      'docs/LLDs/done/*.md',
      'docs/lld/done/*.md',
    ],
    history: [
      'docs/audit/done/*/001-issue.md',
      // Issue folders of revisions: one document per folder is kept (src/work-memory/corpus/layouts.ts).
      'docs/audit/done/*/001-brief.md',
      'docs/audit/done/*/[0-9][0-9][0-9]-draft.md',
      'docs/lineage/done/*/001-issue.md',
      'docs/lineage/done/*/001-brief.md',
      'docs/LLDs/done/*.md',
      'docs/lld/done/*.md',
    ],
    exclude: [],
    maxFileBytes: 1024 * 1024,
  },
  thresholds: { duplicate: 0.85, related: 0.5, standards: 0.5 },
  history: { k: 3 },
  sources: {
    git: { enabled: false, branch: null, excludeSubjects: [], excludeAuthors: [] },
    trackers: [],
    github: false,
  },
  standards: { k: 3, candidates: 5 },
  model: { dir: null, id: 'Xenova/all-MiniLM-L6-v2', dtype: DEFAULT_DTYPE },
  check: { timeoutMs: 30_000 },
  search: { minScore: 0.3 },
  store: { url: null, repository: null, scope: 'repo', timeoutMs: 5000, publish: false },
  attempts: {
    enabled: true,
    warnOnDuplicateFailure: true,
    failureLookbackDays: 7,
    archiveAfterDays: 30,
    repeatThreshold: 0.85,
    maxContextSize: 2000,
    autoInject: true,
    scope: 'repo',
  },
  scoring: { method: 'calibrated' },
};
