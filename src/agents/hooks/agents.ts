/**
 * The coding agents `agentos hooks install <agent>` wires, each as that agent
 * documents its hooks (docs/hooks.md cites each source). Data only: the merge
 * (agent-settings.ts) and the payload/answer dialects (payload.ts, run.ts) read it.
 *
 * - layout `nested`: { "hooks": { "<Event>": [ { "matcher", "hooks": [ { "type": "command", "command", "timeout" } ] } ] } }
 *   (Claude Code, Codex CLI, Gemini CLI);
 * - layout `flat`:   { "version": 1, "hooks": { "<event>": [ { "command", "matcher"?, "timeout"? } ] } } (Cursor).
 */
import type { HOOK_EVENTS, HOOK_FORMATS } from '../../shared/option-values.js';

export type HookArg = (typeof HOOK_EVENTS)[number];

export interface AgentHookSpec {
  /** The agent's own event name. */
  event: string;
  /** The `hooks run` event that answers it. */
  arg: HookArg;
  /** Which tool calls (or session sources); none: every one. */
  matcher?: string;
  /** In the agent's unit (`timeoutUnit`). */
  timeout: number;
}

export interface AgentHooks {
  name: 'claude' | 'codex' | 'gemini' | 'cursor';
  label: string;
  /** Settings files, relative to the project root (project, local) or the home folder (user). */
  files: { project: string; local?: string; user: string };
  layout: 'nested' | 'flat';
  /** Keys a settings file of this agent must carry (Cursor's schema version). */
  header?: Record<string, unknown>;
  timeoutUnit: 's' | 'ms';
  specs: AgentHookSpec[];
  /** How `hooks run` reads this agent's payloads and writes its answers (`--format`). */
  format: (typeof HOOK_FORMATS)[number];
  /** Why not, when it cannot (said by `hooks install --on-repeat ask`). */
  cannotAsk?: string;
  /** Whether a repeat warning can ask the person to confirm (`--on-repeat ask`). */
  canAsk: boolean;
  /** Said after installing: what the agent needs before the hooks run. */
  note?: string;
}

/** Claude Code: every tool's failure is recorded; successes of tools that change something. */
export const CLAUDE_HOOKS: AgentHookSpec[] = [
  { event: 'SessionStart', arg: 'session-start', matcher: 'startup|resume|clear|compact', timeout: 10 },
  { event: 'PreToolUse', arg: 'pre-tool-use', matcher: 'Bash', timeout: 5 },
  { event: 'PostToolUse', arg: 'post-tool-use', matcher: 'Bash|Edit|MultiEdit|Write|NotebookEdit', timeout: 5 },
  { event: 'PostToolUseFailure', arg: 'post-tool-use-failure', matcher: '*', timeout: 5 },
];

