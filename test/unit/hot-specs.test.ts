/** The hot lines' flags are declared once (each command's spec.ts, listed by src/cli/hot-specs.ts): bin routes exactly their words, and both routes read the same flags. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildProgram } from '../../src/cli/cli.js';
import { ATTEMPT_CHECK, HOOKS_RUN, HOT_WORDS, RUN } from '../../src/cli/hot-specs.js';
import type { HotCommand } from '../../src/cli/flag-spec.js';
import { parseFastRoute } from '../../src/cli/fast-path.js';
import { REPO } from '../helpers/paths.js';
import { makeIO } from '../helpers/fakes.js';

test('bin/agentos.js loads the fast route for exactly the hot words', () => {
  const bin = readFileSync(path.join(REPO, 'bin', 'agentos.js'), 'utf8');
  const routed = [...bin.matchAll(/args\.includes\('([a-z-]+)'\)/g)].map((m) => m[1]).sort();
  expect(routed).toEqual(HOT_WORDS);
});

test.each([
  ['run', RUN],
  ['attempt check', ATTEMPT_CHECK],
  ['hooks run', HOOKS_RUN],
] as const)(
  '%s: commander knows every flag of the spec, with the same defaults, and no other',
  (_name, spec: HotCommand) => {
    let cmd = buildProgram(makeIO(REPO).io, () => undefined);
    for (const w of spec.words) cmd = cmd.commands.find((c) => c.name() === w)!;
    const long = cmd.options.map((o) => o.long).sort();
    expect(long).toEqual(spec.flags.map((f) => f.flag).sort());
    for (const f of spec.flags) expect(cmd.options.find((o) => o.long === f.flag)?.defaultValue).toEqual(f.default);
  },
);

test('the fast route reads every flag of the spec (a value for each valued flag)', () => {
  for (const spec of [RUN, ATTEMPT_CHECK]) {
    const args = spec.flags.flatMap((f) =>
      f.kind === 'boolean' ? [f.flag] : [f.flag, f.kind === 'choice' ? f.choices![0] : 'x'],
    );
    const route = parseFastRoute([...spec.words, ...args, '--', 'true'], {});
    expect(route).not.toBeNull();
    const opts = (route as unknown as { opts: Record<string, unknown> }).opts;
    for (const f of spec.flags)
      expect(opts[f.key]).toEqual(
        f.kind === 'boolean' ? true : f.kind === 'tags' ? ['x'] : f.kind === 'choice' ? f.choices![0] : 'x',
      );
  }
});
