/**
 * Text that reaches a GitHub Actions job log (issue 45): read by the runner's own rules
 * (test/helpers/actions-runner.ts), nothing agentos prints of other people's text is a
 * workflow command, wherever a line break puts it and however the writes are cut; agentos'
 * own annotations still are.
 */
import { PassThrough } from 'node:stream';
import {
  annotation,
  guardActionsLog,
  neutralise,
  unguarded,
  writeWorkflowCommand,
} from '../../src/shared/actions-log.js';
import type { IO } from '../../src/shared/io.js';
import { commandsEitherWay, HOSTILE_COMMANDS, runnerCommands } from '../helpers/actions-runner.js';

function guarded(env: NodeJS.ProcessEnv = { GITHUB_ACTIONS: 'true' }) {
  const out = { stdout: '', stderr: '' };
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (d: Buffer) => (out.stdout += d.toString()));
  stderr.on('data', (d: Buffer) => (out.stderr += d.toString()));
  const io = guardActionsLog({ stdin: new PassThrough(), stdout, stderr, env, cwd: '/' } as IO);
  return { io, out };
}

describe('the parser of the test is the runner: it finds what a runner runs', () => {
  test('each hostile form is a command as written (or under ICU), and stop-commands hides what follows until its token', () => {
    for (const h of HOSTILE_COMMANDS) expect(commandsEitherWay(`text before\n${h}\n`).length).toBeGreaterThan(0);
    const log = ['::stop-commands::tok', '::warning file=a.md::hidden', '::tok::', '::warning file=a.md::seen'].join(
      '\n',
    );
    expect(runnerCommands(log).map((c) => [c.command, c.data])).toEqual([
      ['stop-commands', 'tok'],
      ['tok', ''],
      ['warning', 'seen'],
    ]);
    // `##[` anywhere in a line; `::` only where the line (less blanks) opens.
    expect(runnerCommands('see ##[add-mask]Docker').map((c) => c.command)).toEqual(['add-mask']);
    expect(runnerCommands('see ::add-mask::Docker')).toEqual([]);
  });
});

describe('neutralise', () => {
  test('every hostile form at every position of a line, and after every line break: no command either way', () => {
    for (const h of HOSTILE_COMMANDS) {
      for (let k = 0; k <= 12; k++) {
        for (const text of [
          `${'w'.repeat(k)} ${h}`,
          `${'w'.repeat(k)}\n${h}`,
          `${' '.repeat(k)}${h}`,
          `${'#'.repeat(k)}${h}`,
          `x\r${h}`,
        ]) {
          expect(commandsEitherWay(neutralise(text))).toEqual([]);
        }
      }
    }
  });

  test('a command cut across writes is still broken: the state carries from one write to the next', () => {
    for (const h of HOSTILE_COMMANDS) {
      const text = `intro\n${h}\nend ${h}\n`;
      for (let cut = 0; cut <= text.length; cut++) {
        const { io, out } = guarded();
        io.stdout.write(text.slice(0, cut));
        io.stdout.write(text.slice(cut));
        expect(commandsEitherWay(out.stdout)).toEqual([]);
      }
    }
  });

  test('ordinary text is left as it was', () => {
    const text =
      'agentos: #27: Docker Build Optimization (similarity 0.97)\n  Past work: a::b, C# [notes], key: value\n';
    expect(neutralise(text)).toBe(text);
  });
});

describe('the guarded streams', () => {
  test("agentos' own annotation passes, on a line of its own, after hostile text that left a line open", () => {
    const { io, out } = guarded();
    io.stderr.write('Your brief: ::stop-commands::agentos-owned\n::stop-commands::agentos-owned\n');
    io.stdout.write('partial ##');
    writeWorkflowCommand(
      io.stdout,
      annotation(
        'warning',
        { file: 'briefs/a,b:c.md', line: 1, title: 'agentos: possible duplicate' },
        '#27: ##[add-mask]Docker\n::error::x 100%',
      ),
    );
    io.stdout.write('[add-mask]Docker\n');
    const commands = [
      ...runnerCommands(out.stderr + out.stdout),
      ...runnerCommands(out.stderr + out.stdout, { icu: true }),
    ];
    expect(commands.map((c) => c.command)).toEqual(['warning', 'warning']);
    expect(commands[0].properties).toEqual({
      file: 'briefs/a,b:c.md',
      line: '1',
      title: 'agentos: possible duplicate',
    });
    // The message keeps what it says: only the command forms are broken.
    expect(commands[0].data).toBe('#27: ## [add-mask]Docker\n: :error::x 100%');
  });

  test("outside a job log (no GITHUB_ACTIONS) the streams are the process's own, untouched", () => {
    const { io, out } = guarded({});
    io.stdout.write('::add-mask::Docker\n');
    expect(out.stdout).toBe('::add-mask::Docker\n');
  });

  test('a workflow command is one line: a line break in one is a defect, refused', () => {
    const { io } = guarded();
    expect(() => writeWorkflowCommand(io.stdout, '::warning::a\n::add-mask::b')).toThrow(/one line/);
  });
});

test("another program's own output passes through as it is (agentos run -- CMD): its add-mask must still mask its secret", () => {
  const { io, out } = guarded();
  unguarded(io.stdout).write('::add-mask::s3cr3t\n');
  io.stdout.write('::add-mask::from-a-title\n');
  expect(runnerCommands(out.stdout).map((c) => [c.command, c.data])).toEqual([['add-mask', 's3cr3t']]);
  // A character cut between two writes of bytes is decoded whole.
  const euro = Buffer.from('€');
  io.stdout.write(euro.subarray(0, 1));
  io.stdout.write(euro.subarray(1));
  expect(out.stdout.endsWith('€')).toBe(true);
});
