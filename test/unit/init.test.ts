/**
 * `agentos init` (issue 8 §2): detection of the project's folders, the
 * commented config it writes (valid for the real parser), the .gitignore, never
 * overwriting without --force, and the two checkbox prompts driven through
 * PassThrough streams as a terminal would drive them.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { parseConfig } from '../../src/shared/config/parse.js';
import { yaml } from '../../src/shared/config/yaml.js';
import { INIT_PROMPTS } from '../../src/cli/commands/init/ask.js';
import { GITIGNORE, renderConfig } from '../../src/cli/commands/init/config-text.js';
import { corpusFromChoice, detectLayout } from '../../src/cli/commands/init/detect.js';
import { runInit, type InitOptions } from '../../src/cli/commands/init/index.js';
import { ExitCode, ExitError } from '../../src/shared/errors.js';
import { makeIO, makeProject, testContext } from '../helpers/fakes.js';

/** A layout unlike the demo's: decisions, RFCs, closed issues, lineage briefs. */
const OTHER_LAYOUT = {
  'docs/decisions/0001-use-postgres.md': '# Use Postgres\n',
  'docs/decisions/0002-use-grpc.md': '# Use gRPC\n',
  'docs/RFCs/rfc-7-auth.md': '# RFC 7\n',
  'issues/closed/101-login.md': '# Login\n',
  'issues/closed/2024/102-logout.md': '# Logout\n',
  'issues/closed/notes.txt': 'not markdown',
  'issues/open/103-sso.md': '# SSO (open: not history)\n',
  'docs/lineage/done/55-cache/001-brief.md': '# Cache\n',
  'docs/lineage/done/55-cache/002-design.md': '# Cache design\n',
  'README.md': '# Project\n',
};

const cfgPath = (root: string) => path.join(root, '.agentos', 'config.yaml');
const ignorePath = (root: string) => path.join(root, '.agentos', '.gitignore');

async function init(root: string, opts: InitOptions = {}, io = makeIO(root)) {
  let code: number;
  let error: ExitError | null = null;
  try {
    code = await runInit(testContext(io.io), opts);
  } catch (e) {
    if (!(e instanceof ExitError)) throw e;
    error = e;
    code = e.code;
  }
  return { code, error, out: io.stdout(), err: io.stderr() };
}

describe('detectLayout', () => {
  test('finds each known folder with the files its glob matches, case-insensitively; open issues and other files stay out', async () => {
    const root = await makeProject(OTHER_LAYOUT);
    const found = await detectLayout(root);
    expect(found.map((f) => [f.folder, f.types, f.globs])).toEqual([
      ['docs/decisions', ['standard'], [{ glob: 'docs/decisions/**/*.md', files: 2 }]],
      ['docs/rfcs', ['standard'], [{ glob: 'docs/rfcs/**/*.md', files: 1 }]],
      // Only the issue brief of a lineage folder: 002-design.md is a follow-up, not the work itself.
      ['docs/lineage/done', ['history'], [{ glob: 'docs/lineage/done/*/001-brief.md', files: 1 }]],
      ['issues/closed', ['history'], [{ glob: 'issues/closed/**/*.md', files: 2 }]],
    ]);
  });

  test('an audit/done folder without 001-issue.md files falls back to every markdown file in it', async () => {
    const root = await makeProject({
      'docs/audit/done/7-x/brief.md': '# x\n',
      'docs/audit/done/8-y/brief.md': '# y\n',
    });
    const [f] = await detectLayout(root);
    expect(f).toMatchObject({
      folder: 'docs/audit/done',
      files: 2,
      globs: [{ glob: 'docs/audit/done/**/*.md', files: 2 }],
    });
  });

  test('a folder named as decision records are, wherever it sits, is proposed by its name; one file alone, dependencies and dot folders are not', async () => {
    const root = await makeProject({
      'docs/architecture-decisions/adr001-add-adr-log.md': '# ADR001\n',
      'docs/architecture-decisions/adr002-catalog.md': '# ADR002\n',
      'doc/adr/0001-record-decisions.md': '# 1\n',
      'doc/adr/0002-use-postgres.md': '# 2\n',
      'docs/adr/0001-known.md': '# known\n',
      'docs/adr/0002-known.md': '# known\n',
      'src/decisions/README.md': '# code\n',
      'node_modules/x/adr/0001-a.md': '# a\n',
      'node_modules/x/adr/0002-b.md': '# b\n',
      '.github/decisions/0001-a.md': '# a\n',
      '.github/decisions/0002-b.md': '# b\n',
    });
    const found = await detectLayout(root);
    expect(found.map((f) => [f.folder, f.why, f.globs])).toEqual([
      ['docs/adr', 'architecture decision records', [{ glob: 'docs/adr/**/*.md', files: 2 }]],
      ['doc/adr', 'decision records (by the folder name)', [{ glob: 'doc/adr/**/*.md', files: 2 }]],
      [
        'docs/architecture-decisions',
        'decision records (by the folder name)',
        [{ glob: 'docs/architecture-decisions/**/*.md', files: 2 }],
      ],
    ]);
  });

  test('an empty project finds nothing', async () => {
    expect(await detectLayout(await makeProject({ 'src/index.ts': '' }))).toEqual([]);
  });
});

