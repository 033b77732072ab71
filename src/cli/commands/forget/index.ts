/** `agentos forget`: the user owns the attempt memory and can erase any of it. */
import type { GlobalOptions } from '../../globals.js';
import { ExitCode, UsageError } from '../../../shared/errors.js';
import type { IO } from '../../../shared/io.js';
import { loadProject, openMemory } from '../attempt/common.js';

export interface ForgetOptions {
  id?: string;
  before?: Date;
  all?: boolean;
  json?: boolean;
}

export async function runForget(io: IO, globals: GlobalOptions, opts: ForgetOptions): Promise<number> {
  const given = [opts.id !== undefined, opts.before !== undefined, Boolean(opts.all)].filter(Boolean).length;
  if (given !== 1) throw new UsageError('forget: give exactly one of --id ID, --before DATE, --all');
  const project = await loadProject(io, globals);
  const memory = await openMemory(io, project);
  try {
    const n = memory.forget({ id: opts.id, before: opts.before, all: opts.all });
    if (opts.json) io.stdout.write(JSON.stringify({ forgotten: n }, null, 2) + '\n');
    else io.stdout.write(`Forgot ${n} attempt${n === 1 ? '' : 's'}.\n`);
    if (opts.id !== undefined && n === 0) io.stderr.write(`agentos: no attempt with id ${opts.id}\n`);
  } finally {
    memory.close();
  }
  return ExitCode.Ok;
}
