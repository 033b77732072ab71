/**
 * `agentos hooks run <event>`: the one command agent settings point to.
 *
 * Runs on every tool call, so it is kept off the slow paths: no commander and no
 * model; modules are imported only for the event at hand (hnswlib only when the
 * session-start context must rebuild the index knowledge cache, src/knowledge). Any
 * error of its own fails open: exit 0, one line on stderr, no stdout (Claude
 * Code treats exit 0 without output as "carry on").
 */
import type { AttemptMemoryHandle } from '../../attempt-memory/open.js';
import type { AttemptMemory, NewAttempt, RepeatWarning } from '../../attempt-memory/types.js';
import type { Config } from '../../shared/config/schema.js';
import type { IO } from '../../shared/io.js';
import { pastCode, pastQuote, quotePast } from '../../work-memory/output/sections.js';
import { toolFamily } from '../../attempt-memory/normalise.js';
import {
  claudeAttempt,
  cursorAttempt,
  cursorToolCall,
  geminiAttempt,
  genericAttempt,
  parsePayload,
  toolCallOf,
} from './payload.js';

import { HOOK_EVENTS, type HOOK_FORMATS, type HOOK_ON_REPEAT } from '../../shared/option-values.js';

export { HOOK_EVENTS };
export type HookEvent = (typeof HOOK_EVENTS)[number];
export type HookFormat = (typeof HOOK_FORMATS)[number];
export type OnRepeat = (typeof HOOK_ON_REPEAT)[number];

export interface HookRunOptions {
  format: HookFormat;
  onRepeat: OnRepeat;
}

export interface HookDeps {
  /** `read`: a check or the session context (nothing is created when nothing was recorded). */
  openMemory(root: string, config: Config, cwd: string | undefined, purpose: 'read' | 'write'): Promise<AttemptMemory>;
  /** The session-start context (markdown), already bounded. */
  recall(root: string, config: Config, memory: AttemptMemory | null): Promise<string>;
}

/** Payloads larger than this are not a tool call we can learn from; read no further. */
export const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;
const STDIN_TIMEOUT_MS = 3000;

const CLAUDE_EVENT: Record<HookEvent, string> = {
  'session-start': 'SessionStart',
  'pre-tool-use': 'PreToolUse',
  'post-tool-use': 'PostToolUse',
  'post-tool-use-failure': 'PostToolUseFailure',
};

export async function runHook(event: string, io: IO, opts: HookRunOptions, deps?: HookDeps): Promise<number> {
  try {
    if (!(HOOK_EVENTS as readonly string[]).includes(event))
      throw new Error(`unknown event "${event}" (expected ${HOOK_EVENTS.join(', ')})`);
    const text = await readStdin(io.stdin);
    const payload = text.trim() === '' ? {} : parsePayload(text);
    const out = await handle(event as HookEvent, payload, io, opts, deps ?? (await defaultDeps()));
    if (out !== null) io.stdout.write(JSON.stringify(out) + '\n');
  } catch (e) {
    io.stderr.write(
      `agentos: hook ${event} skipped (fail open): ${(e as Error).message?.split('\n')[0] ?? String(e)}\n`,
    );
  }
  return 0;
}

async function handle(
  event: HookEvent,
  payload: Record<string, unknown>,
  io: IO,
  opts: HookRunOptions,
  deps: HookDeps,
): Promise<unknown> {
  const { projectRootOrNull } = await import('../../shared/project.js');
  const { loadConfig } = await import('../../shared/config/load.js');
  const cwd =
    payloadCwd(payload) ??
    io.env.CLAUDE_PROJECT_DIR ??
    io.env.GEMINI_PROJECT_DIR ??
    io.env.CURSOR_PROJECT_DIR ??
    io.cwd;
  // A hook never creates a project: an agent working in a folder outside any project (no .agentos/, no .git)
  // leaves nothing behind (a user-wide install would otherwise scatter .agentos/ folders).
  const root = projectRootOrNull(cwd);
  if (root === null) return null;
  const { config } = await loadConfig(root);
  const settings = attemptSettings(config);

  if (event === 'session-start') {
    if (!settings.autoInject) return null; // the user turned session-start context off
    let memory: AttemptMemory | null = null;
    const sharing = config.attempts.scope === 'org';
    try {
      // Shared attempts: the team's recent ones are read in first (written here, so opened for writing).
      memory = await deps.openMemory(root, config, cwd, sharing ? 'write' : 'read');
      if (sharing) await shareFromHook(root, config, memory, io, 'pull');
    } catch (e) {
      io.stderr.write(
        `agentos: attempt memory unavailable, session context without it: ${(e as Error).message.split('\n')[0]}\n`,
      );
    }
    try {
      const context = await deps.recall(root, config, memory);
      if (!context) return null;
      return sessionContext(opts.format, context);
    } finally {
      memory?.close();
    }
  }

  if (!settings.enabled) return null;
  // What a post-tool payload reports, read before the memory is opened: a call that never ran (Cursor's
  // permission_denied) opens, and so creates, nothing.
  const attempt = event === 'pre-tool-use' ? null : attemptOf(opts.format, event, payload);
  if (event !== 'pre-tool-use' && attempt === null) return opts.format === 'generic' ? { recorded: null } : null;
  // VS Code runs the hooks of .claude/settings.json with their matchers ignored: what they would not match is left alone.
  if (
    opts.format === 'claude' &&
    !installedMatcherTakes(event, typeof payload.tool_name === 'string' ? payload.tool_name : '')
  )
    return null;
  const memory = await deps.openMemory(root, config, cwd, event === 'pre-tool-use' ? 'read' : 'write');
  try {
    if (event === 'pre-tool-use') {
      if (!settings.warnOnDuplicateFailure) return null;
      const call = opts.format === 'cursor' ? cursorToolCall(payload) : toolCallOf(payload);
      if (!call) return null;
      const warnings = memory.checkRepeat(call);
      if (warnings.length === 0) return opts.format === 'generic' ? { warnings: [] } : null;
      const text = warningText(warnings[0]);
      return repeatAnswer(opts, text, warnings);
    }
    // post-tool-use / post-tool-use-failure: record (the attempt memory records it relative to the project root).
    const rec = memory.record({ ...attempt!, cwd: attempt!.cwd ?? cwd });
    if (config.attempts.scope === 'org') await shareFromHook(root, config, memory, io, 'send');
    return opts.format === 'generic' ? { recorded: rec.id, outcome: rec.outcome, tags: rec.tags } : null;
  } finally {
    memory.close();
  }
}

