/** How attempts and repeat warnings look on a terminal (plain text; --json prints the records). */
import { terminalSafe } from '../shared/sanitize.js';
import { plainStyle, type Style } from '../shared/style.js';
import type { AttemptRecord, RepeatWarning } from './types.js';

/** How to colour: the one style (src/shared/style.ts); plain by default. */
export type Paint = Style;
export const plainPaint: Paint = plainStyle;

const day = (iso: string) => iso.slice(0, 10);

/** Error text on one line, bounded: the warning names the error, it does not replay the log. */
function errorLine(error: string | null): string | null {
  if (!error) return null;
  const lines = error
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  // The most telling line is usually the last one that says "error"/"not found", else the last.
  const telling =
    [...lines].reverse().find((l) => /error|not found|denied|failed|fatal|cannot|unable/i.test(l)) ??
    lines[lines.length - 1];
  return telling.length > 200 ? `${telling.slice(0, 199)}…` : telling;
}

/** The warning before repeating a known failure: date, command, error, what worked instead. */
/** A record with every shown string made safe for a terminal (an agent's command may carry escapes). */
function safeRecord(a: AttemptRecord): AttemptRecord {
  const t = (s: string | null) => (s === null ? null : terminalSafe(s));
  return {
    ...a,
    tool: terminalSafe(a.tool),
    command: terminalSafe(a.command),
    context: t(a.context),
    cause: t(a.cause),
    work: t(a.work),
    branch: t(a.branch),
    ...(a.origin ? { origin: terminalSafe(a.origin) } : {}),
    cwd: terminalSafe(a.cwd),
    sessionId: terminalSafe(a.sessionId),
    tags: a.tags.map(terminalSafe),
    error: a.error === null ? null : a.error.split('\n').map(terminalSafe).join('\n'),
  };
}

export function renderRepeatWarning(
  raw: RepeatWarning[],
  threshold: number,
  lookbackDays: number,
  p: Paint = plainPaint,
): string {
  const warnings = raw.map((w) => ({
    ...w,
    failure: safeRecord(w.failure),
    workedInstead: w.workedInstead ? safeRecord(w.workedInstead) : null,
  }));
  // The same command failing three times is one warning "(3 times)", shown with its latest failure.
  const groups = new Map<string, { w: RepeatWarning; times: number }>();
  for (const w of warnings) {
    const g = groups.get(w.failure.command);
    if (g) g.times++;
    else groups.set(w.failure.command, { w, times: 1 });
  }
  const n = warnings.length;
  const lines = [
    p.bold(
      p.yellow(
        `⚠ This resembles ${n === 1 ? 'a failure' : `${n} failures`} of the last ${lookbackDays} days (similarity ≥ ${threshold})`,
      ),
    ),
  ];
  const shown = [...groups.values()];
  for (const { w, times } of shown.slice(0, 3)) {
    const f = w.failure;
    const facts = [
      `similarity ${w.score.toFixed(2)}`,
      f.exitCode !== null ? `exit ${f.exitCode}` : null,
      times > 1 ? `${times} times` : null,
    ]
      .filter(Boolean)
      .join(', ');
    lines.push(`  ${p.red('✗')} ${day(f.time)}  ${p.bold(f.command)}  ${p.dim(`(${facts})`)}`);
    const err = f.cause ?? errorLine(f.error);
    if (err) lines.push(`      error: ${err}`);
    if (f.context) lines.push(`      for: ${f.context}`);
    if (f.origin) lines.push(`      by: ${f.origin} (the team store)`);
    const ok = w.workedInstead;
    // A teammate's success says whose it is, as a teammate's failure does: "worked" is their word, not this machine's.
    if (ok)
      lines.push(
        `      ${p.green('✓')} worked instead: \`${ok.command}\`, ${day(ok.time)}${ok.context && ok.context !== f.context ? ` (${ok.context})` : ''}${ok.origin ? `, by ${ok.origin} (the team store)` : ''}`,
      );
  }
  if (shown.length > 3) lines.push(p.dim(`  … and ${shown.length - 3} more (agentos attempt check --json)`));
  return lines.join('\n') + '\n';
}

/** One line per attempt for `attempt list`. */
export function renderAttemptLine(record: AttemptRecord, p: Paint = plainPaint): string {
  const a = safeRecord(record);
  const mark = a.outcome === 'success' ? p.green('✓') : a.outcome === 'failure' ? p.red('✗') : p.dim('?');
  const flags = [
    a.outcome === 'unknown' ? 'outcome unknown' : null,
    a.archived ? 'archived' : null,
    a.overriddenBy ? `overridden by ${a.overriddenBy}` : null,
  ]
    .filter(Boolean)
    .join(', ');
  const head = `${mark} ${a.time.slice(0, 16).replace('T', ' ')}  ${a.tool}  ${p.bold(a.command)}${a.exitCode !== null ? p.dim(`  exit ${a.exitCode}`) : ''}${flags ? p.dim(`  [${flags}]`) : ''}`;
  const more = [
    `    id ${a.id}  session ${a.sessionId}${a.cwd !== '.' ? `  cwd ${a.cwd}` : ''}${a.work ? `  work #${a.work}` : ''}${a.branch ? `  branch ${a.branch}` : ''}${a.origin ? `  by ${a.origin}` : ''}`,
    a.context ? `    for: ${a.context}` : null,
    a.error ? `    error: ${a.cause ?? errorLine(a.error)}` : null,
    a.tags.length ? `    tags: ${a.tags.join(', ')}` : null,
  ].filter((l): l is string => l !== null);
  return [head, ...more.map((l) => p.dim(l))].join('\n') + '\n';
}
