/**
 * Hook payloads → attempts. The input formats (docs/hooks.md):
 *
 * - Claude Code, and Codex CLI in the same shape: snake_case JSON on stdin with
 *   session_id, cwd, hook_event_name, tool_name, tool_input, tool_response
 *   (PostToolUse), error / is_interrupt (PostToolUseFailure), source (SessionStart).
 * - Gemini CLI: the same names; AfterTool's tool_response is { llmContent,
 *   returnDisplay, error? }, the shell tool writing "Exit Code: N" after the output in llmContent.
 *
 * An outcome is read only from where the agent itself puts it (Claude Code's opening
 * "Exit code N" line of `error`, Gemini CLI's trailer after the output, Cursor's `exitCode`),
 * never from the command's own output: `cat ci-log.txt` may print "Exit code: 2" and have worked.
 * - Cursor: beforeShellExecution { command, cwd }; postToolUse { tool_name "Shell",
 *   tool_input, tool_output (a JSON string) }; postToolUseFailure { error_message, failure_type }.
 * - Generic (docs/hooks.md "Generic format"), for any other agent:
 *   { "tool", "command" | "input", "outcome", "exit_code", "error",
 *     "context", "tags", "session_id", "cwd", "duration_ms" }.
 *
 * Nothing here redacts: the attempt memory redacts every field it writes.
 */
import {
  BACKGROUND_TAG,
  INTERRUPTED_TAG,
  isOutcome,
  OUTCOME_FROM_OUTPUT_TAG,
  OUTCOMES,
  type NewAttempt,
  type Outcome,
} from '../../attempt-memory/types.js';
import { failureSaidIn } from '../../attempt-memory/cause.js';
import { toolFamily } from '../../attempt-memory/normalise.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Bound what one payload can put into a record (a Write's whole file content is not an attempt). */
export const MAX_COMMAND_CHARS = 2000;
export const MAX_ERROR_CHARS = 2000;

export class PayloadError extends Error {}

export function parsePayload(text: string): Json {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new PayloadError(`payload is not JSON (${(e as Error).message.split('\n')[0]})`);
  }
  if (!isObject(v)) throw new PayloadError('payload is not a JSON object');
  return v;
}

/**
 * The command line of a tool call: Bash's `command`; for file tools the
 * path; otherwise the input's string fields, compact. Long values (a Write's
 * content) are left out, not truncated into a fake command.
 */
export function commandOf(toolName: string, input: unknown): string {
  if (!isObject(input)) return typeof input === 'string' ? bound(input, MAX_COMMAND_CHARS) : '';
  const command = str(input.command);
  if (command) return bound(command, MAX_COMMAND_CHARS);
  const parts: string[] = [];
  for (const key of ['file_path', 'notebook_path', 'path', 'url', 'pattern', 'query', 'description']) {
    const v = str(input[key]);
    if (v && v.length <= 500) parts.push(`${key}=${v}`);
  }
  if (parts.length === 0) {
    for (const [k, v] of Object.entries(input)) if (typeof v === 'string' && v.length <= 200) parts.push(`${k}=${v}`);
  }
  return bound(parts.length ? `${toolName} ${parts.join(' ')}` : toolName, MAX_COMMAND_CHARS);
}

function bound(s: string, n: number): string {
  return s.length <= n ? s : s.slice(0, n - 1) + '…';
}

/** The last lines of an error text, bounded (the end of stderr says what went wrong). */
export function tail(s: string, n = MAX_ERROR_CHARS): string {
  const t = s.trim();
  return t.length <= n ? t : '…' + t.slice(t.length - n + 1);
}

/** The tool a post-tool payload reports; a payload naming none is not a tool call (an empty stdin, another event's payload). */
function toolNameOf(p: Json): string {
  const tool = str(p.tool_name)?.trim();
  if (!tool) throw new PayloadError('no "tool_name": not a tool call');
  return tool;
}

/**
 * "Exit code 2" (Claude Code's first line of a Bash failure) or "Command exited with non-zero status code 127"
 * opening the text → the number. Only for a field the agent writes that way, and only its opening line: the
 * output after it is the command's own ("HTTP status 404" is not its exit code).
 */
export function exitCodeFromText(s: string | null): number | null {
  if (!s) return null;
  const m = /^\s*(?:(?:command|process)\s+)?exit(?:ed)?\b(?:[^\d\n-]|-(?!\d)){0,40}?(-?\d{1,3})\b/i.exec(s);
  return m ? Number(m[1]) : null;
}

