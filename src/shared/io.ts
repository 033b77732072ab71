import type { Readable, Writable } from 'node:stream';

/**
 * All terminal I/O goes through this object so that tests drive the CLI with
 * PassThrough streams and never need a TTY (the Vercel CLI pattern).
 */
export interface IO {
  stdin: Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export function processIO(): IO {
  return {
    // Lazy: touching process.stdin sets up the stream (~6 ms), and most commands never read it.
    get stdin() {
      return process.stdin;
    },
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

/**
 * The one gate between asking a person and applying a policy. Both ends must be
 * a terminal: with stderr redirected the question would go into the file while
 * the prompt waits on a blank screen.
 */
export function canPrompt(io: IO, nonInteractive: boolean): boolean {
  return Boolean(io.stdin.isTTY) && Boolean(io.stderr.isTTY) && !nonInteractive && !isCI(io.env);
}

/** Narrower than this, a spinner line wraps and redraws into garbage. */
export const MIN_ANIMATION_COLUMNS = 20;

/**
 * Spinners and progress bars redraw with cursor escapes: only on a TTY stderr
 * that reports a usable width and a terminal that understands escapes. A PTY
 * reporting 0 columns made a spinner library divide by zero and flood 52 MB.
 */
export function canAnimate(io: IO): boolean {
  const cols = io.stderr.columns;
  return (
    Boolean(io.stderr.isTTY) &&
    io.env.TERM !== 'dumb' &&
    typeof cols === 'number' &&
    Number.isFinite(cols) &&
    cols >= MIN_ANIMATION_COLUMNS
  );
}

/** Width to wrap text to: the terminal's when usable, else 80. */
export function textWidth(stream: { isTTY?: boolean; columns?: number }): number {
  const cols = stream.columns;
  if (!stream.isTTY || typeof cols !== 'number' || !Number.isFinite(cols) || cols < MIN_ANIMATION_COLUMNS) return 80;
  return Math.min(cols, 120);
}

/** Colour only for a TTY stderr/stdout, never with NO_COLOR (https://no-color.org). */
export function useColor(io: IO, stream: 'stdout' | 'stderr' = 'stderr'): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return true;
  return Boolean(io[stream].isTTY) && io.env.TERM !== 'dumb';
}

/** `--verbose` output: one prefixed line on stderr, nothing otherwise. */
export function debugLine(io: IO, globals: { verbose?: boolean }, line: string): void {
  if (globals.verbose) io.stderr.write(`debug: ${line}\n`);
}
