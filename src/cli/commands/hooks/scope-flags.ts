import { type Command } from 'commander';

/** Which settings file `install` and `uninstall` change, and whether only to show the change. */
export function settingsScope(c: Command): Command {
  return c
    .option(
      '--project',
      "the project's settings file (default): .claude/settings.json, .codex/hooks.json, .gemini/settings.json, .cursor/hooks.json",
    )
    .option('--local', '.claude/settings.local.json of the project (not committed; Claude Code only)')
    .option('--user', 'the same file under your home folder (~/.claude/settings.json, …)')
    .option('--dry-run', 'print the change as a diff; write nothing');
}
