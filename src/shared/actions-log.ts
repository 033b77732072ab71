/**
 * The GitHub Actions job log is a command channel: the runner reads every line of a step's
 * stdout and stderr for workflow commands (actions/runner src/Runner.Common/ActionCommand.cs
 * and src/Runner.Worker/ActionCommandManager.cs). A line whose first non-blank characters are
 * `::name …::` is a command, and so is `##[name …]` anywhere in a line. `::add-mask::Docker`
 * would mask every later "Docker" in the log, `::stop-commands::x` would switch off the
 * annotations agentos writes after it.
 *
 * agentos prints other people's text (issue bodies, past titles, file names, recorded
 * output), wrapped to a width that can put any of it at the start of a line. So the rule is
 * applied where the text leaves the process, not where it is made: in a job log (GITHUB_ACTIONS
 * is "true"), every write to stdout and stderr goes through `neutralise`, and the only
 * commands that reach the log are agentos' own, written with `writeWorkflowCommand`.
 *
 * How a command is broken: a space between the two colons that open a line (`: :`) and
 * between `##` and `[` (`## [`). Not a zero-width character: the runner compares with .NET's
 * culture-sensitive StartsWith and IndexOf, which skip ignorable code points under ICU, so
 * `#\u200b#[` can still read as `##[`. For the same reason ignorable code points and
 * control characters are taken out of the text first.
 */
import { StringDecoder } from 'node:string_decoder';
import type { IO } from './io.js';

/** Set by the runner in every job (docs.github.com "Default environment variables"). */
export const inActionsLog = (env: NodeJS.ProcessEnv): boolean => env.GITHUB_ACTIONS === 'true';

// Code points an ICU comparison may skip (zero-width, joiners, soft hyphen, BOM, variation
// selectors, …) and controls other than tab and the line breaks.
const IGNORABLE = /[\p{Default_Ignorable_Code_Point}\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/gu;
// .NET's char.IsWhiteSpace, which TrimStart removes before `::` is looked for.
const BLANK = /[\t\v\f \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

/** Where a stream's text stands between writes: a command can span two of them. */
interface LineState {
  /** Nothing but blanks since the last line break. */
  blank: boolean;
  /** The line opened with one colon, and nothing after it yet. */
  colon: boolean;
  /** `#` characters just written (2 means a `[` now would open a command). */
  hashes: number;
}

const fresh = (): LineState => ({ blank: true, colon: false, hashes: 0 });

/** Text with no workflow command in it, given where the line it continues stands (updated). */
export function neutralise(text: string, state: LineState = fresh()): string {
  let out = '';
  for (const c of text.replace(IGNORABLE, '')) {
    if (c === '\n' || c === '\r') {
      Object.assign(state, fresh());
      out += c;
      continue;
    }
    if (state.colon && c === ':') out += ' ';
    else if (c === '[' && state.hashes >= 2) out += ' ';
    state.colon = state.blank && c === ':';
    state.hashes = c === '#' ? state.hashes + 1 : 0;
    if (!BLANK.test(c)) state.blank = false;
    out += c;
  }
  return out;
}

const RAW = Symbol('agentos.actionsLog.raw');
const TARGET = Symbol('agentos.actionsLog.target');
type Stream = IO['stdout'];
type Guarded = Stream & { [RAW]?: (line: string) => void; [TARGET]?: Stream };

/**
 * The stream under the guard: for another program's own output that agentos passes through
 * (`agentos run -- CMD`). It would reach the log as it is without agentos, and its workflow
 * commands are its own (`::add-mask::` from @actions/core must still mask its secret).
 */
export function unguarded(stream: Stream): Stream {
  return (stream as Guarded)[TARGET] ?? stream;
}

/** A stream whose writes pass through `neutralise`; everything else (isTTY, columns, on, end) is the stream's own. */
function guard(stream: Stream): Stream {
  const state = fresh();
  // A character cut between two Buffer writes is decoded whole.
  const decoder = new StringDecoder('utf8');
  const write = (chunk: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? decoder.write(chunk) : String(chunk);
    return (stream.write as (c: string, ...r: unknown[]) => boolean)(neutralise(text, state), ...rest);
  };
  const raw = (line: string) => {
    // A command is a line of its own: after text that did not end one, a line break first.
    stream.write(`${state.blank && !state.colon && state.hashes === 0 ? '' : '\n'}${line}\n`);
    Object.assign(state, fresh());
  };
  return new Proxy(stream, {
    get(target, prop) {
      if (prop === 'write') return write;
      if (prop === RAW) return raw;
      if (prop === TARGET) return target;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** The process's streams as a job log may see them: guarded when the runner reads them, else as they are. */
export function guardActionsLog(io: IO): IO {
  if (!inActionsLog(io.env) || (io.stdout as Guarded)[RAW]) return io;
  const stdout = guard(io.stdout);
  const stderr = guard(io.stderr);
  return {
    get stdin() {
      return io.stdin;
    },
    stdout,
    stderr,
    env: io.env,
    cwd: io.cwd,
  };
}

/** A workflow command's message and its properties (`file=…`), escaped as the runner unescapes them (ActionCommand.cs). */
export const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
export const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** The annotations agentos writes; nothing else (add-mask, stop-commands, set-output) is ever written. */
export type AnnotationKind = 'warning' | 'notice' | 'error';

/**
 * One annotation as the runner reads it: `::warning file=…,line=1,title=…::message`. Properties
 * and message escaped. The properties are left as they are (`file=` must name the file as it is);
 * the message is also neutralised: it is other people's text, shown, and echoed into the log.
 */
export function annotation(
  kind: AnnotationKind,
  props: Record<string, string | number | undefined>,
  message: string,
): string {
  const p = Object.entries(props)
    .filter((e): e is [string, string | number] => e[1] !== undefined && e[1] !== '')
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(',');
  return `::${kind}${p ? ` ${p}` : ''}::${escapeData(neutralise(message))}`;
}

/** One workflow command of agentos' own (built by `annotation`), as a line of its own, past the guard. */
export function writeWorkflowCommand(stream: Stream, line: string): void {
  if (/[\r\n]/.test(line)) throw new Error('a workflow command is one line');
  const raw = (stream as Guarded)[RAW];
  if (raw) raw(line);
  else stream.write(`${line}\n`);
}