/** A Claude Code PostToolUse / PostToolUseFailure payload → the attempt to record. */
export function claudeAttempt(p: Json, event: 'PostToolUse' | 'PostToolUseFailure'): NewAttempt {
  const tool = toolNameOf(p);
  const response = p.tool_response;
  let outcome: Outcome = event === 'PostToolUseFailure' ? 'failure' : 'success';
  let error: string | null = null;
  let exitCode: number | null = null;
  if (event === 'PostToolUseFailure') {
    // Aborted rather than failed (Claude Code's hooks reference): whether it would have worked nobody saw.
    if (p.is_interrupt === true) return unfinished(p, tool, INTERRUPTED_TAG);
    error = str(p.error) ?? str(p.error_message) ?? 'tool call failed';
    exitCode = exitCodeFromText(error);
    // Claude Code's Bash error is "Exit code N" then the output: the number is kept apart, the output is the error.
    const rest = /^exit code -?\d+\r?\n([\s\S]+)$/i.exec(error);
    if (rest && rest[1].trim()) error = rest[1];
  } else if (typeof response === 'string') {
    return outputAttempt(p, tool, response);
  } else if (isObject(response)) {
    // A cancelled Bash call ends here with `interrupted: true`; one sent to the background has not ended.
    if (response.interrupted === true) return unfinished(p, tool, INTERRUPTED_TAG);
    if (str(response.backgroundTaskId)) return unfinished(p, tool, BACKGROUND_TAG);
    // Some tools report failure inside a "successful" call.
    exitCode = num(response.exit_code) ?? num(response.exitCode) ?? num(response.returnCode);
    if (response.success === false || response.is_error === true || (exitCode !== null && exitCode !== 0)) {
      outcome = 'failure';
      error = str(response.error) ?? str(response.stderr) ?? 'tool reported failure';
    }
  }
  return {
    tool,
    command: commandOf(tool, p.tool_input),
    outcome,
    exitCode: exitCode ?? (outcome === 'success' && toolFamily(tool) === 'shell' ? 0 : null),
    error: error ? tail(error) : null,
    context: contextOf(p.tool_input),
    sessionId: str(p.session_id) ?? undefined,
  };
}

/**
 * A tool's output as plain text with no exit status (Codex's PostToolUse hands the shell tool's
 * raw output: codex-rs ExecCommandToolOutput::post_tool_use_response). Not guessed: no line of the
 * output is read as the status (Codex never writes one there; an "Exit code: 2" is the command's own
 * text). A failure only where a known tool says so in its own words (cause.ts), tagged as read from
 * the output; else the outcome is unknown.
 */
function outputAttempt(p: Json, tool: string, output: string): NewAttempt {
  const base = callOf(p, tool);
  const said = failureSaidIn(output, base.command);
  // The line that told is kept in the error even when the output is longer than what a record holds.
  const error = (e: string) =>
    e.includes(said!.line) ? e : tail(`${said!.line}\n…\n${tail(output, MAX_ERROR_CHARS - said!.line.length - 3)}`);
  if (said)
    return { ...base, outcome: 'failure', exitCode: null, error: error(tail(output)), tags: [OUTCOME_FROM_OUTPUT_TAG] };
  return { ...base, outcome: 'unknown', exitCode: null, error: null };
}

/** A tool call that did not run to its end (interrupted, cancelled, sent to the background): kept as tried, of unknown outcome. */
function unfinished(p: Json, tool: string, tag: string): NewAttempt {
  const command = str(p.command) ?? commandOf(tool, p.tool_input);
  return {
    tool,
    command,
    outcome: 'unknown',
    exitCode: null,
    error: null,
    context: contextOf(p.tool_input),
    tags: [tag],
    sessionId: str(p.session_id) ?? str(p.conversation_id) ?? undefined,
  };
}

/**
 * What Gemini CLI's shell tool says of a command, read from its llmContent (packages/core/src/tools/shell.ts
 * on main @ c776c665): `Output: <the command's output>`, then one line each for `Error:`, `Exit Code: N` (only
 * when N is not 0), `Signal:`, `Background PIDs:`, `Process Group PGID:`. The status is in that trailer,
 * after the output: the output itself may hold any "Exit Code: N" line. returnDisplay is the output
 * (when there is one and debug mode is off), so where llmContent opens with `Output: <returnDisplay>` the
 * trailer is exactly the rest; otherwise it is the trailing run of such lines.
 */
