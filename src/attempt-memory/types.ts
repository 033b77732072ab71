/**
 * The attempt memory: what agents and people tried (commands, errors, what
 * worked instead). This file is the contract between the attempt memory (SQLite, sqlite-memory.ts) and its readers (`run`, `attempt`, hooks,
 * `recall`, `worked-on`). Keep it small; add fields, do not rename them.
 */
/**
 * `unknown`: the agent ran it but did not say how it went (Codex gives PostToolUse the
 * command's output with no exit status). Never a failure to warn about, never what
 * worked instead, never overrides a failure.
 */
export const OUTCOMES = ['success', 'failure', 'unknown'] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const isOutcome = (v: unknown): v is Outcome => (OUTCOMES as readonly unknown[]).includes(v);
/** The tag of a failure read from the output's own words (cause.ts) because the agent gave no exit status. */
export const OUTCOME_FROM_OUTPUT_TAG = 'outcome-from-output';
/** Tags of a call of unknown outcome because it did not run to its end: interrupted or cancelled; left running in the background. */
export const INTERRUPTED_TAG = 'interrupted';
export const BACKGROUND_TAG = 'background';

export interface AttemptRecord {
  /** Unique, stable, sortable by time (e.g. a ULID). */
  id: string;
  /** ISO 8601, UTC. */
  time: string;
  sessionId: string;
  /** "shell" for `agentos run`; an agent's tool name ("Bash", "Edit", …) from hooks. */
  tool: string;
  /** The command line or the tool's arguments, redacted. */
  command: string;
  outcome: Outcome;
  exitCode: number | null;
  durationMs: number | null;
  /** The last lines of stderr (bounded), redacted. */
  error: string | null;
  /** The one line that says why it failed, read the way the tool writes it (cause.ts), redacted. */
  cause: string | null;
  /** The attempt context: what the work was for (`--context <text>`, an agent's `context`), redacted. */
  context: string | null;
  /**
   * The piece of work (issue id, normalised: "27", not "#027") it was tried for: given,
   * else AGENTOS_WORK, else the brief `issue start` began on this branch, else a number
   * in the branch name (src/attempt-memory/work.ts). Checks of related work show its failures.
   */
  work: string | null;
  /** The git branch checked out when it was recorded. */
  branch: string | null;
  /** Given tags plus deterministic auto-tags. */
  tags: string[];
  /** Working directory relative to the project root ("." for the root). */
  cwd: string;
  /** Id of a later success that overrides this failure (never warned about again for that command). */
  overriddenBy: string | null;
  /** Older than `attempts.archiveAfterDays`: kept, never used for warnings. */
  archived: boolean;
  /** Recorded by someone else and read from the team store: "author (repository)"; absent for this machine's own. */
  origin?: string;
}

/** What a caller supplies; the attempt memory fills in id, time, session, cwd and auto-tags, and redacts. */
export interface NewAttempt {
  tool: string;
  command: string;
  outcome: Outcome;
  exitCode?: number | null;
  durationMs?: number | null;
  error?: string | null;
  context?: string | null;
  tags?: string[];
  sessionId?: string;
  cwd?: string;
  time?: string;
  /** The issue it was tried for; see AttemptRecord.work for what applies when it is not given. */
  work?: string | null;
}

export interface AttemptQuery {
  outcome?: Outcome;
  since?: Date;
  tag?: string;
  sessionId?: string;
  /** Attempts made for any of these pieces of work (normalised ids). */
  work?: string[];
  includeArchived?: boolean;
  /** Whose: this machine's own records (`own`), or the team's copies (`team`); default both. */
  whose?: 'own' | 'team';
  /** Newest first; default no limit. */
  limit?: number;
}

export interface RepeatWarning {
  /** The past failure this attempt resembles. */
  failure: AttemptRecord;
  /** 0..1: same tool +0.3, similar command/path +0.4, similar context/tags +0.3. */
  score: number;
  /** What later succeeded for the same context or tags, if anything. */
  workedInstead: AttemptRecord | null;
}

export interface AttemptStats {
  sessions: number;
  failures: number;
  successes: number;
  /** Warnings after which the user did not run the command (or it was blocked). */
  repeatsPrevented: number;
}

export interface AttemptMemory {
  /** Redacts and auto-tags, then writes durably; returns what was stored. */
  record(attempt: NewAttempt): AttemptRecord;
  list(query?: AttemptQuery): AttemptRecord[];
  /** Past failures (inside the lookback, not archived, not overridden) this attempt resembles, best first. */
  checkRepeat(attempt: { tool: string; command: string; context?: string | null; tags?: string[] }): RepeatWarning[];
  /** Keyword search over command, error, context and tags (FTS), best first. */
  search(text: string, limit?: number): AttemptRecord[];
  /** Removes records; returns how many. */
  forget(query: { id?: string; before?: Date; all?: boolean }): number;
  stats(): AttemptStats;
  close(): void;
}
