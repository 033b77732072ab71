import { readProjectLine, type ProjectLine } from '../../../work-memory/scoring/project-line.js';
import { calibrationVersion } from '../../../work-memory/scoring/calibrated.js';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { readTemplateSummary } from '../../../work-memory/lexical/file.js';
import { hostname } from 'node:os';
import path from 'node:path';
import type { Config } from '../../../shared/config/schema.js';
import { countGlobMatches, type GlobCount } from '../../../work-memory/corpus/glob-counts.js';
import { modelSetup } from '../../../work-memory/index/model-setup.js';
import { onnxFileName } from '../../../work-memory/embeddings/model-location.js';
import { readRegularFileSync } from '../../../shared/fsutil/bounded-read.js';
import { checkFreshness, indexAgeSeconds } from '../../../work-memory/index/freshness.js';
import { indexPaths } from '../../../work-memory/index/layout.js';
import { effectiveSettings, type Setting } from './settings.js';

export interface StatusReport {
  root: string;
  config: { file: string | null; settings: Setting[] };
  globs: GlobCount[];
  model: { id: string; dir: string | null; source: string; present: boolean; fingerprint: string };
  index: {
    state: 'fresh' | 'stale' | 'no_index' | 'unreadable';
    error: string | null;
    generation: string | null;
    createdAt: string | null;
    ageSeconds: number | null;
    includeHistory: boolean | null;
    documents: { standard: number; history: number } | null;
    chunks: number | null;
    modelId: string | null;
    modelFingerprint: string | null;
    /** Why the index needs a full rebuild with the current model (null: it does not). */
    incompatible: string | null;
    changedSinceIndex: {
      added: string[];
      changed: string[];
      removed: string[];
      configChanged: boolean;
      metadataOutdated?: boolean;
    };
  };
  /** Completed work besides files (git, tracker exports): as the index last read it, and whether it moved since. */
  sources: {
    git: {
      enabled: boolean;
      ref: string | null;
      head: string | null;
      documents: number | null;
      notWork: Record<string, number> | null;
    } | null;
    trackers: Array<{ path: string; documents: number | null }>;
    changedSinceIndex: string[];
  };
  /** `alive`: the holder's process still runs (null: another host, cannot tell). A dead holder's lock is taken over by the next run. */
  lock: { holder: { pid: number; host: string; startedAt: string; alive: boolean | null } | null; file: string };
  log: { file: string; bytes: number };
  /**
   * Template-detection findings the index records (issue 11, i11-scoring).
   * null until an index carries them; read as stored, never recomputed here.
   */
  /** Boilerplate the lexical index found shared by many documents (issue 11), null without a lexical index. */
  templates: ReturnType<typeof readTemplateSummary>;
  /** Which line scores a tracker's reports: the shipped model, or the project's own (`agentos calibrate --write`) and its figures. */
  line: { kind: 'shipped' | 'project'; project: ProjectLine | null; problem: string | null; calibration: string };
}

/** Everything `agentos status` shows. Reads only: stat scans, the manifest, the lock and log files. */
export async function gatherStatus(root: string, config: Config, env: NodeJS.ProcessEnv): Promise<StatusReport> {
  const setup = modelSetup(env, config, root);
  const fresh = await checkFreshness(root, config, setup.identity);
  const m = fresh.manifest;
  const modelFile = setup.location.dir
    ? path.join(setup.location.dir, config.model.id, onnxFileName(setup.dtype))
    : null;
  const configFile = path.join(root, '.agentos', 'config.yaml');
  return {
    root,
    config: { file: existsSync(configFile) ? configFile : null, settings: effectiveSettings(root, config, env) },
    globs: await countGlobMatches(root, config.corpus),
    model: {
      id: setup.identity.modelId,
      dir: setup.location.dir,
      source: setup.location.source,
      present: modelFile ? existsSync(modelFile) : false,
      fingerprint: setup.identity.modelFingerprint,
    },
    index: {
      state: fresh.state,
      error: fresh.error,
      generation: fresh.generation,
      createdAt: m?.createdAt ?? null,
      ageSeconds: indexAgeSeconds(m),
      includeHistory: m ? m.includeHistory : null,
      documents: m?.coverage ? { ...m.coverage } : null,
      chunks: m ? m.chunkCount : null,
      modelId: m?.modelId ?? null,
      modelFingerprint: m?.modelFingerprint ?? null,
      incompatible: fresh.incompatible,
      changedSinceIndex: {
        added: fresh.added,
        changed: fresh.changed,
        removed: fresh.removed,
        configChanged: fresh.configChanged,
        metadataOutdated: fresh.metadataOutdated ?? false,
      },
    },
    sources: {
      git: config.sources.git.enabled
        ? {
            enabled: true,
            ref: m?.sources?.git?.ref ?? null,
            head: m?.sources?.git?.head ?? null,
            documents: m?.sources?.git?.documents ?? null,
            notWork: m?.sources?.git?.skipped ?? null,
          }
        : null,
      trackers: config.sources.trackers.map((p) => ({
        path: p,
        documents: m?.sources?.trackers?.find((t) => t.path === p)?.documents ?? null,
      })),
      changedSinceIndex: fresh.sources,
    },
    lock: { holder: readLockHolder(indexPaths(root).lock), file: indexPaths(root).lock },
    log: logSize(path.join(root, '.agentos', 'logs')),
    templates: readTemplateSummary(root),
    line: lineStatus(root),
  };
}

function readLockHolder(file: string): StatusReport['lock']['holder'] {
  try {
    // Bounded and regular only, as the lock itself reads it: a lock pointing at /dev/zero must not hang status.
    const h = JSON.parse(readRegularFileSync(file, 4096).toString('utf8')) as {
      pid: number;
      host: string;
      startedAt: string;
    };
    return {
      pid: h.pid,
      host: h.host,
      startedAt: h.startedAt,
      alive: h.host === hostname() ? processAlive(h.pid) : null,
    };
  } catch {
    return null;
  }
}

/** The log and any rotated copies beside it (agentos.log, agentos.log.1, …). */
function logSize(dir: string): StatusReport['log'] {
  const file = path.join(dir, 'agentos.log');
  let bytes = 0;
  try {
    for (const e of readdirSync(dir)) if (e.startsWith('agentos.log')) bytes += statSync(path.join(dir, e)).size;
  } catch {
    bytes = 0;
  }
  return { file, bytes };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function lineStatus(root: string): StatusReport['line'] {
  const { line, problem } = readProjectLine(root);
  return { kind: line ? 'project' : 'shipped', project: line, problem, calibration: calibrationVersion() };
}