function geminiShell(
  content: string,
  display: string | null,
): { ran: 'yes' | 'no' | 'unknown'; exitCode: number | null; signal: string | null; body: string } {
  // 0.62 and later wrap it (textUtils.ts wrapUntrusted).
  const body = content.replace(/^\s*<untrusted_context>\n?/, '').replace(/\n?<\/untrusted_context>\s*$/, '');
  if (!body.startsWith('Output: ')) {
    // Shapes of a command that never ran: blocked ("Command injection detected", policy), not started, outside the workspace.
    const notRun =
      /^(Command injection detected|Command was cancelled by user before it could start|Sandbox expansion required)/.test(
        body,
      ) || body === 'Path not in workspace.';
    return { ran: notRun ? 'no' : 'unknown', exitCode: null, signal: null, body };
  }
  const lines = body.split('\n');
  let trailer: string[];
  const opening = [display !== null && display !== '' ? `Output: ${display}` : null, 'Output: (empty)'].find(
    (o) => o !== null && (body === o || body.startsWith(`${o}\n`)),
  );
  if (opening) trailer = body.slice(opening.length + 1).split('\n');
  else {
    let i = lines.length;
    while (i > 1 && /^(Error|Exit Code|Signal|Background PIDs|Process Group PGID): /.test(lines[i - 1])) i--;
    trailer = lines.slice(i);
  }
  // The last: shell.ts writes its own after the output, and a trailing run may begin with the output's own last line.
  const code = trailer.map((l) => /^Exit Code: (-?\d{1,3})$/.exec(l)).findLast(Boolean);
  const signal = trailer.map((l) => /^Signal: (?!\(none\))(\S+)/.exec(l)).findLast(Boolean);
  return { ran: 'yes', exitCode: code ? Number(code[1]) : null, signal: signal ? signal[0] : null, body };
}

/**
 * A Gemini CLI AfterTool payload → the attempt; null for a shell command the tool refused to run (it fires
 * AfterTool for those too: "Command injection detected", coreToolHookTriggers.ts).
 */
export function geminiAttempt(p: Json): NewAttempt | null {
  const tool = toolNameOf(p);
  const response = isObject(p.tool_response) ? p.tool_response : {};
  const content =
    typeof response.llmContent === 'string'
      ? response.llmContent
      : Array.isArray(response.llmContent)
        ? response.llmContent.map((x) => (isObject(x) ? (str(x.text) ?? '') : String(x))).join('\n')
        : '';
  const failed = isObject(response.error) ? (str(response.error.message) ?? 'tool failed') : str(response.error);
  const display = str(response.returnDisplay);
  const base = callOf(p, tool);
  if (toolFamily(tool) !== 'shell') {
    // Other tools say a failure in `error` only.
    return { ...base, outcome: failed ? 'failure' : 'success', exitCode: null, error: failed ? tail(failed) : null };
  }
  const shell = geminiShell(content, display);
  if (shell.ran === 'no' && failed === null) return null;
  if (failed === null && shell.exitCode === null) {
    // shell.ts: a command cancelled by the person, or moved to the background, has not ended.
    if (/^Command was cancelled by user/.test(shell.body)) return unfinished(p, tool, INTERRUPTED_TAG);
    if (
      /^Command (moved to|is running in) background/.test(shell.body) ||
      (isObject(p.tool_input) && p.tool_input.is_background === true)
    )
      return unfinished(p, tool, BACKGROUND_TAG);
  }
  // A command cut off by the inactivity timeout or killed by a signal has failed (no exit code either way).
  const cutOff = /^Command was automatically cancelled/.test(shell.body) ? shell.body.split('\n')[0] : shell.signal;
  if (shell.ran === 'unknown' && failed === null && cutOff === null)
    return { ...base, outcome: 'unknown', exitCode: null, error: null };
  const failure = failed !== null || cutOff !== null || (shell.exitCode !== null && shell.exitCode !== 0);
  // returnDisplay is the command's own output (llmContent wraps it in "Output: …", "Process Group PGID: …" and, in 0.62, <untrusted_context>).
  const output = display ?? content;
  return {
    ...base,
    outcome: failure ? 'failure' : 'success',
    exitCode: shell.exitCode ?? (!failure ? 0 : null),
    error: failure
      ? tail(
          failed ??
            ([output, cutOff && !output.includes(cutOff) ? cutOff : null].filter(Boolean).join('\n') || 'tool failed'),
        )
      : null,
  };
}

/** Cursor's beforeShellExecution gives the command line itself; its tool hooks give tool_name and tool_input. */
export function cursorToolCall(p: Json): { tool: string; command: string; context: string | null } | null {
  const command =
    str(p.command) ?? (p.tool_input !== undefined ? commandOf(str(p.tool_name) ?? 'Shell', p.tool_input) : null);
  return command ? { tool: str(p.tool_name) ?? 'Shell', command, context: null } : null;
}

