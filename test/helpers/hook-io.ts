import os from 'node:os';
import { PassThrough } from 'node:stream';
import type { IO } from '../../src/shared/io.js';

/** An IO for `hooks run` in-process: the payload on stdin, what it writes collected. */
export function hookIO(input: string): { io: IO; out: () => string; err: () => string } {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  stdin.end(input);
  const io: IO = { stdin, stdout, stderr, env: {}, cwd: os.tmpdir() };
  return { io, out: () => out, err: () => err };
}
