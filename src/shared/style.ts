/**
 * The one colour wrapper: chalk at level 1 (16 colours) when the stream should be
 * coloured (src/shared/io.ts useColor: NO_COLOR, FORCE_COLOR, a TTY, TERM), plain text
 * otherwise. chalk is loaded only when colour is on.
 */
import { useColor, type IO } from './io.js';

export interface Style {
  bold(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  green(s: string): string;
}

const identity = (s: string) => s;
export const plainStyle: Style = { bold: identity, red: identity, yellow: identity, dim: identity, green: identity };

export async function makeStyle(color: boolean): Promise<Style> {
  if (!color) return plainStyle;
  const { Chalk } = await import('chalk');
  const c = new Chalk({ level: 1 });
  return { bold: c.bold, red: c.red, yellow: c.yellow, dim: c.dim, green: c.green };
}

/** The style for one of the process's streams. */
export function styleFor(io: IO, stream: 'stdout' | 'stderr'): Promise<Style> {
  return makeStyle(useColor(io, stream));
}
