/**
 * The one object every command receives (the GitHub CLI's factory): the I/O, the
 * global options, and the project's parts, each built on first use and at most once
 * per run. A command asks for what it needs (`ctx.root()`, `await ctx.config()`,
 * `await ctx.checkDeps()`, `await ctx.attempts('read')`); nothing is opened that it
 * does not ask for, so `--help` and the hot routes stay cheap.
 *
 * Tests build one with `createContext(io, globals, overrides)`, replacing the parts
 * they fake (the check's model and index, the attempt memory, a person's answers)
 * instead of each command growing its own seams.
 */
import type { Logger } from 'pino';
import type { ProceedAsker } from '../attempt-memory/confirm.js';
import type { AttemptMemoryHandle } from '../attempt-memory/open.js';
import { loadConfig } from '../shared/config/load.js';
import type { ParsedConfig } from '../shared/config/parse.js';
import type { IO } from '../shared/io.js';
import { findProjectRoot } from '../shared/project.js';
import type { CheckDeps } from '../work-memory/check/run.js';
import type { DuplicateAsker } from '../work-memory/decision/decide.js';
import type { HnswIndex } from '../work-memory/index/hnsw-index.js';
import type { ModelSetup } from '../work-memory/index/model-setup.js';
import type { StartedWorker } from '../work-memory/embeddings/worker-runner.js';
import type { InitAsker } from './commands/init/ask.js';
import type { GlobalOptions } from './globals.js';

/** The questions a command may put to a person; unset: the real prompt (when there is a terminal). */
export interface Prompts {
  /** Abort / Link / Ignore on a duplicate alert (`issue start`). */
  duplicate?: DuplicateAsker;
  /** "Run it anyway?" before a repeat of a known failure (`run`). */
  proceed?: ProceedAsker;
  /** Which folders hold what (`init`). */
  init?: InitAsker;
}

/** The command context: what every command is handed (the GitHub CLI's factory), never a brief's or a session's context. */
export interface CommandContext {
  readonly io: IO;
  readonly globals: GlobalOptions;
  /** The project root: `-C`, else the nearest folder holding `.agentos/` or `.git`. */
  root(): string;
  /** The project's config and its warnings (`.agentos/config.yaml`, or the defaults). */
  config(): Promise<ParsedConfig>;
  /** The project's log file (`.agentos/logs/agentos.log`). */
  logger(): Promise<Logger>;
  /** The model the config names: where it is and what the index needs; not loaded. */
  model(): Promise<ModelSetup>;
  /** Where a check's memory comes from: the model (loaded at most once per run), the index, the lexical index. */
  checkDeps(): Promise<CheckDeps>;
  /** The live index, opened on first use (after any refresh the command ran) for the model the config names. */
  index(): Promise<HnswIndex>;
  /** The attempt memory, opened at each call (a command opens it once); `close()` closes every handle. `read` with nothing recorded creates nothing. */
  attempts(purpose: 'read' | 'write', session?: string): Promise<AttemptMemoryHandle>;
  readonly prompts: Prompts;
  /** Closes what was opened (the attempt memory). */
  close(): void;
}

/** Parts a test (or another entry point) provides instead of the real ones. */
export interface ContextOverrides {
  config?: () => Promise<ParsedConfig>;
  checkDeps?: (config: ParsedConfig['config'], root: string) => CheckDeps;
  attempts?: (purpose: 'read' | 'write', session?: string) => Promise<AttemptMemoryHandle>;
  prompts?: Prompts;
  /** The inference worker bin/agentos.js started for this run: the first model load takes it (bin ends it). */
  inferenceWorker?: StartedWorker | null;
}

export function createContext(io: IO, globals: GlobalOptions, overrides: ContextOverrides = {}): CommandContext {
  const once = <T>(make: () => T): (() => T) => {
    let made: { value: T } | null = null;
    return () => (made ??= { value: make() }).value;
  };
  const opened: AttemptMemoryHandle[] = [];
  const root = once(() => findProjectRoot(io.cwd, globals.cwd));
  const config = once(async () => (overrides.config ? overrides.config() : loadConfig(root())));
  const model = once(async () => {
    const { modelSetup } = await import('../work-memory/index/model-setup.js');
    return modelSetup(io.env, (await config()).config, root(), overrides.inferenceWorker ?? null);
  });
  const ctx: CommandContext = {
    io,
    globals,
    root,
    config,
    logger: once(async () => {
      const { createFileLogger } = await import('../shared/log/logger.js');
      return createFileLogger(root());
    }),
    model,
    checkDeps: once(async () => {
      const { config: c } = await config();
      const { defaultCheckDeps, withSharedEmbedder } = await import('../work-memory/check/deps.js');
      return withSharedEmbedder(
        overrides.checkDeps
          ? overrides.checkDeps(c, root())
          : defaultCheckDeps(io.env, c, root(), overrides.inferenceWorker ?? null),
      );
    }),
    index: once(async () => {
      const { openIndex } = await import('../work-memory/index/hnsw-index.js');
      return openIndex(root(), (await model()).identity);
    }),
    attempts: async (purpose, session) => {
      const memory = overrides.attempts
        ? await overrides.attempts(purpose, session)
        : await (async () => {
            const { openAttemptMemory } = await import('../attempt-memory/open.js');
            return openAttemptMemory(root(), (await config()).config, {
              sessionId: session,
              cwd: io.cwd,
              env: io.env,
              readOnly: purpose === 'read',
            });
          })();
      opened.push(memory);
      return memory;
    },
    prompts: overrides.prompts ?? {},
    close: () => {
      for (const m of opened.splice(0)) m.close();
    },
  };
  return ctx;
}
