import type { CommandContext } from '../../context.js';
import { UsageError } from '../../../shared/errors.js';

export interface McpCommandOptions {
  /** Per-call bound, ms. */
  timeout: number;
}

/** `agentos mcp`: serve this project's memory to a coding agent over stdio (src/agents/mcp/server.ts, docs/mcp.md). */
export async function runMcp(ctx: CommandContext, opts: McpCommandOptions, version: string): Promise<number> {
  const { io } = ctx;
  if (!Number.isFinite(opts.timeout) || opts.timeout < 100)
    throw new UsageError(`--timeout ${opts.timeout}: expected milliseconds, at least 100`);
  const root = ctx.root();
  const { serveMcp } = await import('../../../agents/mcp/server.js');
  return serveMcp(io, root, { timeoutMs: opts.timeout, version });
}
