/** `agentos hooks install <agent>`: agentos' entries merged into the agent's settings (idempotent, never clobbers). */
import type { CommandContext } from '../../../context.js';
import { writeFileAtomic } from '../../../../shared/fsutil/atomic-write.js';
import { ExitCode, UsageError } from '../../../../shared/errors.js';
import { formatSettings, installHooks, lineDiff, parseSettings } from '../../../../agents/hooks/agent-settings.js';
import { agentFor, defaultCommandPrefix, readText, settingsFile, type SettingsScope } from '../settings.js';

export interface HooksInstallOptions extends SettingsScope {
  onRepeat: 'warn' | 'ask';
  command?: string;
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
  await writeFileAtomic(file, after);
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