describe('renderConfig', () => {
  test('the commented config parses with the real parser into exactly the chosen globs, other keys at their defaults', () => {
    const text = renderConfig({
      standards: [{ glob: 'docs/decisions/**/*.md', files: 2 }],
      history: [{ glob: 'issues/closed/**/*.md', files: 1 }],
    });
    const parsed = parseConfig(yaml().parse(text));
    expect(parsed.errors).toEqual([]);
    expect(parsed.config.corpus.standards).toEqual(['docs/decisions/**/*.md']);
    expect(parsed.config.corpus.history).toEqual(['issues/closed/**/*.md']);
    expect(parsed.config.thresholds).toEqual({ duplicate: 0.85, related: 0.5, standards: 0.5 });
    expect(text).toMatch(/^# agentos configuration/);
    expect(text).toContain('# 2 files now');
    expect(text).toMatch(/^# thresholds:$/m);
  });

  test('nothing detected: empty lists that parse, with a hint where to add globs', () => {
    const text = renderConfig({ standards: [], history: [] });
    const parsed = parseConfig(yaml().parse(text));
    expect(parsed.errors).toEqual([]);
    expect(parsed.config.corpus.standards).toEqual([]);
    expect(parsed.config.corpus.history).toEqual([]);
    expect(text).toContain('none found: add globs such as');
  });

  test('.gitignore ignores index, lock, logs, issue outputs, models, memory; never the config', () => {
    const lines = GITIGNORE.split('\n');
    for (const l of ['index/', '*.lock', 'logs/', 'issues/', 'models/', 'memory/', 'cache/', 'eval/'])
      expect(lines).toContain(l);
    expect(lines.filter((l) => /config/.test(l) && !l.startsWith('#'))).toEqual([]);
  });
});

describe('runInit', () => {
  test('--yes: shows the folders and counts, writes the config and .gitignore, points to the next command', async () => {
    const root = await makeProject(OTHER_LAYOUT);
    const r = await init(root, { yes: true });
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.out).toMatch(/docs\/decisions\/\*\*\/\*\.md\s+2 files/);
    expect(r.out).toMatch(/issues\/closed\/\*\*\/\*\.md\s+2 files/);
    expect(r.out).toContain('Wrote .agentos/config.yaml (2 standards globs, 2 history globs).');
    expect(r.out).toContain('Next: agentos index --include-history');
    const parsed = parseConfig(yaml().parse(await readFile(cfgPath(root), 'utf8')));
    expect(parsed.config.corpus.standards).toEqual(['docs/decisions/**/*.md', 'docs/rfcs/**/*.md']);
    expect(parsed.config.corpus.history).toEqual(['docs/lineage/done/*/001-brief.md', 'issues/closed/**/*.md']);
    expect(await readFile(ignorePath(root), 'utf8')).toBe(GITIGNORE);
  });

  test('never overwrites an existing config without --force (exit 2, file untouched); --force replaces it', async () => {
    const root = await makeProject(OTHER_LAYOUT);
    await writeFile(cfgPath(root), 'thresholds:\n  duplicate: 0.9\n');
    const r = await init(root, { yes: true });
    expect(r.code).toBe(ExitCode.Usage);
    expect(r.error!.message).toContain('.agentos/config.yaml already exists');
    expect(r.error!.message).toContain('--force');
    expect(await readFile(cfgPath(root), 'utf8')).toBe('thresholds:\n  duplicate: 0.9\n');
    expect(existsSync(ignorePath(root))).toBe(false);

    const forced = await init(root, { yes: true, force: true });
    expect(forced.code).toBe(ExitCode.Ok);
    expect(await readFile(cfgPath(root), 'utf8')).toContain('docs/decisions/**/*.md');
  });

  test('an existing .gitignore is kept (and said so) unless --force', async () => {
    const root = await makeProject(OTHER_LAYOUT);
    await writeFile(ignorePath(root), 'mine\n');
    const r = await init(root, { yes: true });
    expect(r.out).toContain('Kept the existing .agentos/.gitignore.');
    expect(await readFile(ignorePath(root), 'utf8')).toBe('mine\n');
  });

  test('--json: what was found, chosen and written', async () => {
    const root = await makeProject(OTHER_LAYOUT);
    const r = await init(root, { yes: true, json: true });
    const j = JSON.parse(r.out);
    expect(j.asked).toBe(false);
    expect(j.found.map((f: { folder: string }) => f.folder)).toEqual([
      'docs/decisions',
      'docs/rfcs',
      'docs/lineage/done',
      'issues/closed',
    ]);
    expect(j.corpus.history.map((g: { glob: string }) => g.glob)).toEqual([
      'docs/lineage/done/*/001-brief.md',
      'issues/closed/**/*.md',
    ]);
    expect(j.config).toBe(cfgPath(root));
  });

  test('no known folder: still writes a config with empty lists and says what to do', async () => {
    const root = await makeProject({ 'src/main.ts': '' });
    const r = await init(root, { yes: true });
    expect(r.out).toContain('No folders agentos knows were found');
    expect(r.out).toContain('No known folders were found: add your globs to the config');
  });

  test('without a terminal it does not ask, even without --yes', async () => {
    const root = await makeProject(OTHER_LAYOUT);
    const r = await init(root, {});
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.err).not.toContain(INIT_PROMPTS.history);
  });
});

