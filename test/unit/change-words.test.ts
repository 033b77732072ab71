/** What a change says about itself (issue 46): docs lines and names read from its diff, bounded. */
import { MAX_DOC_CHARS, MAX_NAMES, PatchWords } from '../../src/work-memory/sources/change-words.js';
import { cleanDocLine, namesIn, splitIdentifier } from '../../src/work-memory/sources/change-names.js';

const SHA = 'a'.repeat(40);
const OTHER = 'b'.repeat(40);

/** A `git log -p -U0 --format=%x1e%H` stream of one commit touching the given files' added lines. */
function patch(sha: string, files: Record<string, string[]>): string[] {
  return [
    `\x1e${sha}`,
    '',
    ...Object.entries(files).flatMap(([file, lines]) => [
      `diff --git a/${file} b/${file}`,
      'index 1111111..2222222 100644',
      `--- a/${file}`,
      `+++ b/${file}`,
      '@@ -10,0 +11,2 @@',
      ...lines.map((l) => `+${l}`),
    ]),
  ];
}

function words(lines: string[], wanted = (_: string) => true) {
  const p = new PatchWords(wanted);
  for (const l of lines) p.line(l);
  p.flush();
  return p.words;
}

test("a flag's docs and code: the docs line in words, the flag and the test's name as names", () => {
  const w = words(
    patch(SHA, {
      'readme.md': [
        '- `--stage` Stage the publish for later approval',
        '',
        '## Staged publishing',
        'See [the npm docs](https://docs.npmjs.com/staged) for how a second maintainer approves it.',
      ],
      'source/cli.js': [
        "\t\tstage: { type: 'boolean' },",
        "if (flags.stage) await stagePublish('--stage');",
        "test('stages the publish instead of publishing', async t => {",
      ],
      'source/publish.js': [
        'export async function stagePublish(options) {',
        "  throw new Error('Staged publishing needs npm 11.5 or later');",
      ],
    }),
  ).get(SHA)!;
  expect(w.docs).toContain('--stage Stage the publish for later approval');
  expect(w.docs).toContain('See the npm docs for how a second maintainer approves it.');
  expect(w.docs).not.toMatch(/https?:|\[|`/);
  expect(w.names).toEqual(
    expect.arrayContaining([
      '--stage',
      'stages the publish instead of publishing',
      'stage publish',
      'Staged publishing needs npm 11.5 or later',
    ]),
  );
});

test('removed lines, unwanted commits, and files with no text say nothing', () => {
  const lines = [
    ...patch(OTHER, { 'README.md': ['A line about something quite different here'] }),
    `\x1e${SHA}`,
    'diff --git a/x.png b/x.png',
    'Binary files /dev/null and b/x.png differ',
    '-removed line of the readme that is gone',
  ];
  const w = words(lines, (sha) => sha === SHA);
  expect(w.has(OTHER)).toBe(false);
  expect(w.has(SHA)).toBe(false);
});

test('bounded: a change that adds a whole manual keeps a chunk of it', () => {
  const manual = Array.from(
    { length: 500 },
    (_, i) => `Paragraph ${i} explains yet another option of the tool in detail.`,
  );
  const code = Array.from({ length: 500 }, (_, i) => `export function handleOption${i}Value(x) {}`);
  const w = words(patch(SHA, { 'docs/manual.md': manual, 'src/options.ts': code })).get(SHA)!;
  expect(w.docs.length).toBeLessThanOrEqual(MAX_DOC_CHARS + 2);
  expect(w.names.length).toBeLessThanOrEqual(MAX_NAMES);
  // A minified line is data, not words.
  expect(words(patch(SHA, { 'README.md': ['x '.repeat(600)] })).has(SHA)).toBe(false);
});

test('identifiers as a brief would write them; markup, paths and selectors are not names', () => {
  expect(splitIdentifier('publishPackageManager')).toBe('publish package manager');
  expect(splitIdentifier('GITHUB_TOKEN')).toBe('github token');
  expect(splitIdentifier('parseHTTPResponse')).toBe('parse http response');
  expect(namesIn("import x from './lib/some/path.js'; const url = 'https://a.example/b c';")).toEqual([]);
  expect(namesIn("el.querySelector('.nav .item'); const t = `${a} and ${b}`;")).toEqual([]);
  expect(cleanDocLine('| `--remote` | Git remote to push tags and commits to |')).toBe(
    '--remote Git remote to push tags and commits to',
  );
  expect(cleanDocLine('```sh')).toBe('');
  expect(cleanDocLine('![badge](https://img.shields.io/x.svg)')).toBe('');
});

test('docs moved or re-wrapped are not written words; a docs-only change documents work done elsewhere', () => {
  const moved = [
    `\x1e${SHA}`,
    'diff --git a/README.md b/README.md',
    '--- a/README.md',
    '+++ b/README.md',
    '@@ -40,1 +39,0 @@',
    '-Pre-releases are published under the next dist-tag by default.',
    'diff --git a/docs/pre-releases.md b/docs/pre-releases.md',
    '--- /dev/null',
    '+++ b/docs/pre-releases.md',
    '@@ -0,0 +1,2 @@',
    '+Pre-releases are published under the next dist-tag by default.',
    '+Pass a tag name to publish under another dist-tag instead.',
    'diff --git a/lib/npm.js b/lib/npm.js',
    '--- a/lib/npm.js',
    '+++ b/lib/npm.js',
    '@@ -1,0 +2,1 @@',
    "+const tag = options.tag ?? 'next';",
  ];
  expect(words(moved).get(SHA)?.docs).toBe('Pass a tag name to publish under another dist-tag instead.');
  const docsOnly = words(
    patch(SHA, { 'docs/git.md': ['Tags are pushed to the remote named by the git.pushRepo option.'] }),
  );
  expect(docsOnly.get(SHA)?.docs ?? '').toBe('');
});

test('the methods a change adds are names too: a prototype method, a class method, a Go method; code in quotes is not a message', () => {
  expect(namesIn('Command.prototype.alias = function(alias) {')).toEqual(['alias']);
  expect(namesIn('  async requiredOption(flags, description) {')).toEqual(['required option']);
  expect(namesIn('func (c *Command) SetHelpTemplate(s string) {')).toEqual(['set help template']);
  expect(namesIn('  constructor(name) {')).toEqual([]);
  expect(namesIn("expect(out).toBe('+ cmd._aliases[0] :'); program.option('-f, --foo', 'add some foo');")).toEqual([
    '--foo',
    'add some foo',
  ]);
});

test("a docs file's code samples are not its prose; the names a change declares and tests come before its examples' strings", () => {
  const w = words(
    patch(SHA, {
      'Readme.md': [
        '```js',
        ".addOption(new Option('-p, --port <number>', 'port number').env('PORT'));",
        '```',
        'Options can take their value from an environment variable named with `.env()`.',
        '$ PORT=80 node serve.js',
      ],
      'examples/options-env.js': ["program.option('--drink <size>', 'drink cup size for the order');"],
      'lib/option.js': ['  env(name) {', "    this.envVar = name; // 'environment variable name'"],
      'tests/options.env.test.js': ["test('when env variable defined and no cli then option from env', () => {"],
    }),
  ).get(SHA)!;
  expect(w.docs).toMatch(/^Options can take their value from an environment variable named with \.env\(\) ?\.$/);
  expect(w.names.slice(0, 3)).toEqual([
    'env',
    'environment variable name',
    'when env variable defined and no cli then option from env',
  ]);
  expect(w.names.indexOf('drink cup size for the order')).toBeGreaterThan(w.names.indexOf('--port'));
});

test("file names only in a file's header: a removed SQL comment is no header, a name with a space loses git's tab", () => {
  const w = words([
    `\x1e${SHA}`,
    'diff --git a/Getting Started.md b/Getting Started.md',
    '--- a/Getting Started.md\t',
    '+++ b/Getting Started.md\t',
    '@@ -1,0 +1,1 @@',
    '+Run the tool once to create its configuration file.',
    'diff --git a/db/schema.sql b/db/schema.sql',
    '--- a/db/schema.sql',
    '+++ b/db/schema.sql',
    '@@ -3,1 +3,1 @@',
    '--- the old note about the sessions table',
    "+CREATE INDEX sessions_expiry ON sessions (expires_at); -- 'expire old sessions first'",
  ]).get(SHA)!;
  expect(w.docs).toBe('Run the tool once to create its configuration file.');
  expect(w.names).toContain('expire old sessions first');
});

test('a name on a removed line as well was moved or its line edited: not something the change introduces', () => {
  const lines = [
    `\x1e${SHA}`,
    'diff --git a/src/old-bindings.ts b/src/old-bindings.ts',
    '--- a/src/old-bindings.ts',
    '+++ b/src/old-bindings.ts',
    '@@ -3,1 +2,0 @@',
    "-  [Command.SUSPEND_APP]: 'Suspend the CLI and move it to the background.',",
    ...patch(SHA, {
      'src/key/bindings.ts': [
        "  [Command.SUSPEND]: 'Suspend the CLI and move it to the background.',",
        "  [Command.COPY]: 'Copy the last answer to the clipboard.',",
      ],
    }).slice(2),
  ];
  const w = words(lines).get(SHA)!;
  expect(w.names).toEqual(['Copy the last answer to the clipboard.']);
});

test("a test file's mocks and a function's locals come after what the change declares, tests and says", () => {
  const locals = Array.from({ length: 30 }, (_, i) => `  const mockedSuspendHandler${i} = vi.fn();`);
  const w = words(
    patch(SHA, {
      'src/ui/use-suspend.test.ts': [
        ...locals,
        "  it('restores the terminal when the process resumes', () => {",
        "  const suspendedScreenState = 'alternate screen';",
      ],
      'src/ui/use-suspend.ts': [
        'export function useSuspendHandler(props) {',
        '  const pendingRedrawCount = 0;',
        "  warn('Suspending is not supported on Windows');",
      ],
    }),
  ).get(SHA)!;
  expect(w.names.slice(0, 3)).toEqual([
    'use suspend handler',
    'restores the terminal when the process resumes',
    'Suspending is not supported on Windows',
  ]);
  // The locals fill what is left, in the change's order: the test file's mocks, until the bound.
  expect(w.names[3]).toBe('mocked suspend handler0');
  expect(w.names).toHaveLength(MAX_NAMES);
  expect(w.names).not.toContain('pending redraw count');
  expect(w.names).not.toContain('alternate screen');
});

test('a name removed before it is added again in the same commit takes no place among the candidates (a moved file fills none)', () => {
  const moved = Array.from({ length: 500 }, (_, i) => `export function movedHelperNumber${i}(x) {}`);
  const lines = [
    `\x1e${SHA}`,
    'diff --git a/src/old.ts b/src/old.ts',
    '--- a/src/old.ts',
    '+++ /dev/null',
    '@@ -1,500 +0,0 @@',
    ...moved.map((l) => `-${l}`),
    ...patch(SHA, { 'src/new.ts': [...moved, 'export function brandNewFeature(x) {}'] }).slice(2),
  ];
  expect(words(lines).get(SHA)!.names).toEqual(['brand new feature']);
});
