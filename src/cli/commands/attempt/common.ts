/** What `run`, `attempt …` and `forget` share: the project, its config, the memory, option parsing. */
import type { GlobalOptions } from '../../globals.js';
import type { AttemptMemoryHandle } from '../../../attempt-memory/open.js';
import { loadConfig } from '../../../shared/config/load.js';
import type { Config } from '../../../shared/config/schema.js';
import { UsageError } from '../../../shared/errors.js';
import type { IO } from '../../../shared/io.js';
import { findProjectRoot } from '../../../shared/project.js';
import type { Paint } from '../../../attempt-memory/render.js';
import { styleFor } from '../../../shared/style.js';
import { commandLine } from '../../../attempt-memory/command-line.js';

export interface Project {
  root: string;
  config: Config;
}

export async function loadProject(io: IO, globals: GlobalOptions): Promise<Project> {
  const root = findProjectRoot(io.cwd, globals.cwd);
  const { config } = await loadConfig(root);
  return { root, config };
}

export async function openMemory(io: IO, project: Project, session?: string, purpose: 'read' | 'write' = 'write'): Promise<AttemptMemoryHandle> {
  const { openAttemptMemory } = await import('../../../attempt-memory/open.js');
  return openAttemptMemory(project.root, project.config, { sessionId: session, cwd: io.cwd, env: io.env, readOnly: purpose === 'read' });
}

/** The colours for a stream (src/shared/style.ts). */
export function paint(io: IO, stream: 'stdout' | 'stderr'): Promise<Paint> {
  return styleFor(io, stream);
}

export function requireCommand(words: string[] | undefined, flag: string | undefined, what: string): string {
  const fromArgs = words && words.length ? words : null;
  if (fromArgs && flag) throw new UsageError(`${what}: give the command after -- or with --command, not both`);
  if (!fromArgs && !flag) throw new UsageError(`${what}: no command (give it after --, e.g. \`agentos ${what} -- npm install x\`)`);
  return fromArgs ? commandLine(fromArgs) : (flag as string);
}
