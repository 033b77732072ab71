/**
 * Run a command with the terminal passed through: stdin is the terminal's own;
 * stderr is teed (streamed to ours as it comes, its head and tail kept for the
 * record); stdout too when the caller asks (`stdout`: when it is not a terminal,
 * as under a coding agent: tsc, pytest and go test print their errors there).
 * A terminal's stdout stays the command's own (piping it would turn off the
 * command's colours and prompts). Signals sent to agentos are forwarded to the command; the
 * result is the command's exit code (128 + n when a signal n ended it).
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';

export interface ChildResult {
  /** What agentos exits with: the command's code, 128+signal, 127 not found, 126 not executable. */
  exitCode: number;
  signal: NodeJS.Signals | null;
  durationMs: number;
  /** The command's stderr, bounded: its first HEAD_BYTES and last TAIL_BYTES (or why it could not start). */
  stderrTail: string;
  /** The command's stdout, bounded the same way, when it was teed; else null. */
  stdoutTail: string | null;
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
  /** Tee stdout here (and keep its head and tail); without it stdout is inherited. */
  stdout?: Writable;
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
    const errKept = new HeadTail();
    const outKept = opts.stdout ? new HeadTail() : null;
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
    child = spawn(argv[0], argv.slice(1), {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['inherit', opts.stdout ? 'pipe' : 'inherit', 'pipe'],
    });
    for (const sig of pending.splice(0)) child.kill(sig);
    const cleanup = () => handlers.forEach((h, sig) => process.removeListener(sig, h));
    child.stderr!.on('data', (chunk: Buffer) => {
      opts.stderr.write(chunk);
      errKept.add(chunk);
    });
    if (opts.stdout && outKept) teeStdout(child.stdout!, opts.stdout, outKept);
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
      finish({ exitCode: code, signal: null, stderrTail: message, stdoutTail: null, spawnError: message });
    });
    // 'exit', not 'close': a background process the command started (a daemon, `cmd &`)
    // keeps the stderr pipe open; agentos must not wait for it. What is still in the
    // pipe gets a moment to drain, then the pipe is let go.
    child.on('exit', (code, signal) => {
      const exitCode = code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1);
      // stdout is not cut: a background process keeps writing through it while agentos runs.
      const streams = [drained(child.stderr!, 'destroy'), ...(outKept ? [drained(child.stdout!, 'unref')] : [])];
      void Promise.all(streams).then(() =>
        finish({ exitCode, signal, stderrTail: errKept.text(), stdoutTail: outKept?.text() ?? null, spawnError: null }),
      );
    });
  });
}

/**
 * The command's stdout to ours, as it comes, its head and tail kept. Backpressure is
 * passed on (a slow reader slows the command, as a pipe would). When our reader goes
 * away (`agentos run -- cmd | head`), the command's pipe is closed so that it gets
 * EPIPE/SIGPIPE as it would have without agentos; agentos itself goes on to record.
 */
function teeStdout(from: Readable, to: Writable, kept: HeadTail): void {
  let open = true;
  to.on('error', () => {
    open = false;
    from.destroy();
  });
  from.on('data', (chunk: Buffer) => {
    kept.add(chunk);
    if (open && !to.write(chunk)) {
      from.pause();
      to.once('drain', () => from.resume());
    }
  });
}

/**
 * The stream's end, or after DRAIN_MS the stream let go (a background process may hold
 * it open): stderr is closed, stdout stops holding agentos open but keeps flowing.
 */
function drained(stream: Readable, letGo: 'destroy' | 'unref'): Promise<void> {
  if (stream.readableEnded || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      if (letGo === 'destroy') stream.destroy();
      else (stream as Readable & { unref?: () => void }).unref?.();
      resolve();
    }, DRAIN_MS);
    stream.once('end', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The first HEAD_BYTES and the last TAIL_BYTES of a stream. */
class HeadTail {
  private head = Buffer.alloc(0);
  private tail = Buffer.alloc(0);
  private cut = false;

  add(chunk: Buffer): void {
    if (this.head.length < HEAD_BYTES) {
      const take = chunk.subarray(0, HEAD_BYTES - this.head.length);
      this.head = Buffer.concat([this.head, take]);
      chunk = chunk.subarray(take.length);
      if (!chunk.length) return;
    }
    this.tail = Buffer.concat([this.tail, chunk]);
    if (this.tail.length > TAIL_BYTES) {
      this.tail = this.tail.subarray(this.tail.length - TAIL_BYTES);
      this.cut = true;
    }
  }

  /** At a cut, the partial lines on both sides are dropped: no split character, no half a secret. */
  text(): string {
    if (!this.cut) return Buffer.concat([this.head, this.tail]).toString('utf8');
    const h = this.head.subarray(0, Math.max(0, this.head.lastIndexOf(0x0a)));
    const t = this.tail.subarray(this.tail.indexOf(0x0a) + 1);
    return `${h.toString('utf8')}\n[…]\n${t.toString('utf8')}`;
  }
}
