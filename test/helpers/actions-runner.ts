/**
 * How the GitHub Actions runner reads a step's output for workflow commands, so a test can say
 * what a job log would have done with agentos' output. Written from actions/runner's own source
 * (read through the stored copy, not run):
 *
 * - src/Runner.Common/ActionCommand.cs @ 079cdb1d05fe0ec50f8c51de5a4fa51d0eb189b0: TryParseV2 (the
 *   line, TrimStart()ed, starts with `::`; the command info runs to the next `::`; the name up to a
 *   space; `,`-separated `k=v` properties) and TryParse (`##[` anywhere in the line, up to the next `]`,
 *   `;`-separated properties); the name must be a registered command, compared ignoring case.
 * - src/Runner.Worker/ActionCommandManager.cs @ a2e32170fd83851569804fa7b27d2cae235a5225:
 *   TryProcessCommand tries V2 then V1 on every line of stdout and stderr; `stop-commands` stops
 *   every command until one named by its token, which is registered while stopped.
 *
 * `icu: true` reads each line as .NET's culture-sensitive StartsWith/IndexOf may under ICU, which
 * skip ignorable code points (zero-width characters, controls): they are taken out before parsing.
 */

/** The command extensions ActionCommandManager.cs registers (internal-set-repo-path only for plugins). */
const REGISTERED = [
  'stop-commands',
  'set-env',
  'set-output',
  'save-state',
  'add-mask',
  'add-path',
  'add-matcher',
  'remove-matcher',
  'warning',
  'error',
  'notice',
  'debug',
  'group',
  'endgroup',
  'echo',
];

export interface RunnerCommand {
  command: string;
  properties: Record<string, string>;
  data: string;
  line: string;
}

// char.IsWhiteSpace, which TrimStart() removes.
const DOTNET_WHITESPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;
const IGNORABLE = /[\p{Default_Ignorable_Code_Point}\p{Cc}]/gu;

const unescape = (s: string, props: boolean) => {
  let out = s.replace(/%0D/g, '\r').replace(/%0A/g, '\n');
  if (props) out = out.replace(/%3A/g, ':').replace(/%2C/g, ',');
  return out.replace(/%25/g, '%');
};

function parseV2(line: string, registered: Set<string>): RunnerCommand | null {
  const message = line.replace(DOTNET_WHITESPACE, '');
  if (!message.startsWith('::')) return null;
  const end = message.indexOf('::', 2);
  if (end < 0) return null;
  const info = message.slice(2, end);
  const space = info.indexOf(' ');
  const name = space < 0 ? info : info.slice(0, space);
  if (!registered.has(name.toLowerCase())) return null;
  const properties: Record<string, string> = {};
  if (space > 0) {
    for (const p of info
      .slice(space + 1)
      .trim()
      .split(',')
      .filter(Boolean)) {
      const eq = p.indexOf('=');
      if (eq > 0 && eq < p.length - 1) properties[p.slice(0, eq)] = unescape(p.slice(eq + 1), true);
    }
  }
  return { command: name, properties, data: unescape(message.slice(end + 2), false), line };
}

function parseV1(line: string, registered: Set<string>): RunnerCommand | null {
  const prefix = line.indexOf('##[');
  if (prefix < 0) return null;
  const rb = line.indexOf(']', prefix);
  if (rb < 0) return null;
  const info = line.slice(prefix + 3, rb);
  const space = info.indexOf(' ');
  const name = space < 0 ? info : info.slice(0, space);
  if (!registered.has(name.toLowerCase())) return null;
  return { command: name, properties: {}, data: line.slice(rb + 1), line };
}

/** The commands a runner would run, in order, reading `log` (stdout and stderr, as it reads both). */
export function runnerCommands(log: string, opts: { icu?: boolean } = {}): RunnerCommand[] {
  const registered = new Set(REGISTERED);
  const ran: RunnerCommand[] = [];
  let stopToken: string | null = null;
  for (const raw of log.split(/\r\n|\r|\n/)) {
    const line = opts.icu ? raw.replace(IGNORABLE, '') : raw;
    const cmd = parseV2(line, registered) ?? parseV1(line, registered);
    if (!cmd) continue;
    if (stopToken !== null) {
      if (cmd.command.toLowerCase() === stopToken.toLowerCase()) {
        registered.delete(stopToken.toLowerCase());
        stopToken = null;
        ran.push(cmd);
      }
      continue;
    }
    if (cmd.command.toLowerCase() === 'stop-commands') {
      stopToken = cmd.data;
      registered.add(stopToken.toLowerCase());
    }
    ran.push(cmd);
  }
  return ran;
}

/** Both readings: as written, and with the code points an ICU comparison skips taken out. */
export const commandsEitherWay = (log: string): RunnerCommand[] => [
  ...runnerCommands(log),
  ...runnerCommands(log, { icu: true }),
];

/** Workflow commands hidden in other people's text, in the forms the runner reads. */
export const HOSTILE_COMMANDS = [
  '::add-mask::Docker',
  '::stop-commands::agentos-owned',
  '::error file=README.md::owned',
  '##[add-mask]Docker',
  '##[error]owned',
  '  ::warning::indented',
  '\u200b::add-mask::Docker',
  '#\u200b#[add-mask]Docker',
  ':\u00ad:set-output name=x::y',
];
