/**
 * The commander-free route for the per-tool-call commands (bin/agentos.js):
 * which lines it takes, what it parses them to, and that everything else (help,
 * unknown flags, values commander must judge) is left to commander.
 * test/integration/attempts-cli.test.ts runs both routes on the same lines and
 * compares what the user sees.
 */
import { describe, expect, it } from '@jest/globals';
import { parseFastRoute, runFastRoute } from '../../src/cli/fast-path.js';
import { makeIO, makeProject } from '../helpers/fakes.js';

const parse = (line: string[]) => parseFastRoute(line, {});

describe('parseFastRoute', () => {
  it('takes hooks run <event> with its two flags, in both spellings', () => {
    expect(parse(['hooks', 'run', 'pre-tool-use'])).toEqual({
      kind: 'hook',
      event: 'pre-tool-use',
      opts: { format: 'claude', onRepeat: 'warn' },
    });
    expect(parse(['hooks', 'run', 'post-tool-use', '--format', 'generic', '--on-repeat=ask'])).toEqual({
      kind: 'hook',
      event: 'post-tool-use',
      opts: { format: 'generic', onRepeat: 'ask' },
    });
  });

  it('takes attempt check with globals before it, flags, repeated tags and the command after --', () => {
    expect(
      parse([
        '-C',
        '/p',
        '-q',
        'attempt',
        'check',
        '--tool',
        'Bash',
        '--context=Add Redis',
        '--tags',
        'a, b',
        '--tags',
        'c',
        '--json',
        '--',
        'npm',
        'install',
        '--save',
        'x',
      ]),
    ).toEqual({
      kind: 'attempt-check',
      globals: { cwd: '/p', quiet: true },
      words: ['npm', 'install', '--save', 'x'],
      opts: { tool: 'Bash', context: 'Add Redis', tags: ['a', 'b', 'c'], json: true },
    });
    expect(parse(['--cwd=/p', 'attempt', 'check', '--command', 'make x'])).toEqual({
      kind: 'attempt-check',
      globals: { cwd: '/p' },
      words: [],
      opts: { tool: 'shell', tags: [], command: 'make x' },
    });
  });

  it('takes run with its flags and the command after --', () => {
    expect(
      parse([
        'run',
        '--on-repeat',
        'block',
        '--non-interactive',
        '--session=s1',
        '--tags',
        'x',
        '--',
        'npm',
        'test',
        '--',
        '-w',
      ]),
    ).toEqual({
      kind: 'run',
      globals: {},
      words: ['npm', 'test', '--', '-w'],
      opts: { onRepeat: 'block', nonInteractive: true, session: 's1', tags: ['x'] },
    });
    expect(parse(['-C', 'p', 'run', '--', 'true'])).toEqual({
      kind: 'run',
      globals: { cwd: 'p' },
      words: ['true'],
      opts: { onRepeat: 'warn', tags: [] },
    });
  });

  it.each([
    [['run', '--']],
    [['run']],
    [['run', 'npm', 'test']],
    [['run', '--on-repeat', 'ask', '--', 'x']],
    [['run', '--json', '--', 'x']],
    [['run', '--non-interactive=yes', '--', 'x']],
    [['hooks', 'run', 'nonsense']],
    [['hooks', 'run', 'pre-tool-use', '--format', 'xml']],
    [['hooks', 'run', 'pre-tool-use', '--format']],
    [['hooks', 'run', 'pre-tool-use', '--verbose']],
    [['hooks', 'run', 'pre-tool-use', '--']],
    [['hooks', 'run', 'pre-tool-use', 'extra']],
    [['hooks', 'install']],
    [['attempt', 'check', '--help']],
    [['attempt', 'check', '--tool']],
    [['attempt', 'check', '--tool', '--json', '--', 'x']],
    [['attempt', 'check', 'npm', 'install']],
    [['attempt', 'check', '--unknown', 'x', '--', 'y']],
    [['-v', 'attempt', 'check', '--', 'x']],
    [['-C', '--', 'attempt', 'check']],
    [['attempt', 'list']],
    [['issue', 'start', 'brief.md']],
    [['--help']],
    [[]],
  ])('leaves %j to commander', (line) => {
    expect(parse(line)).toBeNull();
  });

  it('AGENTOS_NO_FAST_PATH turns it off', () => {
    expect(parseFastRoute(['hooks', 'run', 'pre-tool-use'], { AGENTOS_NO_FAST_PATH: '1' })).toBeNull();
  });
});

describe('runFastRoute', () => {
  it('reports a usage error as the normal path does: one line naming the command, exit 2, JSON error object', async () => {
    const root = await makeProject();
    const t = makeIO(root);
    const code = await runFastRoute(parse(['attempt', 'check', '--json'])!, t.io);
    expect(code).toBe(2);
    expect(t.stderr()).toBe(
      'agentos: attempt check: no command (give it after --, e.g. `agentos attempt check -- npm install x`)\n',
    );
    expect(JSON.parse(t.stdout())).toEqual({
      error: { code: 2, kind: 'UsageError', message: expect.stringMatching(/^attempt check: no command/) },
    });
  });

  it('a hook line runs the hook (fail open on a bad payload: exit 0, one line on stderr)', async () => {
    const t = makeIO(await makeProject());
    t.stdin.end('{not json');
    const code = await runFastRoute(parse(['hooks', 'run', 'post-tool-use'])!, t.io);
    expect(code).toBe(0);
    expect(t.stdout()).toBe('');
    expect(t.stderr()).toMatch(/^agentos: hook post-tool-use skipped \(fail open\): /);
  });
});
