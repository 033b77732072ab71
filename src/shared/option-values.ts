/**
 * What both routes to a command accept: the commander definitions (cli.ts) and the
 * commander-free route (fast-path.ts) take these values from here, so the two cannot
 * drift apart. No imports: the fast route loads it on every tool call.
 */
export const HOOK_EVENTS = ['session-start', 'pre-tool-use', 'post-tool-use', 'post-tool-use-failure'] as const;
/** How `hooks run` reads payloads and answers: each agent's dialect (src/agents/hooks/agents.ts), or the generic one. */
export const HOOK_FORMATS = ['claude', 'codex', 'gemini', 'cursor', 'generic'] as const;
/** `hooks run pre-tool-use`: warn the agent, or ask the person to confirm. */
export const HOOK_ON_REPEAT = ['warn', 'ask'] as const;
/** `run` without a terminal: warn and run, or run nothing. */
export const RUN_ON_REPEAT = ['warn', 'block'] as const;

/** `--tags a,b --tags c`: every comma-separated tag, trimmed, in order. */
export function addTags(value: string, previous: string[]): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
  ];
}
