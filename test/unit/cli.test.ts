/**
 * CLI conventions (issue 8 §6, §5 flags, §4 gates): help, version, exit codes
 * per command, JSON errors, --verbose/--quiet, the threshold flags, and the
 * terminal gates (prompt, spinner, progress) on fake streams. The same gates
 * are checked on a real pseudo-terminal in test/integration/terminal.test.ts.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/cli.js';
import { runIssueStart } from '../../src/cli/commands/issue-start/index.js';
import { applyThresholdFlags } from '../../src/cli/brief-check.js';
import { DEFAULT_CONFIG } from '../../src/shared/config/schema.js';
import { ExitCode, UsageError } from '../../src/shared/errors.js';
import { canAnimate, canPrompt, textWidth } from '../../src/shared/io.js';
import { LOG_MAX_BYTES, rotateIfFull } from '../../src/shared/log/logger.js';
import { createSpinner } from '../../src/cli/ui/spinner.js';
import { createProgress } from '../../src/cli/ui/progress.js';
import { fakeDeps, makeIO, makeProject, readLog, indexWithScores, testContext } from '../helpers/fakes.js';
import { REPO } from '../helpers/paths.js';

const ESC = '\x1b';
const run = async (args: string[], opts: Parameters<typeof makeIO>[1] = {}) => {
  const root = await makeProject();
  const t = makeIO(root, opts);
  const code = await main(['node', 'agentos', ...args], t.io);
  return { code, ...t, root };
};

describe('help', () => {
  test('`help issue start` shows the help of `issue start`, with examples and global options', async () => {
    const r = await run(['help', 'issue', 'start']);
    expect(r.code).toBe(0);
    expect(r.stdout()).toMatch(/^Usage: agentos issue start \[options\] <brief>/);
    expect(r.stdout()).toContain('Examples:\n  $ agentos issue start');
    expect(r.stdout()).toContain('Global Options:');
    expect(r.stdout()).toContain('--verbose');
    expect(r.stdout()).toContain('--duplicate-threshold <score>');
  });

  test('`help model fetch` reaches the nested command too', async () => {
    const r = await run(['help', 'model', 'fetch']);
    expect(r.stdout()).toMatch(/^Usage: agentos model fetch/);
  });

  test.each([
    ['search', [0, 1, 2, 4, 5], [3, 130]],
    ['index', [0, 1, 2, 4, 5], [3, 130]],
    ['context', [0, 1, 2], [3, 4, 5, 130]],
    ['issue start', [0, 1, 2, 3, 4, 130], [5]],
    ['model fetch', [0, 1, 2, 5], [3, 4, 130]],
  ])('%s lists only the exit codes it can return', async (cmd, listed, absent) => {
    const r = await run([...cmd.split(' '), '--help']);
    const block = r.stdout().slice(r.stdout().indexOf('Exit codes:'));
    for (const c of listed) expect(block).toMatch(new RegExp(`\\n  ${c} +\\S`));
    for (const c of absent) expect(block).not.toMatch(new RegExp(`\\n  ${c} +\\S`));
  });

  test('--version is the version in package.json', async () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));
    const r = await run(['--version']);
    expect(r.stdout().trim()).toBe(pkg.version);
  });
});

describe('errors with --json', () => {
  test('a usage error: exit 2, the message on stderr and a JSON object on stdout', async () => {
    const r = await run(['search', 'x', '--json', '--min-score', '2']);
    expect(r.code).toBe(ExitCode.Usage);
    expect(JSON.parse(r.stdout())).toEqual({
      error: { code: 2, kind: 'usage', message: expect.stringContaining('expected a score from 0 to 1') },
    });
    expect(r.stderr()).toContain('expected a score from 0 to 1');
  });

  test('a bad brief: the ExitError as JSON on stdout', async () => {
    const r = await run(['issue', 'start', 'missing.md', '--json', '--non-interactive']);
    expect(r.code).toBe(ExitCode.Usage);
    const j = JSON.parse(r.stdout());
    expect(j.error).toMatchObject({ code: 2, kind: 'UsageError' });
    expect(j.error.message).toContain('missing.md');
  });

  test('without --json stdout stays empty on error', async () => {
    const r = await run(['issue', 'start', 'missing.md', '--non-interactive']);
    expect(r.code).toBe(ExitCode.Usage);
    expect(r.stdout()).toBe('');
  });

  test('--json after `--` is an argument, not the flag', async () => {
    const r = await run(['search', '--', '--json']);
    expect(r.stdout()).not.toContain('"error"');
  });
});

describe('--duplicate-threshold / --related-threshold', () => {
  const BRIEF = '# Cache builds\n\nMake the Docker build use the layer cache.\n';

  test('override the config for one run: 0.91 is a duplicate at 0.85, related at 0.95', async () => {
    const root = await makeProject({ 'brief.md': BRIEF });
    const store = indexWithScores([0.91]);
    const go = async (opts: object) => {
      const t = makeIO(root);
      await runIssueStart(testContext(t.io, {}, { deps: () => fakeDeps(store) }), 'brief.md', {
        onDuplicate: 'link',
        context: [],
        json: true,
        ...opts,
      });
      return JSON.parse(t.stdout());
    };
    expect((await go({})).status).toBe('duplicate_alert');
    expect((await go({ duplicateThreshold: 0.95 })).status).toBe('related_context');
    expect((await go({ duplicateThreshold: 0.95, relatedThreshold: 0.92 })).status).toBe('clear');
  });

  test('related must stay below duplicate: a usage error naming both', () => {
    const config = structuredClone(DEFAULT_CONFIG);
    expect(() => applyThresholdFlags(config, { relatedThreshold: 0.9 })).toThrow(UsageError);
    expect(() => applyThresholdFlags(config, { relatedThreshold: 0.9 })).toThrow(
      '--related-threshold (0.9) must be below --duplicate-threshold (0.85)',
    );
    applyThresholdFlags(config, { duplicateThreshold: 0.95, relatedThreshold: 0.9 });
    expect(config.thresholds).toMatchObject({
      duplicate: 0.95,
      related: 0.9,
      standards: DEFAULT_CONFIG.thresholds.standards,
    });
  });

  test('a score outside 0..1 is rejected by the parser (exit 2)', async () => {
    const r = await run(['issue', 'start', 'b.md', '--duplicate-threshold', '1.5']);
    expect(r.code).toBe(ExitCode.Usage);
    expect(r.stderr()).toContain('expected a score from 0 to 1');
  });
});

describe('--quiet and --verbose', () => {
  const BRIEF = '# Something new\n\nNothing like it was done.\n';
  const go = async (globals: object) => {
    const root = await makeProject({ 'brief.md': BRIEF });
    const t = makeIO(root);
    const code = await runIssueStart(
      testContext(t.io, globals, { deps: () => fakeDeps(indexWithScores([0.2])) }),
      'brief.md',
      { onDuplicate: 'link', context: [] },
    );
    return { code, err: t.stderr() };
  };
  test('--quiet: no notes or summaries on stderr', async () => {
    const r = await go({ quiet: true });
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
  });
  test('default: the summary and where the brief went', async () => {
    const r = await go({});
    expect(r.err).toContain('No similar past work found');
    expect(r.err).toContain('Brief to use:');
    expect(r.err).not.toContain('debug:');
  });
  test('--verbose: debug lines with timings', async () => {
    const r = await go({ verbose: true });
    expect(r.err).toMatch(/^debug: timing checkMs: \d+ ms$/m);
    expect(r.err).toMatch(/^debug: history: clear by fake:test/m);
  });
});

describe('terminal gates', () => {
  const io = (o: { stdinTTY?: boolean; stderrTTY?: boolean; columns?: number; env?: NodeJS.ProcessEnv }) => {
    const t = makeIO('/', { tty: o.stdinTTY, stderrTTY: o.stderrTTY, columns: o.columns, env: o.env });
    return t;
  };

  test('prompt only when stdin AND stderr are terminals (stderr redirected: no prompt)', () => {
    expect(canPrompt(io({ stdinTTY: true, stderrTTY: true }).io, false)).toBe(true);
    expect(canPrompt(io({ stdinTTY: true, stderrTTY: false }).io, false)).toBe(false);
    expect(canPrompt(io({ stdinTTY: false, stderrTTY: true }).io, false)).toBe(false);
    expect(canPrompt(io({ stdinTTY: true, stderrTTY: true, env: { CI: 'true' } }).io, false)).toBe(false);
  });

  test.each([
    [{ stderrTTY: true, columns: 80 }, true],
    [{ stderrTTY: true, columns: 0 }, false],
    [{ stderrTTY: true, columns: undefined }, false],
    [{ stderrTTY: true, columns: 5 }, false],
    [{ stderrTTY: true, columns: 80, env: { TERM: 'dumb' } }, false],
    [{ stderrTTY: false, columns: 80 }, false],
  ])('canAnimate(%j) = %s', (o, expected) => {
    expect(canAnimate(io(o).io)).toBe(expected);
  });

  test('textWidth: the terminal width when usable (max 120), else 80', () => {
    expect(textWidth({ isTTY: true, columns: 60 })).toBe(60);
    expect(textWidth({ isTTY: true, columns: 300 })).toBe(120);
    expect(textWidth({ isTTY: true, columns: 0 })).toBe(80);
    expect(textWidth({ isTTY: false, columns: 60 })).toBe(80);
  });

  test.each([
    ['0 columns', { stderrTTY: true, columns: 0 }],
    ['TERM=dumb', { stderrTTY: true, columns: 100, env: { TERM: 'dumb' } }],
    ['stderr redirected', { stderrTTY: false }],
  ])('spinner on %s: plain lines, not one escape code', async (_name, o) => {
    const t = io(o);
    const s = await createSpinner(t.io, false);
    s.start('Checking past work…');
    s.update('still');
    s.succeed('done');
    expect(t.stderr()).toBe('Checking past work…\nstill\ndone\n');
    expect(t.stderr()).not.toContain(ESC);
  });

  test('progress on a 0-column terminal: a plain line per quarter, no escapes', () => {
    const t = io({ stderrTTY: true, columns: 0 });
    const p = createProgress(t.io, false);
    for (let done = 0; done <= 1000; done += 50) p.update(done * 1000, 1_000_000, 'Downloading');
    p.done('Downloaded');
    expect(t.stderr()).not.toContain(ESC);
    expect(t.stderr().trim().split('\n')).toHaveLength(6); // 0, 25, 50, 75, 100 %, done
  });

  test('progress bar on a narrow terminal never outgrows the width', () => {
    const t = io({ stderrTTY: true, columns: 30 });
    const p = createProgress(t.io, false);
    p.update(10, 100, 'Downloading Xenova/all-MiniLM-L6-v2');
    p.update(100, 100, 'Downloading Xenova/all-MiniLM-L6-v2');
    for (const frame of t.stderr().split('\r\x1b[2K').filter(Boolean)) expect(frame.length).toBeLessThan(30);
  });
});

describe('the log', () => {
  test('levels are names, and search/index runs could be told apart by event', async () => {
    const root = await makeProject({ 'brief.md': '# X\n\nY.\n' });
    const t = makeIO(root);
    await runIssueStart(testContext(t.io, {}, { deps: () => fakeDeps(indexWithScores([0.2])) }), 'brief.md', {
      onDuplicate: 'link',
      context: [],
    });
    const log = await readLog(root);
    expect(log.length).toBeGreaterThan(0);
    for (const l of log) expect(typeof l.level).toBe('string');
  });

  test('rotation: a log over the cap moves to agentos.log.1; under it, nothing moves', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'agentos-log-'));
    try {
      const file = path.join(dir, 'agentos.log');
      await writeFile(file, 'x'.repeat(100));
      expect(rotateIfFull(file, 1000)).toBe(false);
      await writeFile(file, 'x'.repeat(1000));
      expect(rotateIfFull(file, 1000)).toBe(true);
      expect((await stat(`${file}.1`)).size).toBe(1000);
      expect(rotateIfFull(file, 1000)).toBe(false); // no log yet: fine
      expect(LOG_MAX_BYTES).toBeGreaterThan(0);
      expect(await readFile(`${file}.1`, 'utf8')).toHaveLength(1000);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('hooks run never exits 2: an agent reads 2 as "block the tool"', () => {
  test.each([
    [['hooks', 'run', 'pre-tool-use', '--bogus'], 'pre-tool-use', "unknown option '--bogus'"],
    [['hooks', 'run', 'pre-tool-use', '--format', 'nope'], 'pre-tool-use', "argument 'nope' is invalid"],
    [['hooks', 'run', 'post-tool-use', 'extra', 'words'], 'post-tool-use', 'too many arguments'],
    [
      ['-C', '.', 'hooks', 'run', 'session-start', '--on-repeat', 'stop'],
      'session-start',
      "argument 'stop' is invalid",
    ],
  ])('%j: exit 0, one fail-open line naming the event, nothing on stdout', async (args, event, why) => {
    const r = await run(args);
    expect(r.code).toBe(ExitCode.Ok);
    expect(r.stdout()).toBe('');
    expect(r.stderr()).toContain(`agentos: hook ${event} skipped (fail open): `);
    expect(r.stderr()).toContain(why);
  });

  test('anything else keeps its usage error', async () => {
    expect((await run(['issue', 'start', '--bogus', 'b.md'])).code).toBe(ExitCode.Usage);
    expect((await run(['hooks', 'install', '--bogus'])).code).toBe(ExitCode.Usage);
    // The words "hooks run" as a search's query are not a hook line.
    expect((await run(['search', 'hooks', 'run', '--limit', 'x'])).code).toBe(ExitCode.Usage);
  });
});
