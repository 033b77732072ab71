/**
 * Run a command with the terminal passed through: stdin and stdout are the
 * terminal's own; stderr is teed (streamed to ours as it comes, its tail kept
 * for the record). Signals sent to agentos are forwarded to the command; the
 * result is the command's exit code (128 + n when a signal n ended it).
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Writable } from 'node:stream';

export interface ChildResult {
  /** What agentos exits with: the command's code, 128+signal, 127 not found, 126 not executable. */
  exitCode: number;
  signal: NodeJS.Signals | null;
  durationMs: number;
  /** The command's stderr, bounded: its first HEAD_BYTES and last TAIL_BYTES (or why it could not start). */
  stderrTail: string;
  /** The command never started (not found, not executable). */
  spawnError: string | null;
}

const TAIL_BYTES = 64 * 1024;
/** Some tools state the cause first and print pages after it: the head is kept too. */
const HEAD_BYTES = 16 * 1024;
const DRAIN_MS = 100;
const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2', 'SIGWINCH'];

export interface RunChildOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stderr: Writable;
  /**
   * A Ctrl-C typed at the terminal already reaches the whole foreground process
   * group, the command included: forwarding SIGINT again would deliver it twice
   * (a second Ctrl-C means "force quit" to many tools). So SIGINT is forwarded
   * only when agentos is not on a terminal (someone ran `kill -INT <agentos>`).
   */
  interactive: boolean;
}

export function runChild(argv: string[], opts: RunChildOptions): Promise<ChildResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let head = Buffer.alloc(0);
    let tail = Buffer.alloc(0);
    let cut = false;
    const keep = (chunk: Buffer) => {
      if (head.length < HEAD_BYTES) {
        const take = chunk.subarray(0, HEAD_BYTES - head.length);
        head = Buffer.concat([head, take]);
        chunk = chunk.subarray(take.length);
        if (!chunk.length) return;
      }
      tail = Buffer.concat([tail, chunk]);
      if (tail.length > TAIL_BYTES) {
        tail = tail.subarray(tail.length - TAIL_BYTES);
        cut = true;
      }
    };
    // At a cut, the partial lines on both sides are dropped: no split character, no half a secret.
    const kept = () => {
      if (!cut) return Buffer.concat([head, tail]).toString('utf8');
      const h = head.subarray(0, Math.max(0, head.lastIndexOf(0x0a)));
      const t = tail.subarray(tail.indexOf(0x0a) + 1);
      return `${h.toString('utf8')}\n[…]\n${t.toString('utf8')}`;
    };
    // Handlers go in before the spawn: the command can print (and a caller can react
    // with a signal) before spawn() returns here; a signal in that gap must not kill
    // agentos with its default action and orphan the command. It is delivered once
    // the child exists.
    let child: ReturnType<typeof spawn> | null = null;
    const pending: NodeJS.Signals[] = [];
    const handlers = new Map<NodeJS.Signals, () => void>();
    for (const sig of FORWARDED) {
      const h = () => {
        if (sig === 'SIGINT' && opts.interactive) return; // the terminal sent it to the command already
        if (!child) pending.push(sig);
        else if (child.exitCode === null && child.signalCode === null) child.kill(sig);
      };
      handlers.set(sig, h);
      process.on(sig, h);
    }
    child = spawn(argv[0], argv.slice(1), { cwd: opts.cwd, env: opts.env, stdio: ['inherit', 'inherit', 'pipe'] });
    for (const sig of pending.splice(0)) child.kill(sig);
    const cleanup = () => handlers.forEach((h, sig) => process.removeListener(sig, h));
    child.stderr!.on('data', (chunk: Buffer) => {
      opts.stderr.write(chunk);
      keep(chunk);
    });
    let settled = false;
    const finish = (r: Omit<ChildResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      cleanup();
      resolve({ ...r, durationMs: Math.round(performance.now() - started) });
    };
    child.on('error', (e: NodeJS.ErrnoException) => {
      // Only a failure to start lands here before 'close'; report it as a shell would.
      const code = e.code === 'ENOENT' ? 127 : e.code === 'EACCES' ? 126 : 1;
      const message = e.code === 'ENOENT' ? `${argv[0]}: command not found` : `${argv[0]}: ${e.message}`;
      finish({ exitCode: code, signal: null, stderrTail: message, spawnError: message });
    });
    // 'exit', not 'close': a background process the command started (a daemon, `cmd &`)
    // keeps the stderr pipe open; agentos must not wait for it. What is still in the
    // pipe gets a moment to drain, then the pipe is let go.
    child.on('exit', (code, signal) => {
      const exitCode = code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1);
      const done = () => finish({ exitCode, signal, stderrTail: kept(), spawnError: null });
      const stream = child.stderr!;
      if (stream.readableEnded || stream.destroyed) return done();
      const timer = setTimeout(() => {
        stream.destroy();
        done();
      }, DRAIN_MS);
      stream.once('end', () => {
        clearTimeout(timer);
        done();
      });
    });
  });
}
