/**
 * What the MCP server keeps open between calls: the project's config, the model,
 * the index (vectors + lexical) and the attempt memory. A warm `check_brief` is
 * fast because none of them is loaded again; each call first checks, with two
 * small reads, whether the index or the config changed on disk, and reloads only
 * then (an `agentos index` run in another terminal is seen by the next call).
 */
import { readProjectLine } from '../../work-memory/scoring/project-line.js';
import { orgOpener } from '../../work-memory/check/deps.js';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { AttemptMemoryHandle } from '../../attempt-memory/open.js';
import { embeddingMethod, type CheckDeps } from '../../work-memory/check/run.js';
import { CONFIG_PATH, loadConfig } from '../../shared/config/load.js';
import { DEFAULT_CONFIG, type Config } from '../../shared/config/schema.js';
import type { Embedder } from '../../work-memory/embeddings/embedder.js';
import { lruEmbedder } from '../../work-memory/embeddings/lru.js';
import { modelSetup, type ModelSetup } from '../../work-memory/index/model-setup.js';
import { errorMessage } from '../../shared/errors.js';
import { openIndex, readCurrent, type HnswIndex } from '../../work-memory/index/hnsw-index.js';
import { openLexical, type LexicalData } from '../../work-memory/lexical/file.js';

export class ProjectSession {
  private model: ModelSetup;
  private embedder: Promise<Embedder> | null = null;
  private index: { generation: string; value: Promise<HnswIndex> } | null = null;
  private lexical: { generation: string; value: LexicalData } | null = null;
  private memory: AttemptMemoryHandle | null = null;
  private configStamp: string;
  private reloading: Promise<void> = Promise.resolve();
  private opener: Promise<typeof import('../../attempt-memory/open.js')> | null = null;
  /** Why the config on disk is not the one in use (it is invalid), until it changes. */
  private configProblem: string | null = null;
  /** Config warnings of the last load, reported once by the server. */
  configWarnings: string[];

  private constructor(
    readonly root: string,
    readonly env: NodeJS.ProcessEnv,
    public config: Config,
    warnings: string[],
    /** Session id for attempts recorded without one: one per server, like one per CLI process. */
    readonly sessionId: string,
  ) {
    this.model = modelSetup(env, config, root);
    this.configStamp = stamp(path.join(root, CONFIG_PATH));
    this.configWarnings = warnings;
  }

  /**
   * An invalid config at start-up is said with every answer, as one made invalid later is: the server
   * starts on the defaults (an agent shows a server that never answered `initialize` as failed, and
   * says nothing of why), and the file is read again once it changes.
   */
  static async open(root: string, env: NodeJS.ProcessEnv, sessionId: string): Promise<ProjectSession> {
    try {
      const { config, warnings } = await loadConfig(root);
      return new ProjectSession(root, env, config, warnings, sessionId);
    } catch (e) {
      const session = new ProjectSession(root, env, structuredClone(DEFAULT_CONFIG), [], sessionId);
      session.configProblem = `${CONFIG_PATH} is invalid (${errorMessage(e)}); answering with the default config until it is fixed`;
      return session;
    }
  }

  /** The live generation's name (null: no index yet). Cheap: one small file. */
  generation(): string | null {
    return readCurrent(this.root);
  }

  /**
   * Before each call: a changed config reloads everything (it may name another model
   * or other thresholds); a new index generation is picked up by the next reader.
   * An invalid config keeps the last valid one, and every answer says so until the
   * file changes again. Calls arriving during a reload wait for the same reload.
   */
  async refresh(): Promise<string[]> {
    const now = stamp(path.join(this.root, CONFIG_PATH));
    if (now !== this.configStamp) {
      this.configStamp = now;
      this.reloading = this.reload();
    }
    await this.reloading;
    return this.configProblem ? [this.configProblem] : [];
  }

