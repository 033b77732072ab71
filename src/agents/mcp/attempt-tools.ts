/** `attempt_check` and `attempt_record`: the attempt memory, kept open by the session. */
import { renderRepeatWarning } from '../../attempt-memory/render.js';
import { shareBestEffort } from '../../attempt-memory/share.js';
import type { AttemptRecord, NewAttempt, RepeatWarning } from '../../attempt-memory/types.js';
import type { ProjectSession } from './session.js';
import { quotePast } from '../../work-memory/output/sections.js';

export interface RepeatCheck {
  command: string;
  repeat: boolean;
  threshold: number;
  lookbackDays: number;
  method: 'lexical:attempts';
  warnings: RepeatWarning[];
  /** Why nothing was consulted (memory off); null when it was. */
  skipped: string | null;
}

export async function attemptCheck(
  s: ProjectSession,
  a: { command: string; tool: string; context: string | null },
): Promise<RepeatCheck> {
  const r = s.config.attempts;
  const base = {
    command: a.command,
    threshold: r.repeatThreshold,
    lookbackDays: r.failureLookbackDays,
    method: 'lexical:attempts' as const,
  };
  if (!r.enabled)
    return { ...base, repeat: false, warnings: [], skipped: 'the attempt memory is off (attempts.enabled: false)' };
  const warnings = (await s.attempts('read')).checkRepeat({
    tool: a.tool,
    command: a.command,
    context: a.context,
    tags: [],
  });
  return { ...base, repeat: warnings.length > 0, warnings, skipped: null };
}

export function renderRepeat(r: RepeatCheck): string {
  if (r.skipped) return `Not checked: ${r.skipped}.`;
  if (!r.repeat) return `No similar failure in the last ${r.lookbackDays} days.`;
  return renderRepeatWarning(r.warnings.map(oneLineEach), r.threshold, r.lookbackDays).trimEnd();
}

/** What a recorded attempt says, one line each for the model (a multi-line command or error could otherwise lay out lines of its own). */
function oneLineEach(w: RepeatWarning): RepeatWarning {
  const line = (s: string | null) => (s === null ? null : quotePast(s, 300));
  const record = <T extends { command: string; context: string | null }>(a: T): T => ({
    ...a,
    command: quotePast(a.command, 300),
    context: line(a.context),
  });
  return {
    ...w,
    failure: { ...record(w.failure), cause: line(w.failure.cause), error: line(w.failure.error) },
    workedInstead: w.workedInstead ? record(w.workedInstead) : null,
  };
}

export async function attemptRecord(
  s: ProjectSession,
  a: NewAttempt,
): Promise<{ recorded: AttemptRecord | null; reason: string | null; shared?: string }> {
  if (!s.config.attempts.enabled)
    return { recorded: null, reason: 'the attempt memory is off (attempts.enabled: false)' };
  const memory = await s.attempts('write');
  const recorded = memory.record({ ...a, sessionId: a.sessionId ?? s.sessionId });
  // attempts.scope: org: to the team now, or queued for later (the answer says which).
  const warning = await shareBestEffort(s.root, s.config, memory.queue, s.env, 'send');
  return { recorded, reason: null, ...(warning ? { shared: warning } : {}) };
}
