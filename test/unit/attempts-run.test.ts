/**
 * `agentos run` in-process: decide (repeat check), ask (scripted or the real
 * @inquirer confirm on PassThrough streams), act (a real child: `sh -c`), record.
 * Commands write nothing to stdout (the child inherits the test runner's).
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { ConfirmCancelled, inquirerProceed } from '../../src/attempt-memory/confirm.js';
import { openAttemptMemory } from '../../src/attempt-memory/open.js';
import { parseAttempts } from '../../src/cli/commands/attempt/record/index.js';
import { runRun, type RunOptions } from '../../src/cli/commands/run/index.js';
import { DEFAULT_CONFIG } from '../../src/shared/config/schema.js';
import { ExitCode } from '../../src/shared/errors.js';
import { collector, makeIO, testContext } from '../helpers/fakes.js';

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

function project(config = ''): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'agentos-run-'));
  roots.push(root);
  mkdirSync(path.join(root, '.agentos'));
  if (config) writeFileSync(path.join(root, '.agentos', 'config.yaml'), config);
  return root;
}
const env = { PATH: process.env.PATH, NO_COLOR: '1' };
const opts = (o: Partial<RunOptions> = {}): RunOptions => ({ onRepeat: 'warn', tags: [], ...o });
const memory = (root: string) => openAttemptMemory(root, DEFAULT_CONFIG, { cwd: root });
const FAIL = ['sh', '-c', 'echo "E404 redis-node not found" >&2; exit 7'];

async function failOnce(root: string) {
  const t = makeIO(root, { env });
  expect(await runRun(testContext(t.io), FAIL, opts())).toBe(7);
  return t;
}

describe('run: outcome and exit code', () => {
  it('passes the exit code through and records the failure with the stderr tail', async () => {
    const root = project();
    const t = await failOnce(root);
    expect(t.stderr()).toContain('E404 redis-node not found'); // streamed through
    const m = memory(root);
    const [r] = m.list();
    expect(r).toMatchObject({
      tool: 'shell',
      outcome: 'failure',
      exitCode: 7,
      command: `sh -c 'echo "E404 redis-node not found" >&2; exit 7'`,
      cwd: '.',
    });
    expect(r.error).toBe('E404 redis-node not found');
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    m.close();
  });

  it('a command that cannot start is exit 127, said on stderr, and recorded', async () => {
    const root = project();
    const t = makeIO(root, { env });
    expect(await runRun(testContext(t.io), ['agentos-no-such-command-xyz'], opts())).toBe(127);
    expect(t.stderr()).toContain('agentos-no-such-command-xyz: command not found');
    const m = memory(root);
    expect(m.list()[0]).toMatchObject({ outcome: 'failure', exitCode: 127 });
    m.close();
  });
});

describe('run: a repeat of a recent failure', () => {
  it('without a terminal, --on-repeat warn (default) warns and runs', async () => {
    const root = project();
    await failOnce(root);
    const t = makeIO(root, { env });
    expect(await runRun(testContext(t.io), FAIL, opts())).toBe(7);
    expect(t.stderr()).toMatch(/⚠ This resembles a failure of the last 7 days/);
    expect(t.stderr()).toContain('error: E404 redis-node not found');
  });

  it('--on-repeat block exits 6 and runs nothing; counted as a repeat prevented', async () => {
    const root = project();
    await failOnce(root);
    const marker = path.join(root, 'ran');
    const t = makeIO(root, { env });
    const code = await runRun(
      testContext(t.io),
      ['sh', '-c', `echo "E404 redis-node not found" >&2; touch ${marker}; exit 7`],
      opts({ onRepeat: 'block' }),
    );
    // The marker changes the command a little; it must still be close enough to warn.
    expect(t.stderr()).toContain('⚠');
    expect(code).toBe(ExitCode.RepeatBlocked);
    expect(existsSync(marker)).toBe(false);
    expect(t.stderr()).toContain('not run: it repeats a recent failure (--on-repeat block)');
    const m = memory(root);
    expect(m.stats().repeatsPrevented).toBe(1);
    expect(m.list()).toHaveLength(1);
    m.close();
  });

  it('at a terminal, N declines (exit 6, nothing run)', async () => {
    const root = project();
    await failOnce(root);
    const t = makeIO(root, { env, tty: true });
    let asked = 0;
    const code = await runRun(
      testContext(t.io, {}, { proceed: async () => (asked++, false) }),
      FAIL,
      opts({ onRepeat: 'warn' }),
    );
    expect([code, asked]).toEqual([ExitCode.RepeatBlocked, 1]);
    expect(memory(root).list()).toHaveLength(1);
  });

  it('at a terminal, Ctrl-C at the prompt is exit 130 and runs nothing', async () => {
    const root = project();
    await failOnce(root);
    const t = makeIO(root, { env, tty: true });
    const code = await runRun(
      testContext(
        t.io,
        {},
        {
          proceed: async () => {
            throw new ConfirmCancelled();
          },
        },
      ),
      FAIL,
      opts(),
    );
    expect(code).toBe(ExitCode.Cancelled);
    expect(memory(root).list()).toHaveLength(1);
  });

  it('y, and it works this time: the old failure is overridden and never raised again', async () => {
    const root = project();
    const first = makeIO(root, { env });
    expect(await runRun(testContext(first.io), ['sh', '-c', 'test -f ready'], opts())).toBe(1);
    writeFileSync(path.join(root, 'ready'), '');
    const t = makeIO(root, { env, tty: true });
    expect(
      await runRun(testContext(t.io, {}, { proceed: async () => true }), ['sh', '-c', 'test -f ready'], opts()),
    ).toBe(0);
    expect(t.stderr()).toContain('marked overridden');
    const m = memory(root);
    const [ok, failed] = m.list();
    expect(failed.overriddenBy).toBe(ok.id);
    expect(m.checkRepeat({ tool: 'shell', command: "sh -c 'test -f ready'" })).toEqual([]);
    m.close();
    const again = makeIO(root, { env, tty: true });
    let asked = 0;
    expect(
      await runRun(
        testContext(again.io, {}, { proceed: async () => (asked++, true) }),
        ['sh', '-c', 'test -f ready'],
        opts(),
      ),
    ).toBe(0);
    expect(asked).toBe(0);
  });

  it('warnOnDuplicateFailure: false records but never warns', async () => {
    const root = project('attempts:\n  warnOnDuplicateFailure: false\n');
    await failOnce(root);
    const t = makeIO(root, { env });
    expect(await runRun(testContext(t.io), FAIL, opts({ onRepeat: 'block' }))).toBe(7);
    expect(t.stderr()).not.toContain('⚠');
  });
});

describe('run: fails open', () => {
  it('an unusable memory folder: says so on stderr, runs the command, returns its code', async () => {
    const root = project();
    writeFileSync(path.join(root, '.agentos', 'memory'), 'not a folder');
    const t = makeIO(root, { env });
    expect(await runRun(testContext(t.io), ['sh', '-c', 'exit 4'], opts())).toBe(4);
    expect(t.stderr()).toMatch(
      /agentos: opening the attempt memory failed: .*Running the command without attempt memory\./,
    );
  });

  it('a bad config does not stop the command either', async () => {
    const root = project('attempts:\n  repeatThreshold: 7\n');
    const t = makeIO(root, { env });
    expect(await runRun(testContext(t.io), ['true'], opts())).toBe(0);
    expect(t.stderr()).toMatch(/failed: .*repeatThreshold.*Running the command without attempt memory/);
  });

  it('attempts.enabled: false runs the command and records nothing', async () => {
    const root = project('attempts:\n  enabled: false\n');
    const t = makeIO(root, { env });
    expect(await runRun(testContext(t.io), ['sh', '-c', 'exit 3'], opts())).toBe(3);
    expect(existsSync(path.join(root, '.agentos', 'memory'))).toBe(false);
  });
});

describe('the y/N prompt (@inquirer confirm on PassThrough streams)', () => {
  async function answer(keys: string | null): Promise<boolean | 'cancelled'> {
    const input = new PassThrough();
    const output = collector();
    const ask = inquirerProceed(input, output);
    output.on('data', () => {
      if (!stripVTControlCharacters(output.text()).includes('Proceed anyway?')) return;
      output.removeAllListeners('data');
      setImmediate(() => (keys === null ? input.end() : input.write(keys)));
    });
    try {
      const r = await ask();
      expect(stripVTControlCharacters(output.text())).toContain('Proceed anyway? (y/N)');
      return r;
    } catch (e) {
      if (e instanceof ConfirmCancelled) return 'cancelled';
      throw e;
    }
  }
  it('y is yes, n is no, Enter is the default No, EOF is a cancel', async () => {
    expect(await answer('y\r')).toBe(true);
    expect(await answer('n\r')).toBe(false);
    expect(await answer('\r')).toBe(false);
    expect(await answer(null)).toBe('cancelled');
  });
});

describe('attempt record -: JSON from stdin', () => {
  it('one object, an array, JSON lines', () => {
    expect(parseAttempts('{"command":"make","outcome":"success"}')).toEqual([
      expect.objectContaining({ tool: 'shell', command: 'make', outcome: 'success' }),
    ]);
    expect(
      parseAttempts('[{"command":"a","outcome":"failure"},{"command":"b","outcome":"success","tool":"Bash"}]').map(
        (a) => a.command,
      ),
    ).toEqual(['a', 'b']);
    expect(
      parseAttempts('{"command":"a","outcome":"failure"}\n\n{"command":"b","outcome":"success"}\n').map(
        (a) => a.command,
      ),
    ).toEqual(['a', 'b']);
  });
  it.each([
    ['', /^stdin: no attempt given/],
    ['{"command":"a"}', /^stdin: outcome: required/],
    ['{"command":"a","outcome":"ok"}', /^stdin: outcome: expected "success", "failure", "unknown"/],
    ['{"command":"a","outcome":"success","exitCode":"1"}', /^stdin: exitCode: expected an integer/],
    ['{"command":"a","outcome":"success","tags":"x"}', /^stdin: tags: expected a list of strings/],
    ['{"command":"a","outcome":"success","bogus":1}', /^stdin: bogus: unknown field/],
    ['{"command":"a","outcome":"success"}\n{oops', /^stdin: line 2: not JSON/],
    ['[1]', /^stdin: item 1: expected a JSON object/],
  ])('%j is a one-line usage error', (text, message) => {
    expect(() => parseAttempts(text)).toThrow(message);
  });
});
