import type { GlobalOptions } from '../../globals.js';
import type { IO } from '../../io.js';
import { findProjectRoot } from '../../project.js';
import { UsageError } from '../../errors.js';

export interface McpCommandOptions {
  /** Per-call bound, ms. */
  timeout: number;
}

/** `agentos mcp`: serve this project's memory to a coding agent over stdio (src/mcp/server.ts, docs/mcp.md). */
export async function runMcp(io: IO, globals: GlobalOptions, opts: McpCommandOptions, version: string): Promise<number> {
  if (!Number.isFinite(opts.timeout) || opts.timeout < 100) throw new UsageError(`--timeout ${opts.timeout}: expected milliseconds, at least 100`);
  const root = findProjectRoot(io.cwd, globals.cwd);
  const { serveMcp } = await import('../../mcp/server.js');
  return serveMcp(io, root, { timeoutMs: opts.timeout, version });
}
