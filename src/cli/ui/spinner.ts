import type { IO } from '../../shared/io.js';
import { canAnimate, useColor } from '../../shared/io.js';

/**
 * Progress on stderr: an ora spinner on a terminal that can animate
 * (`canAnimate`: TTY, usable width, TERM not dumb), plain lines otherwise (CI
 * logs and `script` PTYs stay readable), nothing when quiet. Commands only see
 * this interface.
 */
export interface Spinner {
  start(text: string): void;
  update(text: string): void;
  succeed(text: string): void;
  fail(text: string): void;
  stop(): void;
}

export const silentSpinner: Spinner = { start() {}, update() {}, succeed() {}, fail() {}, stop() {} };

export async function createSpinner(io: IO, quiet: boolean): Promise<Spinner> {
  if (quiet) return silentSpinner;
  if (!canAnimate(io)) return plainSpinner(io);
  const { default: ora } = await import('ora');
  const s = ora({ stream: io.stderr, color: 'cyan', isEnabled: true, discardStdin: false });
  if (!useColor(io)) s.color = 'white';
  return {
    start: (t) => void s.start(t),
    update: (t) => void (s.text = t),
    succeed: (t) => void s.succeed(t),
    fail: (t) => void s.fail(t),
    stop: () => void s.stop(),
  };
}

/** Off a TTY: one line per phase, updates at most every 2 s. */
function plainSpinner(io: IO): Spinner {
  let last = 0;
  return {
    start: (t) => io.stderr.write(`${t}\n`),
    update: (t) => {
      const now = Date.now();
      if (now - last > 2000) {
        last = now;
        io.stderr.write(`${t}\n`);
      }
    },
    succeed: (t) => io.stderr.write(`${t}\n`),
    fail: (t) => io.stderr.write(`${t}\n`),
    stop: () => {},
  };
}

/** Show a spinner only when `work` takes longer than `delayMs` (model loads are often fast). */
export async function withDelayedSpinner<T>(
  spinner: Spinner,
  text: string,
  work: Promise<T>,
  delayMs = 500,
): Promise<T> {
  let shown = false;
  const timer = setTimeout(() => {
    shown = true;
    spinner.start(text);
  }, delayMs);
  try {
    return await work;
  } finally {
    clearTimeout(timer);
    if (shown) spinner.stop();
  }
}
