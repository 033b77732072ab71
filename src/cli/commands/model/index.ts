import { createRequire } from 'node:module';
import path from 'node:path';
import type { CommandContext } from '../../context.js';
import {
  copyFromDir,
  fetchFromHub,
  hubBaseUrl,
  type FetchReport,
} from '../../../work-memory/embeddings/fetch-model.js';
import { resolveModelLocation, userModelDir } from '../../../work-memory/embeddings/model-location.js';
import { ExitCode } from '../../../shared/errors.js';
import { createProgress } from '../../ui/progress.js';

function runtimeInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('onnxruntime-node');
    return true;
  } catch {
    return false;
  }
}

export interface ModelFetchOptions {
  from?: string;
  to?: string;
  json?: boolean;
}

/**
 * `agentos model fetch`: put the pinned model files in the user cache (or
 * `--to`), from the hub or from a local folder, each checked against its
 * SHA-256. Files already in place are kept; nothing is half-written.
 */
export async function runModelFetch(ctx: CommandContext, opts: ModelFetchOptions): Promise<number> {
  const { io, globals } = ctx;
  const root = ctx.root();
  const { config } = await ctx.config();
  // An explicit AGENTOS_MODEL_DIR / model.dir is where the model is looked for, so it is filled; else the user cache.
  const loc = resolveModelLocation(io.env, config.model.dir, root, config.model.id, config.model.dtype, io.cwd);
  const explicit = loc.source === 'AGENTOS_MODEL_DIR' || loc.source === 'config model.dir';
  const dest = opts.to ? path.resolve(io.cwd, opts.to) : explicit && loc.dir ? loc.dir : userModelDir(io.env);
  const progress = createProgress(io, Boolean(globals.quiet) || Boolean(opts.json));
  // `auto` fetches q8: the int8 file is not on the hub, provisioning builds it (scripts/provision-model.sh).
  const dtype = config.model.dtype === 'auto' ? 'q8' : config.model.dtype;
  const base = { modelId: config.model.id, dtype, dest };
  const label = opts.from ? `Copying ${config.model.id}` : `Downloading ${config.model.id}`;
  const onProgress = (p: { doneBytes: number; totalBytes: number }) =>
    progress.update(p.doneBytes, p.totalBytes, label);
  const report: FetchReport = opts.from
    ? await copyFromDir(path.resolve(io.cwd, opts.from), { ...base, onProgress })
    : await fetchFromHub(io.env, { ...base, onProgress });
  const source = opts.from ? path.resolve(io.cwd, opts.from) : hubBaseUrl(io.env);
  if (report.fetched.length)
    progress.done(
      `${opts.from ? 'Copied' : 'Downloaded'} ${report.fetched.length} files (${(report.bytes / 1e6).toFixed(1)} MB), SHA-256 verified`,
    );
  if (opts.json) {
    io.stdout.write(
      JSON.stringify(
        {
          model: config.model.id,
          dtype,
          folder: report.folder,
          source,
          fetched: report.fetched,
          kept: report.kept,
          bytes: report.bytes,
        },
        null,
        2,
      ) + '\n',
    );
  } else {
    const kept = report.kept.length ? ` (${report.kept.length} already in place)` : '';
    io.stdout.write(`Model ready: ${report.folder}${kept}\n`);
  }
  if (!runtimeInstalled()) {
    const { RUNTIME_MISSING } = await import('../../../work-memory/embeddings/minilm.js');
    io.stderr.write(`warning: ${RUNTIME_MISSING}\n`);
  }
  return ExitCode.Ok;
}
