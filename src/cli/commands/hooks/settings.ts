/** What `hooks install` and `hooks uninstall` share: which agent, which settings file, and reading it (both write it with shared/fsutil/atomic-write.ts). */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { CommandContext } from '../../context.js';
import { UsageError } from '../../../shared/errors.js';
import { packageRoot } from '../../../shared/package-root.js';
import { AGENTS, NO_HOOKS, agentNamed, type AgentHooks } from '../../../agents/hooks/agents.js';

/** Where the hooks go: the project's settings file (default), its local one (Claude Code), or the user's. */
export interface SettingsScope {
  user?: boolean;
  project?: boolean;
  local?: boolean;
  dryRun?: boolean;
}

/** Which settings file of the agent: project (default, shared), local (not committed; Claude Code only) or user. */
export function settingsFile(
  ctx: CommandContext,
  opts: { user?: boolean; local?: boolean; project?: boolean },
  agent: AgentHooks = AGENTS.claude,
): string {
  if ([opts.user, opts.local, opts.project].filter(Boolean).length > 1)
    throw new UsageError('hooks: choose one of --project, --local, --user');
  if (opts.user) {
    const home = ctx.io.env.HOME ?? ctx.io.env.USERPROFILE;
    if (!home) throw new UsageError('hooks --user: HOME is not set');
    return path.join(home, ...agent.files.user.split('/'));
  }
  if (opts.local && !agent.files.local)
    throw new UsageError(`hooks --local: ${agent.label} has no local settings file (use --project or --user)`);
  const root = ctx.root();
  return path.join(root, ...(opts.local ? agent.files.local! : agent.files.project).split('/'));
}

/** The agent named on the command line, or a usage error that says what to use instead. */
export function agentFor(name: string, what: string): AgentHooks {
  const agent = agentNamed(name.toLowerCase());
  if (agent) return agent;
  const instead = NO_HOOKS[name.toLowerCase()];
  if (instead) throw new UsageError(`hooks ${what}: ${instead}`);
  throw new UsageError(
    `hooks ${what}: unsupported agent "${name}" (supported: ${Object.keys(AGENTS).join(', ')}; any other agent: the MCP server, docs/mcp.md, or the generic hook format, docs/hooks.md)`,
  );
}

/** How the settings call agentos: `agentos` when it is on PATH, else this installation's bin through node. */
export function defaultCommandPrefix(env: NodeJS.ProcessEnv): string {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, 'agentos'))) return 'agentos';
  }
  const bin = path.join(packageRoot(), 'bin', 'agentos.js');
  return `node ${JSON.stringify(bin)}`;
}

export function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new UsageError(`${file}: cannot read (${(e as Error).message})`);
  }
}
