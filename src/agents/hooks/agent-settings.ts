/**
 * Merging agentos' hook entries into a coding agent's settings file and taking
 * them out again (Claude Code, Codex CLI, Gemini CLI, Cursor: src/agents/hooks/agents.ts).
 * Pure: text in, text out; the command module reads and writes the file.
 *
 * Ownership rule: a handler is ours when its command is `<prefix> hooks run <event>`
 * for one of our events (whatever the prefix: `agentos`, `node /x/bin/agentos.js`,
 * and whatever flags follow). Install never edits or reorders anything else;
 * uninstall removes only our handlers, then the groups and events that removal left empty.
 */
import { UsageError } from '../../shared/errors.js';
import { AGENTS, CLAUDE_HOOKS, type AgentHooks } from './agents.js';

export { CLAUDE_HOOKS };

/** Every event name agentos writes, in any agent's settings. */
const OUR_EVENTS = new Set(Object.values(AGENTS).flatMap((a) => a.specs.map((s) => s.event)));

const OUR_COMMAND =
  /(?:^|[\s/"'])agentos(?:\.js)?["']?\s+(?:-C\s+\S+\s+)?hooks\s+run\s+(session-start|pre-tool-use|post-tool-use-failure|post-tool-use)(?![\w-])/;

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
    throw new UsageError(
      `${file}: not valid JSON (${(e as Error).message.split('\n')[0]}); fix it first, agentos will not overwrite it`,
    );
  }
  if (!isObject(v)) throw new UsageError(`${file}: expected a JSON object at the top level`);
  if (v.hooks !== undefined && !isObject(v.hooks)) throw new UsageError(`${file}: "hooks" must be an object`);
  if (isObject(v.hooks)) {
    // An event agentos writes must hold a list; other keys (an agent's own switches) are left alone.
    for (const [event, groups] of Object.entries(v.hooks)) {
      if (OUR_EVENTS.has(event) && !Array.isArray(groups))
        throw new UsageError(`${file}: hooks.${event} must be an array`);
    }
  }
  return v;
}

export interface MergeResult {
  settings: Json;
  /** Events we added a handler to. */
  added: string[];
  /** Events whose handler of ours had other options (`--on-repeat`, `--command`): rewritten to these. */
  updated: string[];
}

/** Add our handler for each of the agent's events unless one of ours for that event is already there. */
export function installHooks(
  settings: Json,
  commandPrefix: string,
  agent: AgentHooks = AGENTS.claude,
  extraArgs: Partial<Record<string, string>> = {},
): MergeResult {
  const out = structuredClone(settings);
  for (const [k, v] of Object.entries(agent.header ?? {})) out[k] ??= v;
  const hooks: Json = isObject(out.hooks) ? out.hooks : {};
  const added: string[] = [];
  const updated: string[] = [];
  const format = agent.format === 'claude' ? '' : ` --format ${agent.format}`;
  for (const spec of agent.specs) {
    const entries = (Array.isArray(hooks[spec.event]) ? hooks[spec.event] : []) as unknown[];
    const extra = extraArgs[spec.arg] ? ` ${extraArgs[spec.arg]}` : '';
    const command = `${commandPrefix} hooks run ${spec.arg}${format}${extra}`;
    const ours = entries
      .flatMap((e) => handlersOf(e))
      .filter((h) => isOurCommand(h.command) && commandEvent(h.command as string) === spec.arg);
    if (ours.length) {
      // Ours already: the same options are left alone; other options (an install with another --on-repeat) are rewritten in place.
      const stale = ours.filter((h) => h.command !== command || h.timeout !== spec.timeout);
      for (const h of stale) Object.assign(h, { command, timeout: spec.timeout });
      if (stale.length) updated.push(spec.event);
      continue;
    }
    const matcher = spec.matcher === undefined ? {} : { matcher: spec.matcher };
    entries.push(
      agent.layout === 'flat'
        ? { command, ...matcher, timeout: spec.timeout }
        : { ...matcher, hooks: [{ type: 'command', command, timeout: spec.timeout }] },
    );
    hooks[spec.event] = entries;
    added.push(spec.event);
  }
  out.hooks = hooks;
  return { settings: out, added, updated };
}

/** The handlers of one entry: a nested group's `hooks`, or a flat entry itself. */
function handlersOf(entry: unknown): Json[] {
  if (!isObject(entry)) return [];
  if (Array.isArray(entry.hooks)) return entry.hooks.filter(isObject);
  return typeof entry.command === 'string' ? [entry] : [];
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
      // A flat entry (Cursor) is itself a handler.
      if (isObject(g) && !Array.isArray(g.hooks) && isOurCommand(g.command)) {
        removed++;
        continue;
      }
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
  if (removed > 0 && Object.keys(hooks).length === 0) {
    delete out.hooks;
    // A file that held nothing but our hooks and the agent's schema version is left empty, as before install.
    if (Object.keys(out).every((k) => k === 'version')) delete out.version;
  }
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
  const out = [
    `--- ${file}`,
    `+++ ${file} (after)`,
    `@@ -${from + 1},${Math.min(a.length, endA + ctx) - from} +${from + 1},${Math.min(b.length, endB + ctx) - from} @@`,
  ];
  for (let i = from; i < start; i++) out.push(` ${a[i]}`);
  for (let i = start; i < endA; i++) out.push(`-${a[i]}`);
  for (let i = start; i < endB; i++) out.push(`+${b[i]}`);
  for (let i = endA; i < Math.min(a.length, endA + ctx); i++) out.push(` ${a[i]}`);
  return out.join('\n') + '\n';
}
