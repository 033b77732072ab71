import { canAnimate, type IO } from '../../shared/io.js';

/** A byte-count progress display on stderr (model download). */
export interface Progress {
  update(done: number, total: number, label: string): void;
  done(line: string): void;
}

const MB = (n: number) => (n / 1e6).toFixed(1);

/**
 * A redrawn bar when the terminal can animate (`canAnimate`), else a plain line
 * every 25% (CI logs, `script` PTYs with 0 columns, TERM=dumb); nothing when quiet.
 * The bar never outgrows the reported width, so it cannot wrap into a flood.
 */
export function createProgress(io: IO, quiet: boolean): Progress {
  if (quiet) return { update() {}, done() {} };
  if (!canAnimate(io)) {
    let lastQuarter = -1;
    return {
      update(done, total, label) {
        const q = total > 0 ? Math.floor((4 * done) / total) : 0;
        if (q === lastQuarter) return;
        lastQuarter = q;
        io.stderr.write(`${label} ${MB(done)}/${MB(total)} MB (${q * 25}%)\n`);
      },
      done: (line) => void io.stderr.write(`${line}\n`),
    };
  }
  let last = 0;
  return {
    update(done, total, label) {
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      const cols = io.stderr.columns as number; // canAnimate checked it is usable
      const tail = ` ${MB(done)}/${MB(total)} MB`;
      const width = Math.max(0, Math.min(30, cols - label.length - tail.length - 4));
      const filled = total > 0 ? Math.round((width * done) / total) : 0;
      const line = `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}]${tail}`.slice(0, cols - 1);
      io.stderr.write(`\r\x1b[2K${line}`);
    },
    done: (line) => void io.stderr.write(`\r\x1b[2K${line}\n`),
  };
}
