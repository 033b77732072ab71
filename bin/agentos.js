#!/usr/bin/env node
// Thin entry: everything lives in dist/cli.js so that `--help` stays cheap.

/**
 * `agentos hooks run <event> [--format F] [--on-repeat M]` runs on every tool call
 * of a coding agent, so it skips commander and the command registry: the hook
 * module is loaded directly. Anything else on such a line (another flag, a global
 * option, an unknown event) goes the normal way, which also reports errors.
 */
function hookFastPath(args) {
  if (args[0] !== 'hooks' || args[1] !== 'run') return null;
  const event = args[2];
  if (!['session-start', 'pre-tool-use', 'post-tool-use', 'post-tool-use-failure'].includes(event)) return null;
  const opts = { format: 'claude', onRepeat: 'warn' };
  const allowed = { '--format': ['format', ['claude', 'generic']], '--on-repeat': ['onRepeat', ['warn', 'ask']] };
  for (let i = 3; i < args.length; i++) {
    const eq = args[i].indexOf('=');
    const flag = eq === -1 ? args[i] : args[i].slice(0, eq);
    const value = eq === -1 ? args[++i] : args[i].slice(eq + 1);
    const spec = allowed[flag];
    if (!spec || !spec[1].includes(value)) return null;
    opts[spec[0]] = value;
  }
  return { event, opts };
}

const fast = hookFastPath(process.argv.slice(2));
const run = fast
  ? Promise.all([import('../dist/hooks/run.js'), import('../dist/io.js')]).then(([{ runHook }, { processIO }]) => runHook(fast.event, processIO(), fast.opts))
  : import('../dist/cli.js').then(({ main }) => main(process.argv));

run.then((code) => {
  process.exitCode = code;
  // A model load abandoned by the check's time-out may still hold the event loop:
  // exit once what was written to stdout and stderr has been flushed.
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
});
