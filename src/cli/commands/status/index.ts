import type { CommandContext } from '../../context.js';
import { ExitCode } from '../../../shared/errors.js';
import { describeChanges } from '../../../work-memory/index/freshness.js';
import { terminalSafe } from '../../../shared/sanitize.js';
import { gatherStatus, type StatusReport } from './gather.js';

export interface StatusOptions {
  json?: boolean;
}

/** `agentos status`: what agentos would use here and what the index holds. Reads only. */
export async function runStatus(ctx: CommandContext, opts: StatusOptions): Promise<number> {
  const { io } = ctx;
  const root = ctx.root();
  const { config } = await ctx.config();
  const report = await gatherStatus(root, config, io.env);
  if (opts.json) io.stdout.write(JSON.stringify(report, null, 2) + '\n');
  else io.stdout.write(renderStatus(report));
  return ExitCode.Ok;
}

export function renderStatus(r: StatusReport): string {
  const lines: string[] = [`agentos status: ${r.root}`, ''];
  lines.push(`Config: ${r.config.file ?? 'no .agentos/config.yaml (all defaults; `agentos init` writes one)'}`);
  const width = Math.max(...r.config.settings.map((s) => s.key.length));
  for (const s of r.config.settings) lines.push(`  ${s.key.padEnd(width)}  ${JSON.stringify(s.value)}  (${s.source})`);
  lines.push('', 'Files matched per glob:');
  const gw = Math.max(0, ...r.globs.map((g) => g.glob.length));
  for (const g of r.globs)
    lines.push(`  ${g.type.padEnd(8)} ${g.glob.padEnd(gw)}  ${g.files}${g.files === 0 ? '  (matches nothing)' : ''}`);
  const src = r.sources;
  if (src.git || src.trackers.length) {
    lines.push('', 'Sources of completed work besides files:');
    if (src.git) {
      const g = src.git;
      const out = Object.entries(g.notWork ?? {})
        .map(([why, n]) => `${n} ${why}`)
        .join(', ');
      lines.push(
        `  git          ${g.ref ? `${g.documents} pieces of work on ${g.ref.replace(/^refs\/(heads|remotes)\//, '')} at ${g.head?.slice(0, 7) || '(no commit)'}` : 'not read yet: run `agentos index --include-history`'}`,
      );
      if (out) lines.push(`  not work     ${out}`);
    }
    for (const t of src.trackers)
      lines.push(
        `  tracker      ${t.path}: ${t.documents === null ? 'not read yet' : `${t.documents} pieces of work`}`,
      );
    if (src.changedSinceIndex.length) lines.push(`  changed      ${src.changedSinceIndex.join('; ')}`);
  }
  const m = r.model;
  lines.push('', `Model: ${m.id}`);
  lines.push(
    `  location     ${m.dir ?? 'Transformers.js cache (hub download)'} (from ${m.source})${m.dir && !m.present ? ' — MISSING' : ''}`,
  );
  lines.push(`  fingerprint  ${m.fingerprint}`);
  const i = r.index;
  lines.push('', 'Index:');
  if (i.state === 'no_index') lines.push('  none yet: run `agentos index --include-history`');
  else if (i.state === 'unreadable') lines.push(`  unreadable: ${i.error}`);
  else {
    lines.push(`  generation   ${i.generation}`);
    lines.push(`  built        ${i.createdAt}${i.ageSeconds !== null ? ` (${age(i.ageSeconds)} ago)` : ''}`);
    lines.push(`  covers       ${i.includeHistory ? 'standards + history' : 'standards only'}`);
    lines.push(
      `  documents    ${i.documents ? `${i.documents.standard} standard, ${i.documents.history} history` : 'unknown (index from an older agentos; `agentos index` records it)'}; ${i.chunks} chunks`,
    );
    lines.push(
      `  model        ${i.modelId} (${i.modelFingerprint})${i.incompatible ? ` — needs \`agentos index --full\`: ${i.incompatible}` : ''}`,
    );
    const c = i.changedSinceIndex;
    const n = c.added.length + c.changed.length + c.removed.length;
    lines.push(
      `  changed      ${n === 0 ? (c.configChanged ? 'corpus settings changed' : c.metadataOutdated ? 'issue ids read by an older agentos: `agentos index` re-reads them (no embedding)' : 'nothing since the index') : `${n} file${n === 1 ? '' : 's'}: ${describeChanges(c, 10)}`}`,
    );
  }
  lines.push(
    '',
    `Lock: ${r.lock.holder ? `held by pid ${r.lock.holder.pid} on ${r.lock.holder.host} since ${r.lock.holder.startedAt}${r.lock.holder.alive === false ? ' (process gone: the next run takes it over)' : ''}` : 'free'}`,
  );
  lines.push(`Log: ${r.log.file} (${kb(r.log.bytes)})`);
  const t = r.templates;
  lines.push(
    t === null
      ? 'Templates: none recorded (no lexical index yet: run `agentos index`)'
      : `Templates: ${t.shingles} boilerplate shingle${t.shingles === 1 ? '' : 's'} shared by >= ${t.minDocs} of ${t.docs} documents (left out of lexical scoring)`,
  );
  for (const e of t?.examples.slice(0, 5) ?? [])
    lines.push(`  ${e.docs} docs: "${terminalSafe(e.text.length > 70 ? e.text.slice(0, 69) + '…' : e.text)}"`);
  lines.push(...lineLines(r.line));
  return lines.join('\n') + '\n';
}

/** Which line scores a tracker's reports, and the figures that earned the project's own. */
function lineLines(l: StatusReport['line']): string[] {
  if (l.problem) return [`Line: the shipped model (calibration ${l.calibration}); ${l.problem}`];
  const p = l.project;
  if (!p) return [`Line: the shipped model (calibration ${l.calibration}); \`agentos calibrate\` can refit it here`];
  const f = (x: number) => `${(x * 100).toFixed(1)}%`;
  return [
    `Line: the project's own for tracker reports (project-line@${p.id})`,
    `  fitted ${p.fittedAt.slice(0, 10)} on ${p.labels.duplicates} duplicates and ${p.labels.others} others`,
    `  out of sample, project (shipped): AUC ${p.figures.project.auc.toFixed(3)} (${p.figures.shipped.auc.toFixed(3)})`,
    `  original first ${f(p.figures.project.top1)} (${f(p.figures.shipped.top1)}), false alerts ${f(p.figures.project.falseAlerts)} (${f(p.figures.shipped.falseAlerts)})`,
  ];
}

function age(s: number): string {
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} days`;
}

function kb(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}
