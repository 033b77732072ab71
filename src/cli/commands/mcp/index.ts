import type { GlobalOptions } from '../../globals.js';
import type { IO } from '../../../shared/io.js';
import { findProjectRoot } from '../../../shared/project.js';
import { UsageError } from '../../../shared/errors.js';

export interface McpCommandOptions {
  /** Per-call bound, ms. */
  timeout: number;
}

/** `agentos mcp`: serve this project's memory to a coding agent over stdio (src/agents/mcp/server.ts, docs/mcp.md). */
export async function runMcp(io: IO, globals: GlobalOptions, opts: McpCommandOptions, version: string): Promise<number> {
  if (!Number.isFinite(opts.timeout) || opts.timeout < 100) throw new UsageError(`--timeout ${opts.timeout}: expected milliseconds, at least 100`);
  const root = findProjectRoot(io.cwd, globals.cwd);
  const { serveMcp } = await import('../../../agents/mcp/server.js');
  return serveMcp(io, root, { timeoutMs: opts.timeout, version });
}
