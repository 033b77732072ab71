import type { Readable, Writable } from 'node:stream';

/**
 * All terminal I/O goes through this object so that tests drive the CLI with
 * PassThrough streams and never need a TTY (the Vercel CLI pattern).
 */
export interface IO {
  stdin: Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export function processIO(): IO {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  };
}

/** CI is set and not "false"/"0": the usual convention of CI providers. */
export function isCI(env: NodeJS.ProcessEnv): boolean {
  const v = env.CI;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/** The one gate between asking a person and applying a policy. */
export function canPrompt(io: IO, nonInteractive: boolean): boolean {
  return Boolean(io.stdin.isTTY) && !nonInteractive && !isCI(io.env);
}

/** Colour only for a TTY stderr/stdout, never with NO_COLOR (https://no-color.org). */
export function useColor(io: IO, stream: 'stdout' | 'stderr' = 'stderr'): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return true;
  return Boolean(io[stream].isTTY) && io.env.TERM !== 'dumb';
}

export function writeLine(stream: Writable, line = ''): void {
  stream.write(line + '\n');
}
