/** `agentos attempt record`: one attempt by hand, or JSON from stdin (tools that are not hooks). */
import type { CommandContext } from '../../../context.js';
import { shareBestEffort } from '../../../../attempt-memory/share.js';
import { isOutcome, OUTCOMES, type NewAttempt, type Outcome } from '../../../../attempt-memory/types.js';
import { ExitCode, UsageError, errorMessage } from '../../../../shared/errors.js';
import { loadProject } from '../common.js';

export interface RecordOptions {
  outcome?: Outcome;
  tool: string;
  command?: string;
  error?: string;
  context?: string;
  tags: string[];
  exitCode?: number;
  durationMs?: number;
  session?: string;
  work?: string;
  json?: boolean;
}

export async function runAttemptRecord(
  ctx: CommandContext,
  source: string | undefined,
  opts: RecordOptions,
): Promise<number> {
  const { io } = ctx;
  let attempts: NewAttempt[];
  if (source === '-') {
    if (opts.command || opts.outcome)
      throw new UsageError('attempt record -: the attempt comes from stdin; do not also give --command or --outcome');
    // --work applies to records from stdin that do not name their own.
    attempts = parseAttempts(await readAll(io.stdin));
  } else if (source !== undefined) {
    throw new UsageError(`attempt record: unexpected argument "${source}" (use - to read JSON from stdin)`);
  } else {
    if (!opts.outcome) throw new UsageError('attempt record: --outcome success|failure|unknown is required');
    if (opts.command === undefined || opts.command.trim() === '')
      throw new UsageError('attempt record: --command is required');
    attempts = [
      {
        tool: opts.tool,
        command: opts.command,
        outcome: opts.outcome,
        error: opts.error,
        context: opts.context,
        tags: opts.tags,
        exitCode: opts.exitCode,
        durationMs: opts.durationMs,
        work: opts.work,
      },
    ];
  }
  const project = await loadProject(ctx);
  if (!project.config.attempts.enabled) {
    io.stderr.write(
      'agentos: attempt memory is off (attempts.enabled: false in .agentos/config.yaml); nothing recorded.\n',
    );
    if (opts.json) io.stdout.write(JSON.stringify({ recorded: [] }, null, 2) + '\n');
    return ExitCode.Ok;
  }
  const memory = await ctx.attempts('write', opts.session);
  try {
    const recorded = attempts.map((a) =>
      memory.record({ ...a, sessionId: a.sessionId ?? opts.session, work: a.work ?? opts.work }),
    );
    // attempts.scope: org: sent to the team now, or queued for a later run (one warning says which).
    const warning = await shareBestEffort(ctx.root(), project.config, memory.queue, io.env, 'send');
    if (warning) io.stderr.write(`agentos: warning: ${warning}\n`);
    if (opts.json) io.stdout.write(JSON.stringify({ recorded }, null, 2) + '\n');
    else
      for (const r of recorded)
        io.stdout.write(`Recorded ${r.outcome} ${r.id}${r.tags.length ? ` (tags: ${r.tags.join(', ')})` : ''}\n`);
  } finally {
    memory.close();
  }
  return ExitCode.Ok;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

const FIELDS = new Set([
  'tool',
  'command',
  'outcome',
  'exitCode',
  'durationMs',
  'error',
  'context',
  'tags',
  'sessionId',
  'cwd',
  'time',
  'work',
]);

/** One JSON object, a JSON array of them, or JSON lines. Errors name stdin, the line and the field. */
export function parseAttempts(text: string): NewAttempt[] {
  if (text.trim() === '') throw new UsageError('stdin: no attempt given (expected a JSON object)');
  let values: { value: unknown; where: string }[];
  try {
    const whole = JSON.parse(text) as unknown;
    values = (Array.isArray(whole) ? whole : [whole]).map((value, i) => ({
      value,
      where: Array.isArray(whole) ? `stdin: item ${i + 1}` : 'stdin',
    }));
  } catch {
    values = [];
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        values.push({ value: JSON.parse(line), where: `stdin: line ${i + 1}` });
      } catch (e) {
        throw new UsageError(`stdin: line ${i + 1}: not JSON (${errorMessage(e)})`);
      }
    });
  }
  return values.map(({ value, where }) => validateAttempt(value, where));
}

function validateAttempt(v: unknown, where: string): NewAttempt {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new UsageError(`${where}: expected a JSON object`);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!FIELDS.has(k)) throw new UsageError(`${where}: ${k}: unknown field (allowed: ${[...FIELDS].join(', ')})`);
  const str = (k: string, required = false): string | undefined => {
    if (o[k] === undefined || o[k] === null) {
      if (required) throw new UsageError(`${where}: ${k}: required`);
      return undefined;
    }
    if (typeof o[k] !== 'string') throw new UsageError(`${where}: ${k}: expected a string`);
    return o[k] as string;
  };
  const int = (k: string): number | undefined => {
    if (o[k] === undefined || o[k] === null) return undefined;
    if (typeof o[k] !== 'number' || !Number.isInteger(o[k]))
      throw new UsageError(`${where}: ${k}: expected an integer`);
    return o[k] as number;
  };
  const outcome = str('outcome', true);
  if (!isOutcome(outcome))
    throw new UsageError(`${where}: outcome: expected ${OUTCOMES.map((o) => `"${o}"`).join(', ')}`);
  if (o.tags !== undefined && (!Array.isArray(o.tags) || o.tags.some((t) => typeof t !== 'string')))
    throw new UsageError(`${where}: tags: expected a list of strings`);
  const time = str('time');
  if (time !== undefined && Number.isNaN(new Date(time).getTime())) throw new UsageError(`${where}: time: not a date`);
  return {
    tool: str('tool') ?? 'shell',
    command: str('command', true)!,
    outcome,
    exitCode: int('exitCode'),
    durationMs: int('durationMs'),
    error: str('error'),
    context: str('context'),
    tags: o.tags as string[] | undefined,
    sessionId: str('sessionId'),
    cwd: str('cwd'),
    time,
    work: str('work'),
  };
}