describe('at a terminal: two checkbox prompts (real @inquirer/prompts on PassThrough streams)', () => {
  /** stdin and stderr claim to be a TTY; keys are typed once the prompt shows `when`. */
  function terminal(root: string, steps: { when: string; send: string }[]) {
    const t = makeIO(root, { tty: true });
    Object.assign(t.io.stderr, { isTTY: true, columns: 100 });
    let next = 0;
    let seen = 0;
    t.io.stderr.on('data', () => {
      const step = steps[next];
      if (!step) return;
      const text = stripVTControlCharacters(t.stderr());
      if (text.slice(seen).includes(step.when)) {
        next++;
        seen = text.length;
        setTimeout(() => t.stdin.write(step.send), 20);
      }
    });
    return { t, played: () => next };
  }

  test('pre-ticked with the detection; toggling a folder moves it into history', async () => {
    const root = await makeProject(OTHER_LAYOUT);
    // History prompt: cursor on docs/decisions (first), space ticks it, Enter submits. Standards: Enter keeps the proposal.
    const { t, played } = terminal(root, [
      { when: INIT_PROMPTS.history, send: ' ' },
      { when: '◉ docs/decisions', send: '\r' },
      { when: INIT_PROMPTS.standards, send: '\r' },
    ]);
    const r = await init(root, {}, t);
    expect(played()).toBe(3);
    expect(r.code).toBe(ExitCode.Ok);
    const parsed = parseConfig(yaml().parse(await readFile(cfgPath(root), 'utf8')));
    expect(parsed.config.corpus.history).toEqual([
      'docs/decisions/**/*.md',
      'docs/lineage/done/*/001-brief.md',
      'issues/closed/**/*.md',
    ]);
    expect(parsed.config.corpus.standards).toEqual(['docs/decisions/**/*.md', 'docs/rfcs/**/*.md']);
  });

  test('Ctrl-C at the prompt: exit 130, nothing written', async () => {
    const root = await makeProject(OTHER_LAYOUT);
    const { t } = terminal(root, [{ when: INIT_PROMPTS.history, send: '\x03' }]);
    const r = await init(root, {}, t);
    expect(r.code).toBe(ExitCode.Cancelled);
    expect(r.err).toContain('Cancelled: nothing was written.');
    expect(existsSync(cfgPath(root))).toBe(false);
    expect(existsSync(ignorePath(root))).toBe(false);
  });

  test('--yes at a terminal does not ask', async () => {
    const root = await makeProject(OTHER_LAYOUT);
    const { t, played } = terminal(root, [{ when: INIT_PROMPTS.history, send: '\r' }]);
    const r = await init(root, { yes: true }, t);
    expect(r.code).toBe(ExitCode.Ok);
    expect(played()).toBe(0);
    expect(stripVTControlCharacters(r.err)).not.toContain(INIT_PROMPTS.history);
  });
});

