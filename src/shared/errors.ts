/**
 * Exit codes are part of the CLI contract (docs/commands.md "Exit codes", `--help`).
 * 0 proceed, 1 unexpected, 2 usage / bad input, 3 aborted as duplicate,
 * 4 index unusable (index/search/context commands), 5 model unavailable,
 * 6 `run` did not run a command that repeats a recent failure, 7 the team store
 * unavailable (unreachable, refused, wrong schema), 130 cancelled at a prompt.
 */
export const ExitCode = {
  Ok: 0,
  Unexpected: 1,
  Usage: 2,
  AbortedDuplicate: 3,
  IndexUnavailable: 4,
  ModelUnavailable: 5,
  /** `agentos run`: the command was not run because it repeats a recent failure (declined at the prompt, or --on-repeat block). */
  RepeatBlocked: 6,
  /** The team store (PostgreSQL) cannot be used: unreachable, credentials refused, no pgvector, another schema. */
  TeamStoreUnavailable: 7,
  /** `ci github`: the tracker refused a call or could not be reached (the workflow's token permissions, a rate limit, the network). */
  TrackerRefused: 8,
  Cancelled: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** An error that carries the exit code and a one-line message for the user. */
export class ExitError extends Error {
  constructor(
    message: string,
    readonly code: ExitCodeValue,
  ) {
    super(message);
    this.name = 'ExitError';
  }
}

/** Bad input from the user: a file, a flag, a config value. Exit 2. */
export class UsageError extends ExitError {
  constructor(message: string) {
    super(message, ExitCode.Usage);
    this.name = 'UsageError';
  }
}

/**
 * The index cannot be used (missing, corrupt, other model/version, locked).
 * `issue start` turns this into a fail-open warning; `search` reports it.
 */
export class IndexUnavailableError extends ExitError {
  /** `missing`: no index was ever built here; `unusable`: one exists but cannot be read. */
  constructor(
    message: string,
    readonly reason: 'missing' | 'unusable' = 'unusable',
  ) {
    super(message, ExitCode.IndexUnavailable);
    this.name = 'IndexUnavailableError';
  }
}

/** The model files are missing, cannot be fetched, or do not match their pinned hashes. Exit 5. */
export class ModelUnavailableError extends ExitError {
  constructor(message: string) {
    super(message, ExitCode.ModelUnavailable);
    this.name = 'ModelUnavailableError';
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message.split('\n')[0];
  return String(err);
}

/** The team store cannot be used (src/shared/team-store). Exit 7; the message never carries a password. */
export class TeamStoreUnavailableError extends ExitError {
  constructor(message: string) {
    super(message, ExitCode.TeamStoreUnavailable);
    // The name is the `kind` of `--json` errors, which scripts match: kept from before the class was renamed (docs/json.md).
    this.name = 'StoreUnavailableError';
  }
}