  private async reload(): Promise<void> {
    let loaded: Awaited<ReturnType<typeof loadConfig>>;
    try {
      loaded = await loadConfig(this.root);
    } catch (e) {
      this.configProblem = `${CONFIG_PATH} is invalid (${errorMessage(e)}); answering with the last valid config`;
      return;
    }
    this.configProblem = null;
    this.configWarnings = loaded.warnings;
    const sameModel = JSON.stringify(loaded.config.model) === JSON.stringify(this.config.model);
    this.config = loaded.config;
    if (!sameModel) {
      this.model = modelSetup(this.env, loaded.config, this.root);
      const old = this.embedder;
      this.embedder = null;
      this.index = null;
      old?.then((e) => e.dispose?.()).catch(() => undefined); // the replaced model's session is released
    }
    this.closeMemory(); // its thresholds and lookback come from the config
  }

  /** The check's dependencies, served from what is already open. */
  checkDeps(): CheckDeps {
    return {
      method: embeddingMethod(this.model.identity.modelId),
      identity: this.model.identity,
      loadEmbedder: () => this.loadEmbedder(),
      openIndex: () => this.openIndex(),
      openLexical: async () => this.openLexical(),
      // scope "org" asks the team store as `issue start --scope org` does (docs/mcp.md).
      openOrg: orgOpener(this.env, this.config, this.root, this.model.identity),
      // Read at each check (a missing file costs one stat): a `calibrate --write` applies without restarting the server.
      projectLine: () => readProjectLine(this.root),
    };
  }

  loadEmbedder(): Promise<Embedder> {
    if (this.embedder) return this.embedder;
    // Vectors of texts seen before come from memory: an agent re-checks the same brief as it works.
    const loading = this.model.load('query').then((e) => lruEmbedder(e));
    this.embedder = loading;
    // A failed load is not kept (the model may be provisioned by the next call); a newer load is never cleared by an older one.
    loading.catch(() => {
      if (this.embedder === loading) this.embedder = null;
    });
    return loading;
  }

  openIndex(): Promise<HnswIndex> {
    const generation = this.generation();
    if (!generation || this.index?.generation !== generation) {
      const value = openIndex(this.root, this.model.identity);
      // Not kept when it failed (a half-written index is retried by the next call).
      value.catch(() => {
        if (this.index?.value === value) this.index = null;
      });
      this.index = generation ? { generation, value } : null;
      return value;
    }
    return this.index.value;
  }

  openLexical(): LexicalData {
    const generation = this.generation();
    if (generation && this.lexical?.generation === generation) return this.lexical.value;
    const value = openLexical(this.root);
    if (generation) this.lexical = { generation, value };
    return value;
  }

  /**
   * The attempt memory, opened once for the server's life. For reading with no memory
   * file yet, an empty memory that is not kept (a later record creates the file).
   */
  async attempts(purpose: 'read' | 'write'): Promise<AttemptMemoryHandle> {
    if (this.memory) return this.memory;
    // Synchronous from here: two calls cannot both open a handle.
    const { openAttemptMemory } = await (this.opener ??= import('../../attempt-memory/open.js'));
    if (this.memory) return this.memory;
    // A writer waits for others at most 5 s: the server must not hang the agent on a busy attempt memory.
    const opened = openAttemptMemory(this.root, this.config, {
      sessionId: this.sessionId,
      cwd: this.root,
      env: this.env,
      readOnly: purpose === 'read',
      busyTimeoutMs: 5000,
    });
    // An empty read-only memory has no file behind it: the real one is opened once there is one.
    if (purpose === 'write' || statOrNull(opened.file)) this.memory = opened;
    return opened;
  }

  closeMemory(): void {
    this.memory?.close();
    this.memory = null;
  }

  close(): void {
    this.closeMemory();
  }
}

function statOrNull(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The config's content hash (a few KB, bounded by MAX_CONFIG_BYTES): an edit is seen even within one mtime tick. */
function stamp(file: string): string {
  try {
    return createHash('sha1').update(readFileSync(file)).digest('hex');
  } catch {
    return 'missing';
  }
}