test('a decision folder under a scoped package name (`@org`, escaped in its glob) is walked and counted; four levels at most', async () => {
  const root = await makeProject({
    'packages/@org/app/adr/0001-a.md': '# a\n',
    'packages/@org/app/adr/0002-b.md': '# b\n',
    'a/b/c/d/adr/0001-a.md': '# deep\n',
    'a/b/c/d/adr/0002-b.md': '# deep\n',
  });
  const found = await detectLayout(root);
  expect(found.map((f) => [f.folder, f.files])).toEqual([['packages/@org/app/adr', 2]]);
});

test('templates and a decision folder’s index page are proposed as exclude, named and left out of the count; a standards README is kept', async () => {
  const root = await makeProject({
    'docs/decisions/0001-use-postgres.md': '# Use PostgreSQL\n',
    'docs/decisions/0002-dashes.md': '# Dashes in file names\n',
    'docs/decisions/adr-template.md': '# {short title}\n',
    'docs/decisions/adr-template-minimal.md': '# {short title}\n',
    'docs/decisions/index.md': '# Decisions\n',
    'docs/decisions/0042-use-templates-for-emails.md': '# Templates for e-mails\n',
    'docs/standards/README.md': '# How we write code\n',
    'docs/standards/0000-template.md': '# Template\n',
  });
  const found = await detectLayout(root);
  const decisions = found.find((f) => f.folder === 'docs/decisions')!;
  expect(decisions.files).toBe(3);
  expect(decisions.exclude).toEqual([
    { path: 'docs/decisions/adr-template-minimal.md', why: 'a template, not a decision' },
    { path: 'docs/decisions/adr-template.md', why: 'a template, not a decision' },
    { path: 'docs/decisions/index.md', why: "the folder's index page" },
  ]);
  expect(found.find((f) => f.folder === 'docs/standards')!.exclude).toEqual([
    { path: 'docs/standards/0000-template.md', why: 'a template, not a decision' },
  ]);
  const text = renderConfig(corpusFromChoice(found, ['docs/decisions', 'docs/standards'], []));
  const parsed = parseConfig(yaml().parse(text));
  expect(parsed.errors).toEqual([]);
  expect(parsed.config.corpus.exclude).toEqual([
    'docs/decisions/adr-template-minimal.md',
    'docs/decisions/adr-template.md',
    'docs/decisions/index.md',
    'docs/standards/0000-template.md',
  ]);
});