/** Attempts shared with the team (attempts.scope: org), loaded only then; a failure is one line on stderr, the records stay queued. */
async function shareFromHook(
  root: string,
  config: Config,
  memory: AttemptMemory,
  io: IO,
  mode: 'send' | 'pull',
): Promise<void> {
  const queue = (memory as Partial<AttemptMemoryHandle>).queue ?? null;
  const { shareBestEffort, HOOK_STORE_DEADLINE_MS } = await import('../../attempt-memory/share.js');
  const warning = await shareBestEffort(root, config, queue, io.env, mode, undefined, HOOK_STORE_DEADLINE_MS);
  if (warning) io.stderr.write(`agentos: ${warning}\n`);
}

/** Where the agent ran: its payload's cwd (Cursor: the first workspace root). */
function payloadCwd(p: Record<string, unknown>): string | null {
  if (typeof p.cwd === 'string' && p.cwd !== '') return p.cwd;
  const roots = p.workspace_roots;
  return Array.isArray(roots) && typeof roots[0] === 'string' && roots[0] !== '' ? roots[0] : null;
}

/** The session-start context as each agent reads it (Claude Code, Codex and Gemini CLI: additionalContext; Cursor: additional_context). */
function sessionContext(format: HookFormat, context: string): unknown {
  if (format === 'generic') return { context };
  if (format === 'cursor') return { additional_context: context };
  return { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: context } };
}

/**
 * A repeat warning in the agent's words. agentos never denies (a known failure may
 * work now): it tells the agent and the person, or with --on-repeat ask lets the
 * person confirm where the agent can ask.
 */
function repeatAnswer(opts: HookRunOptions, text: string, warnings: RepeatWarning[]): unknown {
  const ask = opts.onRepeat === 'ask';
  switch (opts.format) {
    case 'generic':
      return { warnings: warnings.map(warningJson), message: text };
    case 'cursor':
      // Cursor's beforeShellExecution must decide: "allow" would skip Cursor's own approval
      // for exactly the commands known to fail, so a repeat asks the person (warn and ask alike).
      return { permission: 'ask', user_message: text, agent_message: text };
    case 'gemini':
      // BeforeTool gives the model no context: the person sees systemMessage, and with ask confirms (decision "ask").
      return ask ? { decision: 'ask', reason: text, systemMessage: text } : { systemMessage: text };
    default: {
      // Claude Code and Codex: the agent sees additionalContext; the person sees systemMessage.
      const specific: Record<string, unknown> = { hookEventName: 'PreToolUse', additionalContext: text };
      // Codex rejects "ask" (and would drop the warning with it): an old `--on-repeat ask` install still only warns there.
      if (ask && opts.format !== 'codex')
        Object.assign(specific, { permissionDecision: 'ask', permissionDecisionReason: text });
      return { systemMessage: text, hookSpecificOutput: specific };
    }
  }
}

/**
 * Whether the Claude Code matchers `hooks install claude` writes (agents.ts) take this tool call: the shell
 * before a call; the shell and file edits after a success (a read or a search says nothing worth remembering);
 * anything after a failure (session start has no tool and is answered before this is asked). Claude Code applies them itself; VS Code, which runs the same file, does not.
 */
function installedMatcherTakes(event: HookEvent, tool: string): boolean {
  if (event === 'post-tool-use-failure') return true;
  if (toolFamily(tool) === 'shell') return true;
  return event === 'post-tool-use' && FILE_EDIT_TOOLS.has(tool.trim().toLowerCase());
}

/**
 * Tools that write files, by name: Claude Code's (the installed PostToolUse matcher) and VS Code's agent's
 * (its tool ids). A list, not a pattern: `mcp_github_create_issue` and `create_and_run_task` are not edits.
 */
