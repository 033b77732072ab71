/** `agentos hooks uninstall <agent>`: exactly the entries agentos added, removed. */
import type { CommandContext } from '../../../context.js';
import { writeFileAtomic } from '../../../../shared/fsutil/atomic-write.js';
import { ExitCode } from '../../../../shared/errors.js';
import { formatSettings, lineDiff, parseSettings, uninstallHooks } from '../../../../agents/hooks/agent-settings.js';
import { agentFor, readText, settingsFile, type SettingsScope } from '../settings.js';

export async function runHooksUninstall(ctx: CommandContext, agent: string, opts: SettingsScope): Promise<number> {
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
  await writeFileAtomic(file, after);
  io.stderr.write(`removed ${removed} agentos hook${removed === 1 ? '' : 's'} from ${file}\n`);
  return ExitCode.Ok;
}
