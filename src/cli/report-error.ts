/**
 * How any command's failure reaches the user: `agentos: <message>` on stderr (one
 * line per line of the message), the exit code the error carries, and with --json
 * an `{ "error": … }` object on stdout. Shared by the commander path (cli.ts) and
 * the fast path (fast-path.ts) so both say the same thing.
 */
import { ExitCode, ExitError, errorMessage } from '../shared/errors.js';
import type { IO } from '../shared/io.js';

export function jsonErrorLine(io: IO, json: boolean, code: number, message: string, kind: string): number {
  if (json) io.stdout.write(JSON.stringify({ error: { code, kind, message } }, null, 2) + '\n');
  return code;
}

export function reportError(io: IO, e: unknown, opts: { json: boolean; verbose: boolean }): number {
  if (e instanceof ExitError) {
    for (const line of e.message.split('\n')) io.stderr.write(`agentos: ${line}\n`);
    return jsonErrorLine(io, opts.json, e.code, e.message, e.name);
  }
  io.stderr.write(`agentos: unexpected error: ${errorMessage(e)}\n`);
  if (io.env.AGENTOS_DEBUG || opts.verbose) io.stderr.write(`${(e as Error).stack}\n`);
  else io.stderr.write('agentos: run with --verbose (or AGENTOS_DEBUG=1) for the stack trace\n');
  return jsonErrorLine(io, opts.json, ExitCode.Unexpected, errorMessage(e), 'unexpected');
}