const FILE_EDIT_TOOLS = new Set(
  [
    'Edit',
    'MultiEdit',
    'Write',
    'NotebookEdit',
    'editFiles',
    'create_file',
    'createFile',
    'replace_string_in_file',
    'multi_replace_string_in_file',
    'insert_edit_into_file',
    'apply_patch',
    'edit_notebook_file',
  ].map((t) => t.toLowerCase()),
);

/** The attempt a post-tool payload reports, read in the agent's dialect. */
function attemptOf(format: HookFormat, event: HookEvent, payload: Record<string, unknown>): NewAttempt | null {
  switch (format) {
    case 'generic':
      return genericAttempt(payload);
    case 'gemini':
      return geminiAttempt(payload);
    case 'cursor':
      return cursorAttempt(payload, event === 'post-tool-use-failure' ? 'post-tool-use-failure' : 'post-tool-use');
    default:
      return claudeAttempt(payload, CLAUDE_EVENT[event] as 'PostToolUse' | 'PostToolUseFailure');
  }
}

/** The keys of the attempt memory's config section (`attempts:`) that the hooks read. */
export function attemptSettings(config: Config): {
  enabled: boolean;
  autoInject: boolean;
  warnOnDuplicateFailure: boolean;
  maxContextSize: number;
} {
  const r = config.attempts;
  return {
    enabled: r.enabled,
    autoInject: r.autoInject,
    warnOnDuplicateFailure: r.warnOnDuplicateFailure,
    maxContextSize: r.maxContextSize,
  };
}

export function warningText(w: RepeatWarning): string {
  // Recorded text (a past tool's output, a teammate's record from the team store) reaches the agent as data,
  // never as instructions: one line each, quoted, capped, commands in code spans their text cannot close.
  const f = w.failure;
  const day = f.time.slice(0, 10);
  // The cause line (issue 21 §3), else the error's last line (records made before causes were kept).
  const line =
    f.cause ??
    (f.error
      ? f.error
          .split('\n')
          .filter((l) => l.trim())
          .slice(-1)[0]
      : null);
  // Backticks too: in the agent's markdown a pair of them inside the quote would start a code span.
  const err = line ? `: ${pastQuote(line.replace(/`/g, "'"), 240)}` : '';
  const who = f.origin ? ` by ${quotePast(f.origin, 120)} (recorded in the team store)` : '';
  let s = `agentos: this was tried on ${day}${who} and failed${err} (${pastCode(f.command)}, similarity ${w.score.toFixed(2)}).`;
  const okBy = w.workedInstead?.origin
    ? ` by ${quotePast(w.workedInstead.origin, 120)} (recorded in the team store)`
    : '';
  if (w.workedInstead)
    s += ` What worked instead: ${pastCode(w.workedInstead.command)} (${w.workedInstead.time.slice(0, 10)}${okBy}).`;
  return s + ' Consider another approach; run it anyway only if something changed.';
}

function warningJson(w: RepeatWarning) {
  return {
    score: w.score,
    failure: {
      id: w.failure.id,
      time: w.failure.time,
      tool: w.failure.tool,
      command: w.failure.command,
      error: w.failure.error,
      cause: w.failure.cause,
    },
    workedInstead: w.workedInstead
      ? { id: w.workedInstead.id, time: w.workedInstead.time, command: w.workedInstead.command }
      : null,
  };
}

/** Read all of stdin, bounded in size and time (a hook must never hang its agent). */
export function readStdin(stdin: IO['stdin']): Promise<string> {
  if (stdin.isTTY) return Promise.resolve('');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => finish(new Error(`no end of stdin after ${STDIN_TIMEOUT_MS} ms`)), STDIN_TIMEOUT_MS);
    timer.unref?.();
    const onData = (c: Buffer | string) => {
      const b = typeof c === 'string' ? Buffer.from(c) : c;
      size += b.length;
      if (size > MAX_PAYLOAD_BYTES) return finish(new Error(`payload larger than ${MAX_PAYLOAD_BYTES} bytes`));
      chunks.push(b);
    };
    const onEnd = () => finish(null);
    const onError = (e: Error) => finish(e);
    function finish(err: Error | null) {
      clearTimeout(timer);
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onError);
      if (err) {
        stdin.pause?.();
        reject(err);
      } else resolve(Buffer.concat(chunks).toString('utf8'));
    }
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.on('error', onError);
  });
}

async function defaultDeps(): Promise<HookDeps> {
  return {
    openMemory: async (root, config, cwd, purpose) => {
      // The attempt memory's one way in; loaded only now, so a session start without attempts never loads SQLite.
      const { openAttemptMemory } = await import('../../attempt-memory/open.js');
      return openAttemptMemory(root, config, { ...(cwd ? { cwd } : {}), readOnly: purpose === 'read' });
    },
    recall: async (root, config, memory) => {
      const { buildRecall, renderRecallMarkdown } = await import('../../knowledge/recall.js');
      const r = await buildRecall(root, config, memory);
      return renderRecallMarkdown(r, attemptSettings(config).maxContextSize);
    },
  };
}
