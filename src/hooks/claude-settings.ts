/**
 * Merging agentos' hook entries into Claude Code's settings.json and taking
 * them out again. Pure: text in, text out; the command module reads and
 * writes the file.
 *
 * The settings shape (Claude Code hooks reference, docs/hooks.md):
 *   { "hooks": { "<Event>": [ { "matcher": "<tool regex>", "hooks": [ { "type": "command", "command": "…", "timeout": <s> } ] } ] } }
 *
 * Ownership rule: a handler is ours when its command is `<prefix> hooks run <event>`
 * for one of our events (whatever the prefix: `agentos`, `node /x/bin/agentos.js`).
 * Install never edits or reorders anything else; uninstall removes only our
 * handlers, then the groups and events that removal left empty.
 */
import { UsageError } from '../errors.js';

export type ClaudeEvent = 'SessionStart' | 'PreToolUse' | 'PostToolUse' | 'PostToolUseFailure';

export interface HookSpec {
  event: ClaudeEvent;
  /** The `hooks run` argument. */
  arg: string;
  /** Tool-name regex (SessionStart: the session source). */
  matcher: string;
  /** Seconds before Claude Code cancels the hook. */
  timeout: number;
}

/**
 * What we install. The repeated-failure check only concerns shell commands;
 * failures of any tool are recorded; successes only for tools that change
 * something (a successful Read is not a pattern worth remembering).
 */
export const CLAUDE_HOOKS: HookSpec[] = [
  { event: 'SessionStart', arg: 'session-start', matcher: 'startup|resume|clear|compact', timeout: 10 },
  { event: 'PreToolUse', arg: 'pre-tool-use', matcher: 'Bash', timeout: 5 },
  { event: 'PostToolUse', arg: 'post-tool-use', matcher: 'Bash|Edit|MultiEdit|Write|NotebookEdit', timeout: 5 },
  { event: 'PostToolUseFailure', arg: 'post-tool-use-failure', matcher: '*', timeout: 5 },
];

const OUR_COMMAND = /(?:^|[\s/"'])agentos(?:\.js)?["']?\s+(?:-C\s+\S+\s+)?hooks\s+run\s+(session-start|pre-tool-use|post-tool-use-failure|post-tool-use)(?![\w-])/;

export function isOurCommand(command: unknown): boolean {
  return typeof command === 'string' && OUR_COMMAND.test(command);
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parse settings text; empty or missing → {}. Anything but a JSON object is the user's problem to fix, not ours to overwrite. */
export function parseSettings(text: string | null, file: string): Json {
  if (text === null || text.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file}: not valid JSON (${(e as Error).message.split('\n')[0]}); fix it first, agentos will not overwrite it`);
  }
  if (!isObject(v)) throw new UsageError(`${file}: expected a JSON object at the top level`);
  if (v.hooks !== undefined && !isObject(v.hooks)) throw new UsageError(`${file}: "hooks" must be an object`);
  if (isObject(v.hooks)) {
    for (const [event, groups] of Object.entries(v.hooks)) {
      if (!Array.isArray(groups)) throw new UsageError(`${file}: hooks.${event} must be an array`);
    }
  }
  return v;
}

export interface MergeResult {
  settings: Json;
  /** Events we added a handler to (empty: already installed). */
  added: ClaudeEvent[];
}

/** Add our handler for each spec unless an equal command is already there. */
export function installHooks(settings: Json, commandPrefix: string, specs: HookSpec[] = CLAUDE_HOOKS, extraArgs: Partial<Record<string, string>> = {}): MergeResult {
  const out = structuredClone(settings);
  const hooks: Json = isObject(out.hooks) ? out.hooks : {};
  const added: ClaudeEvent[] = [];
  for (const spec of specs) {
    const groups = (Array.isArray(hooks[spec.event]) ? hooks[spec.event] : []) as unknown[];
    const already = groups.some((g) => isObject(g) && Array.isArray(g.hooks) && g.hooks.some((h) => isObject(h) && isOurCommand(h.command) && commandEvent(h.command as string) === spec.arg));
    if (already) continue;
    const command = `${commandPrefix} hooks run ${spec.arg}${extraArgs[spec.arg] ? ` ${extraArgs[spec.arg]}` : ''}`;
    groups.push({ matcher: spec.matcher, hooks: [{ type: 'command', command, timeout: spec.timeout }] });
    hooks[spec.event] = groups;
    added.push(spec.event);
  }
  out.hooks = hooks;
  return { settings: out, added };
}

export interface RemoveResult {
  settings: Json;
  /** How many handlers were removed. */
  removed: number;
}

/** Remove our handlers; drop groups and events our removal emptied. */
export function uninstallHooks(settings: Json): RemoveResult {
  const out = structuredClone(settings);
  if (!isObject(out.hooks)) return { settings: out, removed: 0 };
  let removed = 0;
  const hooks = out.hooks;
  for (const event of Object.keys(hooks)) {
    const groups = hooks[event];
    if (!Array.isArray(groups)) continue;
    const kept: unknown[] = [];
    for (const g of groups) {
      if (!isObject(g) || !Array.isArray(g.hooks)) {
        kept.push(g);
        continue;
      }
      const handlers = g.hooks.filter((h) => !(isObject(h) && isOurCommand(h.command)));
      const n = g.hooks.length - handlers.length;
      removed += n;
      if (n > 0 && handlers.length === 0) continue;
      kept.push(n > 0 ? { ...g, hooks: handlers } : g);
    }
    if (kept.length === 0 && groups.length > 0) delete hooks[event];
    else hooks[event] = kept;
  }
  if (removed > 0 && Object.keys(hooks).length === 0) delete out.hooks;
  return { settings: out, removed };
}

function commandEvent(command: string): string | null {
  return OUR_COMMAND.exec(command)?.[1] ?? null;
}

/** settings.json as Claude Code and people write it: 2-space JSON, trailing newline. */
export function formatSettings(settings: Json): string {
  return JSON.stringify(settings, null, 2) + '\n';
}

/** A minimal line diff (common prefix/suffix, the changed middle) for --dry-run. */
export function lineDiff(before: string, after: string, file: string): string {
  if (before === after) return '';
  const a = before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const b = after.replace(/\n$/, '').split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ctx = 2;
  const from = Math.max(0, start - ctx);
  const out = [`--- ${file}`, `+++ ${file} (after)`, `@@ -${from + 1},${Math.min(a.length, endA + ctx) - from} +${from + 1},${Math.min(b.length, endB + ctx) - from} @@`];
  for (let i = from; i < start; i++) out.push(` ${a[i]}`);
  for (let i = start; i < endA; i++) out.push(`-${a[i]}`);
  for (let i = start; i < endB; i++) out.push(`+${b[i]}`);
  for (let i = endA; i < Math.min(a.length, endA + ctx); i++) out.push(` ${a[i]}`);
  return out.join('\n') + '\n';
}
