/**
 * What the MCP server keeps open between calls: the project's config, the model,
 * the index (vectors + lexical) and the attempt memory. A warm `check_brief` is
 * fast because none of them is loaded again; each call first checks, with two
 * small reads, whether the index or the config changed on disk, and reloads only
 * then (an `agentos index` run in another terminal is seen by the next call).
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { AttemptMemoryHandle } from '../attempts/open.js';
import type { CheckDeps } from '../check/run.js';
import { CONFIG_PATH, loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { Embedder } from '../embeddings/embedder.js';
import { modelSetup, type ModelSetup } from '../embeddings/setup.js';
import { openStore, readCurrent, type HnswStore } from '../index/hnsw-store.js';
import { openLexical, type LexicalData } from '../lexical/file.js';

export class ProjectSession {
  private model: ModelSetup;
  private embedder: Promise<Embedder> | null = null;
  private store: { generation: string; value: Promise<HnswStore> } | null = null;
  private lexical: { generation: string; value: LexicalData } | null = null;
  private memory: AttemptMemoryHandle | null = null;
  private configStamp: string;
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

  static async open(root: string, env: NodeJS.ProcessEnv, sessionId: string): Promise<ProjectSession> {
    const { config, warnings } = await loadConfig(root);
    return new ProjectSession(root, env, config, warnings, sessionId);
  }

  /** The live generation's name (null: no index yet). Cheap: one small file. */
  generation(): string | null {
    return readCurrent(this.root);
  }

  /**
   * Before each call: a changed config reloads everything (it may name another model
   * or other thresholds); a new index generation is picked up by the next reader.
   * An invalid config keeps the last valid one and says so.
   */
  async refresh(): Promise<string[]> {
    const now = stamp(path.join(this.root, CONFIG_PATH));
    if (now === this.configStamp) return [];
    this.configStamp = now;
    const { config, warnings } = await loadConfig(this.root);
    const sameModel = JSON.stringify(config.model) === JSON.stringify(this.config.model);
    this.config = config;
    if (!sameModel) {
      this.model = modelSetup(this.env, config, this.root);
      this.embedder = null;
      this.store = null;
    }
    this.closeMemory(); // its thresholds and lookback come from the config
    return warnings;
  }

  /** The check's dependencies, served from what is already open. */
  checkDeps(): CheckDeps {
    return {
      method: `embedding:${this.model.identity.modelId}+hnsw`,
      identity: this.model.identity,
      loadEmbedder: () => this.loadEmbedder(),
      openStore: () => this.openStore(),
      openLexical: async () => this.openLexical(),
    };
  }

  loadEmbedder(): Promise<Embedder> {
    // A failed load is not kept: the next call tries again (the model may have been provisioned since).
    this.embedder ??= this.model.load('query').catch((e: unknown) => {
      this.embedder = null;
      throw e;
    });
    return this.embedder;
  }

  openStore(): Promise<HnswStore> {
    const generation = this.generation();
    if (!generation || this.store?.generation !== generation) {
      const value = openStore(this.root, this.model.identity);
      // Not kept when it failed (a half-written index is retried by the next call).
      value.catch(() => {
        if (this.store?.value === value) this.store = null;
      });
      this.store = generation ? { generation, value } : null;
      return value;
    }
    return this.store.value;
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
    const { openAttemptMemory } = await import('../attempts/open.js');
    const opened = openAttemptMemory(this.root, this.config, { sessionId: this.sessionId, cwd: this.root, env: this.env, readOnly: purpose === 'read' });
    // An empty read-only memory has no file behind it: open the real one when there is one.
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

/** Size and modification time: enough to notice an edit between two calls. */
function stamp(file: string): string {
  try {
    const s = statSync(file);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return 'missing';
  }
}
