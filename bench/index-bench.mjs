// `agentos index` as whole processes: full builds (throughput) and incremental runs.
import { appendFile, mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { REPO, agentos, childEnv, log, parseJsonOut, runProcess, summarize, summarizeFields } from './lib/common.mjs';

async function indexRun(root, extra = []) {
  const res = await runProcess(agentos(['-C', root, 'index', '--include-history', '--json', ...extra]), { cwd: root });
  const out = parseJsonOut(res, `index ${extra.join(' ')} (${root})`);
  return {
    wall: res.wallMs,
    peakRssMb: res.peakRssKb ? res.peakRssKb / 1024 : null,
    cpuMs: res.cpuMs,
    cpuUtil: res.cpuMs ? res.cpuMs / res.wallMs : null,
    scanned: out.scanned,
    added: out.added?.length ?? 0,
    changed: out.changed?.length ?? 0,
    removed: out.removed?.length ?? 0,
    chunks: out.chunks,
    chunksEmbedded: out.chunksEmbedded ?? 0,
    tokensEmbedded: out.tokensEmbedded ?? 0,
    wrote: out.wrote,
  };
}

/** One in-process buildIndex run with its phases timed (bench/lib/build-probe.mjs). */
async function buildProbe(root) {
  const res = await runProcess([path.join(REPO, 'bench', 'lib', 'build-probe.mjs'), root], {
    env: childEnv(),
    cwd: root,
  });
  if (res.code !== 0) throw new Error(`build probe exited ${res.code}\n${res.stderr.slice(-2000)}`);
  return { ...JSON.parse(res.stdout.trim().split('\n').pop()), wall: res.wallMs };
}

const PROBE_FIELDS = [
  'wall',
  'importMs',
  'totalMs',
  'openAndScanMs',
  'scanAgainMs',
  'compareMs',
  'modelLoadMs',
  'chunkAndEmbedMs',
  'writeMs',
  'chunksEmbedded',
];

/** Build the index once if there is none (not measured). */
export async function ensureIndexed(root) {
  return indexRun(root);
}

/** Full builds: `index --include-history --full` (the first run on a fresh copy builds from nothing). */
export async function fullIndex({ label, root, runs = 3, warmup = 1 }) {
  const samples = [];
  for (let i = 0; i < warmup + runs; i++) {
    const r = await indexRun(root, ['--full']);
    r.docsPerSec = r.scanned / (r.wall / 1000);
    r.chunksPerSec = r.chunksEmbedded / (r.wall / 1000);
    r.tokensPerSec = r.tokensEmbedded / (r.wall / 1000);
    r.msPerToken = r.wall / r.tokensEmbedded;
    samples.push(r);
    log(
      `full index ${label} run ${i + 1}/${warmup + runs}: ${(r.wall / 1000).toFixed(1)} s, ${r.chunksEmbedded} chunks, ${r.tokensEmbedded} tokens`,
    );
  }
  const measured = samples.slice(warmup);
  return {
    label,
    runs,
    warmup,
    docs: measured[0].scanned,
    chunks: measured[0].chunksEmbedded,
    tokens: measured[0].tokensEmbedded,
    samples: measured,
    summary: summarizeFields(measured, [
      'wall',
      'docsPerSec',
      'chunksPerSec',
      'tokensPerSec',
      'msPerToken',
      'peakRssMb',
      'cpuUtil',
    ]),
  };
}

/**
 * Incremental runs on an indexed corpus:
 *  - no file changed;
 *  - one file changed (a paragraph appended, different each run);
 *  - ten files deleted (moved away, indexed, moved back and re-indexed unmeasured).
 */
export async function incremental({ label, root, historyFiles, runs = 5, changeRuns = 3, deleteRuns = 3 }) {
  const out = { label };
  // No-op: one warm-up, then measured runs.
  await indexRun(root);
  const noop = [];
  for (let i = 0; i < runs; i++) noop.push(await indexRun(root));
  out.noop = { samples: noop, summary: summarizeFields(noop, ['wall', 'peakRssMb']) };
  const noopProfile = [];
  for (let i = 0; i < 3; i++) noopProfile.push(await buildProbe(root));
  out.noop.profile = summarizeFields(noopProfile, PROBE_FIELDS);
  log(`no-op index ${label}: median ${summarize(noop.map((r) => r.wall)).median.toFixed(0)} ms`);

  if (historyFiles?.length) {
    const target = path.join(root, historyFiles[Math.floor(historyFiles.length / 2)]);
    const changed = [];
    for (let i = 0; i < changeRuns + 1; i++) {
      await appendFile(
        target,
        `\n## Follow-up ${i + 1}\n\nA follow-up in run ${i + 1} moved the alert threshold and documented the manual fallback in the runbook.\n`,
      );
      const r = await indexRun(root);
      if (i > 0) changed.push(r);
    }
    out.oneChanged = {
      file: path.relative(root, target),
      samples: changed,
      summary: summarizeFields(changed, ['wall', 'peakRssMb', 'chunksEmbedded', 'tokensEmbedded']),
    };
    const changedProfile = [];
    for (let i = 0; i < 3; i++) {
      await appendFile(
        target,
        `\n## Probe follow-up ${i + 1}\n\nThe probe run ${i + 1} changed this file again to time the phases of an incremental run.\n`,
      );
      changedProfile.push(await buildProbe(root));
    }
    out.oneChanged.profile = summarizeFields(changedProfile, PROBE_FIELDS);
    log(`one-changed index ${label}: median ${summarize(changed.map((r) => r.wall)).median.toFixed(0)} ms`);

    const step = Math.max(1, Math.floor(historyFiles.length / 10));
    const victims = Array.from(
      { length: Math.min(10, historyFiles.length) },
      (_, i) => historyFiles[(i * step + 3) % historyFiles.length],
    );
    const aside = path.join(root, '..', `${path.basename(root)}-deleted`);
    const deleted = [];
    for (let i = 0; i < deleteRuns; i++) {
      for (const v of victims) {
        await mkdir(path.dirname(path.join(aside, v)), { recursive: true });
        await rename(path.join(root, v), path.join(aside, v));
      }
      deleted.push(await indexRun(root));
      for (const v of victims) await rename(path.join(aside, v), path.join(root, v));
      await indexRun(root); // restore (re-embeds the ten), not measured
    }
    out.tenDeleted = {
      files: victims,
      samples: deleted,
      summary: summarizeFields(deleted, ['wall', 'peakRssMb', 'removed']),
    };
    log(`ten-deleted index ${label}: median ${summarize(deleted.map((r) => r.wall)).median.toFixed(0)} ms`);
  }
  return out;
}