/**
 * A Cursor postToolUse / postToolUseFailure payload → the attempt; null when there is none to
 * record (the person denied the command: it never ran). tool_output is a JSON string:
 * { exitCode, stdout } in Cursor's docs, { output, exitCode } from the CLI (test/fixtures/hooks/README.md).
 */
export function cursorAttempt(p: Json, event: 'post-tool-use' | 'post-tool-use-failure'): NewAttempt | null {
  const tool = str(p.tool_name) ?? 'Shell';
  const command = str(p.command) ?? commandOf(tool, p.tool_input);
  // A record of nothing (no tool named, no command) would be a made-up attempt: the payload is not one of Cursor's.
  if (!str(p.tool_name) && !str(p.command)?.trim())
    throw new PayloadError('no "tool_name" or "command": not a tool call');
  if (event === 'post-tool-use-failure') {
    if (p.failure_type === 'permission_denied') return null;
    if (p.is_interrupt === true) return unfinished(p, tool, INTERRUPTED_TAG);
    // error_message is the command's own output (no exit-code line of Cursor's): no status is read from it.
    const error = str(p.error_message) ?? str(p.failure_type) ?? 'tool call failed';
    return {
      tool,
      command,
      outcome: 'failure',
      exitCode: null,
      error: tail(error),
      sessionId: str(p.session_id) ?? str(p.conversation_id) ?? undefined,
    };
  }
  let output: unknown = p.tool_output;
  if (typeof output === 'string') {
    try {
      output = JSON.parse(output);
    } catch {
      /* plain text output: no exit code to read */
    }
  }
  const o = isObject(output) ? output : {};
  // Cursor's exitCode field; plain-text output says nothing of the status ("Exit code: 1" in it is the command's).
  const exitCode = num(o.exitCode) ?? num(o.exit_code);
  const failure = exitCode !== null && exitCode !== 0;
  const error = failure ? (str(o.stderr) ?? str(o.stdout) ?? str(o.output) ?? 'non-zero exit') : null;
  // postToolUse fires after the tool ran; a shell command's status is its exit code, and with none it is not known.
  const unknown = exitCode === null && toolFamily(tool) === 'shell';
  return {
    tool,
    command,
    outcome: unknown ? 'unknown' : failure ? 'failure' : 'success',
    exitCode,
    error: error ? tail(error) : null,
    sessionId: str(p.session_id) ?? str(p.conversation_id) ?? undefined,
  };
}

/** What every attempt of a tool call says besides its outcome: the tool, its command line, what it was for, the session. */
function callOf(p: Json, tool: string): Pick<NewAttempt, 'tool' | 'command' | 'context' | 'sessionId'> {
  return {
    tool,
    command: commandOf(tool, p.tool_input),
    context: contextOf(p.tool_input),
    sessionId: str(p.session_id) ?? undefined,
  };
}

/** Bash's `description` says what the command was for: the attempt's context. */
function contextOf(input: unknown): string | null {
  return isObject(input) ? str(input.description) : null;
}

/** A generic-format record → the attempt to record. */
export function genericAttempt(p: Json): NewAttempt {
  const tool = str(p.tool);
  const outcome = p.outcome;
  if (!tool) throw new PayloadError('generic record: "tool" (a non-empty string) is required');
  if (!isOutcome(outcome))
    throw new PayloadError(`generic record: "outcome" must be ${OUTCOMES.map((o) => `"${o}"`).join(', ')}`);
  const command = str(p.command) ?? commandOf(tool, p.input);
  const tags = Array.isArray(p.tags) ? p.tags.filter((t): t is string => typeof t === 'string' && t !== '') : undefined;
  const error = str(p.error);
  return {
    tool,
    command,
    outcome,
    exitCode: num(p.exit_code),
    durationMs: num(p.duration_ms),
    error: error ? tail(error) : null,
    context: str(p.context),
    tags,
    sessionId: str(p.session_id) ?? undefined,
  };
}

/** The tool call a pre-tool check is about: Claude Code's or the generic format's. */
export function toolCallOf(p: Json): { tool: string; command: string; context: string | null } | null {
  const tool = str(p.tool_name) ?? str(p.tool);
  if (!tool) return null;
  const command = str(p.command) ?? commandOf(tool, p.tool_input ?? p.input);
  if (!command) return null;
  return { tool, command, context: str(p.context) ?? contextOf(p.tool_input) };
}
