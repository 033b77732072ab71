/** Error causes, not log tails (issue 21 §3): the cause line of real tools' output, captured on this machine. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { errorCause, failureSaidIn } from '../../src/attempt-memory/cause.js';
import { REPO } from '../helpers/paths.js';

const sample = (name: string) => readFileSync(path.join(REPO, 'test', 'fixtures', 'tool-errors', name), 'utf8');

// Each file is a tool's real stderr (tsc: its stdout), captured with the command in the comment.
const CASES: Array<[string, string, string]> = [
  [
    'npm.txt',
    'npm install <missing package>',
    '404 Not Found - GET https://registry.npmjs.org/zz-agentos-no-such-pkg-4711',
  ],
  [
    'npx.txt',
    'npx --no-install tsc (not installed)',
    'npx canceled due to missing packages and no YES option: ["tsc@2.0.4"]',
  ],
  ['node.txt', `node -e "require('left-padz')"`, "Error: Cannot find module 'left-padz'"],
  [
    'tsc.txt',
    'tsc --noEmit t.ts (a type error)',
    "t.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.",
  ],
  [
    'py.txt',
    `python3 -c "import json; json.loads('{bad')"`,
    'json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)',
  ],
  ['pip.txt', 'pip install <missing package>', 'ERROR: No matching distribution found for zz-agentos-no-such-pkg-4711'],
  ['cargo.txt', 'cargo build (a type error)', 'error[E0308]: mismatched types'],
  ['go.txt', 'go build (an undefined name)', './main.go:2:14: undefined: undefinedFn'],
  [
    'javac.txt',
    'javac A.java (a type error)',
    'A.java:1: error: incompatible types: String cannot be converted to int',
  ],
  ['pytest.txt', 'python3 -m pytest (a failing assert)', 'FAILED pyt/test_x.py::test_x - assert (1 + 1) == 3'],
  ['jest.txt', 'jest (a failing expect)', '● adds: expect(received).toBe(expected) // Object.is equality'],
  [
    'docker.txt',
    'docker ps (no daemon)',
    'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?',
  ],
  ['git.txt', 'git log (not a repository)', 'fatal: not a git repository (or any of the parent directories): .git'],
  ['make.txt', 'make (gcc on a missing file)', 'cc1: fatal error: nofile.c: No such file or directory'],
  [
    'curl.txt',
    'curl -f http://127.0.0.1:1/',
    "curl: (7) Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server",
  ],
];

describe.each(CASES)('%s (%s)', (file, _command, cause) => {
  it('the cause is the line that says why, not the trailer', () => {
    expect(errorCause(sample(file))).toBe(cause);
  });
});

describe('fallbacks', () => {
  it('the last line that says error, else the last line; colours stripped; empty is null', () => {
    expect(errorCause('building\nsomething failed badly\ncleaning up\n')).toBe('something failed badly');
    expect(errorCause('just output\nlast words\n')).toBe('last words');
    expect(errorCause('\x1b[31mfatal: no such remote\x1b[0m\n')).toBe('fatal: no such remote');
    expect(errorCause('')).toBeNull();
    expect(errorCause('\n \n')).toBeNull();
    expect(errorCause(null)).toBeNull();
  });

  it('a cause is one bounded line', () => {
    const long = `Error: ${'x'.repeat(1000)}`;
    expect(errorCause(long)!.length).toBe(300);
  });

  it('an HTTP status in an otherwise unknown tool', () => {
    expect(errorCause('fetching index\nGET /simple/foo: HTTP/1.1 404 Not Found\nretrying\ngiving up\n')).toBe(
      'GET /simple/foo: HTTP/1.1 404 Not Found',
    );
  });
});

describe('hostile stderr', () => {
  it('a 200 KB line of spaces and a long Error.Error… line are read in bounded time', () => {
    const spaces = `${' '.repeat(200_000)}x\n`;
    const errors = `Traceback (most recent call last)\n${'Error.'.repeat(40_000)}:x\nNode.js v20\n`;
    const t0 = performance.now();
    errorCause(spaces);
    errorCause(errors);
    // Linear work on 440 KB is a few ms; the quadratic patterns took seconds.
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('colour codes do not hide a secret from redaction: neither the error nor its cause keeps the token', async () => {
    const { mkdtemp } = await import('node:fs/promises');
    const os = await import('node:os');
    const { openAttemptMemory } = await import('../../src/attempt-memory/open.js');
    const { DEFAULT_CONFIG } = await import('../../src/shared/config/schema.js');
    const root = await mkdtemp(path.join(os.tmpdir(), 'agentos-cause-'));
    const token = `ghp_${'a1B2c3D4e5'.repeat(4).slice(0, 36)}`;
    const mem = openAttemptMemory(root, DEFAULT_CONFIG);
    mem.record({
      tool: 'shell',
      command: 'git push',
      outcome: 'failure',
      error: `fatal: \x1b[31m${token}\x1b[0m rejected`,
    });
    const [rec] = mem.list();
    mem.close();
    await (await import('node:fs/promises')).rm(root, { recursive: true, force: true });
    expect(rec.cause).toMatch(/^fatal: /);
    expect(`${rec.cause} ${rec.error}`).not.toContain(token);
  });
});

describe('failureSaidIn: a failure read only where the tool the command runs says so (output with no exit status, issue 31)', () => {
  // The command of each sample, as CASES describes it.
  const COMMANDS: Record<string, string> = {
    'npm.txt': 'npm install zz-agentos-no-such-pkg-4711',
    'npx.txt': 'npx --no-install tsc',
    'node.txt': `node -e "require('left-padz')"`,
    'tsc.txt': 'tsc --noEmit t.ts',
    'py.txt': `python3 -c "import json; json.loads('{bad')"`,
    'pip.txt': 'pip install zz-agentos-no-such-pkg-4711',
    'cargo.txt': 'cargo build',
    'go.txt': 'go build ./...',
    'javac.txt': 'javac A.java',
    'pytest.txt': 'python3 -m pytest',
    'jest.txt': 'npx jest',
    'docker.txt': 'docker ps',
    'git.txt': 'git log',
    'make.txt': 'make',
    'curl.txt': 'curl -f http://127.0.0.1:1/',
  };

  it.each(CASES.map(([file, , cause]) => [file, cause]))(
    '%s: the real failure is found, and the cause line is in what it says',
    (file, cause) => {
      const said = failureSaidIn(sample(file), COMMANDS[file]);
      expect(said).not.toBeNull();
      expect(said!.line.includes(cause) || cause.includes(said!.line)).toBe(true);
    },
  );

  it('answers only for a command that runs the tool: a cat of a log that says "fatal:" has not failed', () => {
    expect(failureSaidIn(sample('git.txt'), 'cat notes.txt')).toBeNull();
    expect(failureSaidIn(sample('npm.txt'), 'grep -r error logs/')).toBeNull();
    expect(failureSaidIn(sample('git.txt'), 'cd repo && git log')).not.toBeNull();
  });

  // Output of commands that worked: captured on this machine, except those marked "shape" (the tool's documented lines).
  it.each([
    ['git status', 'On branch master\nnothing to commit, working tree clean\n'],
    ['npm install left-pad', '\nadded 1 package in 816ms\n'],
    ['npm run lint', '\n> demo@1.0.0 lint\n> eslint .\n\n'],
    [
      'python3 -m pytest -q',
      '.                                                                        [100%]\n1 passed in 0.01s\n',
    ],
    ['node -e "console.log(1)"', 'Error handling is done in src/errors.ts\n'],
    [
      'go build ./... (shape)',
      'go: downloading github.com/spf13/cobra v1.8.0\ngo: downloading github.com/spf13/pflag v1.0.5\n',
    ],
    [
      'go get example.com/x@v1 (shape)',
      'go: downgraded example.com/y v1.2.0 => v1.1.0\ngo: removed example.com/z v0.3.0\n',
    ],
    ['curl -i http://example.com/missing (shape)', 'HTTP/1.1 404 Not Found\nContent-Length: 9\n\nnot found\n'],
    [
      'npx jest (shape: a passing run that logs)',
      ' PASS  ./x.test.js\n  ● Console\n\n    console.log\n      hello\n\nTests:       1 passed, 1 total\n',
    ],
    [
      'pip install x (shape: the resolver warns, the install works)',
      "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed.\nSuccessfully installed x-1.0\n",
    ],
    ['rg "error TS" src (shape)', 'src/a.ts:12:  // error TS2322: was here\n'],
  ])('%s: no failure', (command, output) => {
    expect(failureSaidIn(output, command.replace(/ \((shape|captured)[^)]*\)$/, ''))).toBeNull();
  });

  it('reads at most both ends of a huge output', () => {
    const huge = 'x'.repeat(5_000_000) + '\nfatal: not a git repository\n';
    expect(failureSaidIn(huge, 'git status')?.line).toBe('fatal: not a git repository');
  });
});
