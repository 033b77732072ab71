import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CommandContext } from '../../context.js';
import { ExitCode, UsageError } from '../../../shared/errors.js';
import {
  formatSettings,
  installHooks,
  lineDiff,
  parseSettings,
  uninstallHooks,
} from '../../../agents/hooks/agent-settings.js';
import { packageRoot } from '../../../shared/package-root.js';
import { AGENTS, NO_HOOKS, agentNamed, type AgentHooks } from '../../../agents/hooks/agents.js';

export interface HooksInstallOptions {
  user?: boolean;
  project?: boolean;
  local?: boolean;
  dryRun?: boolean;
  onRepeat: 'warn' | 'ask';
  command?: string;
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

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new UsageError(`${file}: cannot read (${(e as Error).message})`);
  }
}

async function writeAtomic(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.agentos-${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, file);
}

export async function runHooksInstall(ctx: CommandContext, agent: string, opts: HooksInstallOptions): Promise<number> {
  const { io } = ctx;
  const spec = agentFor(agent, 'install');
  if (opts.onRepeat === 'ask' && !spec.canAsk)
    throw new UsageError(
      `hooks install ${spec.name}: --on-repeat ask: ${spec.label}'s hooks cannot ask for a confirmation${spec.cannotAsk ? ` (${spec.cannotAsk})` : ''}; use warn`,
    );
  const file = settingsFile(ctx, opts, spec);
  const before = readText(file);
  const settings = parseSettings(before, file);
  const prefix = opts.command ?? defaultCommandPrefix(io.env);
  const extra = opts.onRepeat === 'ask' ? { 'pre-tool-use': '--on-repeat ask' } : {};
  const { settings: next, added, updated } = installHooks(settings, prefix, spec, extra);
  const after = formatSettings(next);
  if (added.length === 0 && updated.length === 0) {
    io.stderr.write(`agentos ${spec.label} hooks are already installed in ${file}; nothing changed\n`);
    return ExitCode.Ok;
  }
  if (opts.dryRun) {
    io.stdout.write(lineDiff(before ?? '', after, file));
    io.stderr.write(`dry run: ${file} not written\n`);
    return ExitCode.Ok;
  }
  await writeAtomic(file, after);
  if (added.length) io.stderr.write(`installed agentos ${spec.label} hooks (${added.join(', ')}) in ${file}\n`);
  if (updated.length)
    io.stderr.write(`updated agentos ${spec.label} hooks (${updated.join(', ')}) in ${file} to these options\n`);
  if (spec.note) io.stderr.write(`note: ${spec.note}\n`);
  if (!opts.command && prefix !== 'agentos' && !opts.user && !opts.local) {
    io.stderr.write(
      `note: the hook command is an absolute path (${prefix}); for a shared settings file put agentos on PATH or pass --command\n`,
    );
  }
  return ExitCode.Ok;
}

export async function runHooksUninstall(
  ctx: CommandContext,
  agent: string,
  opts: { user?: boolean; project?: boolean; local?: boolean; dryRun?: boolean },
): Promise<number> {
  const { io } = ctx;
  const spec = agentFor(agent, 'uninstall');
  const file = settingsFile(ctx, opts, spec);
  const before = readText(file);
  if (before === null) {
    io.stderr.write(`${file} does not exist; nothing to remove\n`);
    return ExitCode.Ok;
  }
  const { settings, removed } = uninstallHooks(parseSettings(before, file));
  if (removed === 0) {
    io.stderr.write(`no agentos hooks in ${file}; nothing changed\n`);
    return ExitCode.Ok;
  }
  const after = formatSettings(settings);
  if (opts.dryRun) {
    io.stdout.write(lineDiff(before, after, file));
    io.stderr.write(`dry run: ${file} not written\n`);
    return ExitCode.Ok;
  }
  await writeAtomic(file, after);
  io.stderr.write(`removed ${removed} agentos hook${removed === 1 ? '' : 's'} from ${file}\n`);
  return ExitCode.Ok;
}
