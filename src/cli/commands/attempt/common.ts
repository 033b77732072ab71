/** What `run`, `attempt …` and `forget` share: the project and its config, colours, the command line. */
import type { CommandContext } from '../../context.js';
import type { Config } from '../../../shared/config/schema.js';
import { UsageError } from '../../../shared/errors.js';
import type { IO } from '../../../shared/io.js';
import type { Paint } from '../../../attempt-memory/render.js';
import { styleFor } from '../../../shared/style.js';
import { commandLine } from '../../../attempt-memory/command-line.js';

export interface Project {
  root: string;
  config: Config;
}

/** The project and its config, from the context (`attempt …`, `forget`). */
export async function loadProject(ctx: CommandContext): Promise<Project> {
  return { root: ctx.root(), config: (await ctx.config()).config };
}

/** The colours for a stream (src/shared/style.ts). */
export function paint(io: IO, stream: 'stdout' | 'stderr'): Promise<Paint> {
  return styleFor(io, stream);
}

export function requireCommand(words: string[] | undefined, flag: string | undefined, what: string): string {
  const fromArgs = words && words.length ? words : null;
  if (fromArgs && flag) throw new UsageError(`${what}: give the command after -- or with --command, not both`);
  if (!fromArgs && !flag)
    throw new UsageError(`${what}: no command (give it after --, e.g. \`agentos ${what} -- npm install x\`)`);
  return fromArgs ? commandLine(fromArgs) : (flag as string);
}