export const AGENTS: Record<AgentHooks['name'], AgentHooks> = {
  claude: {
    name: 'claude',
    label: 'Claude Code',
    files: { project: '.claude/settings.json', local: '.claude/settings.local.json', user: '.claude/settings.json' },
    layout: 'nested',
    timeoutUnit: 's',
    specs: CLAUDE_HOOKS,
    format: 'claude',
    canAsk: true,
  },
  // Codex CLI hooks (developers.openai.com/codex/hooks; codex-rs/hooks/schema): Claude Code's
  // shape and answers; no PostToolUseFailure event, so failures come from PostToolUse's response.
  codex: {
    name: 'codex',
    label: 'Codex CLI',
    files: { project: '.codex/hooks.json', user: '.codex/hooks.json' },
    layout: 'nested',
    timeoutUnit: 's',
    specs: [
      { event: 'SessionStart', arg: 'session-start', matcher: 'startup|resume|clear|compact', timeout: 10 },
      { event: 'PreToolUse', arg: 'pre-tool-use', matcher: 'Bash', timeout: 5 },
      { event: 'PostToolUse', arg: 'post-tool-use', matcher: 'Bash', timeout: 5 },
    ],
    format: 'codex',
    // codex-rs/hooks/src/engine/output_parser.rs: "PreToolUse hook returned unsupported permissionDecision:ask";
    // the hook is marked failed and its additionalContext dropped, so the model would never see the warning.
    canAsk: false,
    cannotAsk: 'Codex rejects permissionDecision "ask" from a PreToolUse hook and drops the warning with it',
    // developers.openai.com/codex/hooks: hooks are on by default now; `[features] hooks` (alias `codex_hooks`) turns them off, and older releases needed it on.
    note: 'Codex runs new hooks only after you review and trust them (run /hooks in Codex), and project hooks only in trusted projects. An older Codex runs hooks only with `[features] hooks = true` (formerly `codex_hooks`) in ~/.codex/config.toml.',
  },
  // Gemini CLI hooks (google-gemini/gemini-cli docs/hooks/reference.md): timeouts in ms; the shell
  // tool is run_shell_command; BeforeTool shows systemMessage to the person, and since d1dc4902
  // (PR #21146, packages/core/src/hooks/types.ts DefaultHookOutput.isAskDecision: decision === "ask")
  // a top-level `decision: "ask"` makes the scheduler ask the person to confirm.
  gemini: {
    name: 'gemini',
    label: 'Gemini CLI',
    files: { project: '.gemini/settings.json', user: '.gemini/settings.json' },
    layout: 'nested',
    timeoutUnit: 'ms',
    specs: [
      { event: 'SessionStart', arg: 'session-start', timeout: 10_000 },
      { event: 'BeforeTool', arg: 'pre-tool-use', matcher: 'run_shell_command', timeout: 5000 },
      { event: 'AfterTool', arg: 'post-tool-use', matcher: 'run_shell_command|write_file|replace', timeout: 5000 },
    ],
    format: 'gemini',
    canAsk: true,
    // geminicli.com/docs/hooks: on the Stable channel of some releases hooks must be switched on (`hooksConfig.enabled`; earlier `tools.enableHooks`).
    note: 'Gemini CLI reads project settings only in trusted folders; on a release where hooks are still experimental, switch them on in ~/.gemini/settings.json ("hooksConfig": {"enabled": true}; older releases "tools": {"enableHooks": true}). Its BeforeTool hook shows a repeat warning to you, not to the model: add the MCP server (agentos mcp) so that the model can ask attempt_check itself.',
  },
  // Cursor hooks (cursor.com/docs/agent/hooks): a flat list per event; the shell gate is
  // beforeShellExecution (permission allow/ask/deny); outcomes from postToolUse on Shell.
  cursor: {
    name: 'cursor',
    label: 'Cursor',
    files: { project: '.cursor/hooks.json', user: '.cursor/hooks.json' },
    layout: 'flat',
    header: { version: 1 },
    timeoutUnit: 's',
    specs: [
      { event: 'sessionStart', arg: 'session-start', timeout: 10 },
      { event: 'beforeShellExecution', arg: 'pre-tool-use', timeout: 5 },
      { event: 'postToolUse', arg: 'post-tool-use', matcher: 'Shell', timeout: 5 },
      { event: 'postToolUseFailure', arg: 'post-tool-use-failure', matcher: 'Shell', timeout: 5 },
    ],
    format: 'cursor',
    canAsk: true,
  },
};

/** Agents without a hook mechanism agentos can write to: what to use instead. */
export const NO_HOOKS: Record<string, string> = {
  opencode:
    'OpenCode has no hook settings file (its hooks are JavaScript plugins); add the MCP server instead: docs/mcp.md#opencode',
  vscode:
    'VS Code (Copilot agent) reads Claude Code hooks from .claude/settings.json: run `agentos hooks install claude`, and add the MCP server: docs/mcp.md#vs-code',
  windsurf: 'Windsurf has no session-start hook; add the MCP server instead: docs/mcp.md',
};

export function agentNamed(name: string): AgentHooks | null {
  return (AGENTS as Record<string, AgentHooks>)[name] ?? null;
}
