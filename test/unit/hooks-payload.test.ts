import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  claudeAttempt,
  commandOf,
  cursorAttempt,
  geminiAttempt,
  exitCodeFromText,
  genericAttempt,
  parsePayload,
  PayloadError,
  toolCallOf,
} from '../../src/agents/hooks/payload.js';
import { REPO } from '../helpers/paths.js';

const fixture = (name: string) =>
  parsePayload(readFileSync(path.join(REPO, 'test', 'fixtures', 'hooks', name), 'utf8'));

describe('Claude Code payloads (fixtures from the documented format)', () => {
  test('PostToolUse Bash → a success with the command and its description as context', () => {
    const a = claudeAttempt(fixture('post-tool-use-bash.json'), 'PostToolUse');
    expect(a).toMatchObject({
      tool: 'Bash',
      command: 'npm install ioredis',
      outcome: 'success',
      exitCode: 0,
      error: null,
      context: 'Add Redis caching',
      sessionId: '3f2c9a1e-5b7d-4c2a-9e1f-0a1b2c3d4e5f',
    });
  });

  test('PostToolUseFailure Bash → a failure with the error and the exit code read from it', () => {
    const a = claudeAttempt(fixture('post-tool-use-failure-bash.json'), 'PostToolUseFailure');
    expect(a.outcome).toBe('failure');
    expect(a.exitCode).toBe(1);
    expect(a.error).toContain('404 Not Found');
    expect(a.command).toBe('npm install redis-node');
  });

  test('PostToolUse Write → the path, never the file content', () => {
    const a = claudeAttempt(fixture('post-tool-use-write.json'), 'PostToolUse');
    expect(a.command).toBe('Write file_path=PROJECT/src/cache/redis.ts');
    expect(a.command).not.toContain('Redis(');
    expect(a.exitCode).toBeNull();
  });

  test('a PostToolUse whose response says it failed is recorded as a failure', () => {
    const a = claudeAttempt(
      {
        tool_name: 'Bash',
        tool_input: { command: 'make' },
        tool_response: { exit_code: 2, stderr: 'make: *** [all] Error 2' },
      },
      'PostToolUse',
    );
    expect(a).toMatchObject({ outcome: 'failure', exitCode: 2, error: 'make: *** [all] Error 2' });
  });

  test('a call the person interrupted is of unknown outcome, tagged: nobody saw whether it would have worked', () => {
    expect(
      claudeAttempt(
        { tool_name: 'Bash', tool_input: { command: 'sleep 100' }, is_interrupt: true },
        'PostToolUseFailure',
      ),
    ).toMatchObject({
      outcome: 'unknown',
      error: null,
      tags: ['interrupted'],
    });
  });

  test('PreToolUse → the tool call to check', () => {
    expect(toolCallOf(fixture('pre-tool-use-bash.json'))).toEqual({
      tool: 'Bash',
      command: 'npm install redis-node',
      context: 'Add Redis caching',
    });
    expect(toolCallOf({})).toBeNull();
  });

  test('long commands and errors are bounded', () => {
    const a = claudeAttempt(
      { tool_name: 'Bash', tool_input: { command: 'x'.repeat(10_000) }, error: 'e'.repeat(10_000) },
      'PostToolUseFailure',
    );
    expect(a.command.length).toBeLessThanOrEqual(2000);
    expect(a.error!.length).toBeLessThanOrEqual(2000);
    expect(a.error!.startsWith('…')).toBe(true); // the end of an error is kept
  });
});

describe('generic format', () => {
  test('fixture → attempt', () => {
    expect(genericAttempt(fixture('generic-failure.json'))).toEqual({
      tool: 'shell',
      command: 'pip install redis-py',
      outcome: 'failure',
      exitCode: 1,
      durationMs: null,
      error: 'ERROR: No matching distribution found for redis-py',
      context: 'Add Redis caching',
      tags: ['redis'],
      sessionId: 'other-agent-1',
    });
  });
  test.each([
    [{ outcome: 'success', command: 'x' }, /"tool"/],
    [{ tool: 'shell', command: 'x', outcome: 'ok' }, /"outcome"/],
  ])('%j is rejected', (p, re) => {
    expect(() => genericAttempt(p)).toThrow(re);
  });
  test('input instead of command', () => {
    expect(genericAttempt({ tool: 'edit', outcome: 'success', input: { path: 'src/a.ts' } }).command).toBe(
      'edit path=src/a.ts',
    );
  });
});

describe('helpers', () => {
  test('parsePayload rejects non-objects', () => {
    expect(() => parsePayload('[]')).toThrow(PayloadError);
    expect(() => parsePayload('{oops')).toThrow(/not JSON/);
  });
  test.each([
    ['Command exited with non-zero status code 127', 127],
    ['exit code 2', 2],
    ['Process exited with status 1', 1],
    ['no number here', null],
    // The command's own output is not its exit status (Cursor's error_message is the output itself).
    ['npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/x - status 404', null],
    ['Error: request failed with status 503', null],
    ['Build failed.\nProcess exited with status 1', null],
    [null, null],
  ])('exitCodeFromText(%p) = %p', (s, n) => {
    expect(exitCodeFromText(s)).toBe(n);
  });
  test('commandOf for a tool with no known fields lists its short string fields', () => {
    expect(commandOf('mcp__db__query', { sql: 'select 1', big: 'x'.repeat(300) })).toBe('mcp__db__query sql=select 1');
  });
});

describe('a call that did not run to its end is of unknown outcome, never a success (issue 31 review)', () => {
  const bash = (tool_response: Record<string, unknown>) =>
    claudeAttempt({ tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_response }, 'PostToolUse');
  test('Claude Code: a cancelled Bash call (interrupted: true) and one sent to the background', () => {
    expect(bash({ stdout: '', stderr: '', interrupted: true, isImage: false })).toMatchObject({
      outcome: 'unknown',
      exitCode: null,
      tags: ['interrupted'],
    });
    expect(bash({ stdout: '', stderr: '', interrupted: false, backgroundTaskId: 'bash_1' })).toMatchObject({
      outcome: 'unknown',
      tags: ['background'],
    });
    expect(bash({ stdout: 'ok', stderr: '', interrupted: false })).toMatchObject({ outcome: 'success', exitCode: 0 });
  });

  // llmContent as gemini-cli's shell.ts (test/fixtures/hooks/README.md) writes each case.
  const gemini = (llmContent: string, tool_input: Record<string, unknown> = { command: 'npm test' }) =>
    geminiAttempt({ tool_name: 'run_shell_command', tool_input, tool_response: { llmContent, returnDisplay: '' } });
  test('Gemini CLI: cancelled or backgrounded → unknown; cut off by the timeout or killed by a signal → failure', () => {
    expect(
      gemini(
        'Command was cancelled by user before it could complete. Below is the output before it was cancelled:\n(empty)',
      ),
    ).toMatchObject({ outcome: 'unknown', tags: ['interrupted'] });
    expect(gemini('Command moved to background (PID: 4242). Output hidden. Press Ctrl+B to view.')).toMatchObject({
      outcome: 'unknown',
      tags: ['background'],
    });
    expect(gemini('Output: (empty)', { command: 'npm run dev', is_background: true })).toMatchObject({
      outcome: 'unknown',
      tags: ['background'],
    });
    expect(
      gemini('Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output.'),
    ).toMatchObject({
      outcome: 'failure',
      exitCode: null,
      error: expect.stringMatching(/^Command was automatically cancelled/),
    });
    const killed = gemini('Output: building…\nSignal: SIGKILL\nProcess Group PGID: 77');
    expect(killed).toMatchObject({ outcome: 'failure', exitCode: null });
    expect(killed!.error!.match(/Signal: SIGKILL/g)).toHaveLength(1);
    expect(gemini('Output: done\nProcess Group PGID: 78')).toMatchObject({ outcome: 'success', exitCode: 0 });
  });

  test('an exit code below zero is read with its sign', () => {
    expect(
      claudeAttempt(
        { tool_name: 'Bash', tool_input: { command: 'x' }, error: 'Exit code -1\nkilled' },
        'PostToolUseFailure',
      ),
    ).toMatchObject({ exitCode: -1, error: 'killed' });
  });
});

/**
 * Issue 45: the command's own output decides nothing. Each agent's status is read where that agent
 * writes it (Claude Code: `error`'s opening `Exit code N` line; Gemini CLI: the trailer after
 * `Output: …`; Cursor: `exitCode`; Codex: nowhere), so an output holding an `Exit code: N` line
 * that says otherwise is recorded with the real outcome.
 */
describe('an exit-code line in the output never contradicts the agent (issue 45)', () => {
  const shell = { command: 'bash ci.sh' };

  test('Claude Code: a success whose stdout says "Exit code 2"; a failure whose output says "Exit code: 0"', () => {
    const ok = claudeAttempt(
      {
        tool_name: 'Bash',
        tool_input: { command: 'cat ci-log.txt' },
        tool_response: { stdout: 'Exit code 2\nExit code: 2\nFAILED', stderr: '', interrupted: false },
      },
      'PostToolUse',
    );
    expect(ok).toMatchObject({ outcome: 'success', exitCode: 0 });
    const failed = claudeAttempt(
      {
        tool_name: 'Bash',
        tool_input: shell,
        error: 'Exit code 1\nExit code: 0\nsrc/a.ts(3,1): error TS2304: Cannot find name x',
      },
      'PostToolUseFailure',
    );
    expect(failed).toMatchObject({ outcome: 'failure', exitCode: 1 });
  });

  test('Codex (no status in its payload): "Exit code: 2" from a file it printed is not a failure; "Exit code: 0" before a compiler error is not a success', () => {
    const cat = claudeAttempt(
      { tool_name: 'Bash', tool_input: { command: 'cat ci-log.txt' }, tool_response: 'step 3\nExit code: 2\n' },
      'PostToolUse',
    );
    expect(cat).toMatchObject({ outcome: 'unknown', exitCode: null });
    const ci = claudeAttempt(
      {
        tool_name: 'Bash',
        tool_input: shell,
        tool_response: 'Exit code: 0\nsrc/a.ts(3,1): error TS2304: Cannot find name x\n',
      },
      'PostToolUse',
    );
    expect(ci.outcome).not.toBe('success');
    expect(ci.exitCode).toBeNull();
  });

  test('Gemini CLI: the trailer decides, not an "Exit Code: N" line of the output (either way)', () => {
    const gemini = (output: string, trailer: string) =>
      geminiAttempt({
        tool_name: 'run_shell_command',
        tool_input: shell,
        tool_response: {
          llmContent: `<untrusted_context>\nOutput: ${output}${trailer}\nProcess Group PGID: 9\n</untrusted_context>`,
          returnDisplay: output,
        },
      });
    expect(gemini('Exit Code: 0\nerror TS2304', '\nExit Code: 2')).toMatchObject({ outcome: 'failure', exitCode: 2 });
    expect(gemini('log line\nExit Code: 2', '')).toMatchObject({ outcome: 'success', exitCode: 0 });
    // Without returnDisplay to match (debug mode, ANSI output), the trailing run of trailer lines.
    const noDisplay = geminiAttempt({
      tool_name: 'run_shell_command',
      tool_input: shell,
      tool_response: { llmContent: 'Output: Exit Code: 0\nboom\nExit Code: 3\nProcess Group PGID: 9' },
    });
    expect(noDisplay).toMatchObject({ outcome: 'failure', exitCode: 3 });
  });

  test('Gemini CLI: a command it blocked and never ran is not recorded (shell.ts, "Command injection detected")', () => {
    const blocked = geminiAttempt({
      tool_name: 'run_shell_command',
      tool_input: { command: 'echo $(whoami)' },
      tool_response: {
        llmContent:
          'Command injection detected: command substitution syntax ($(), backticks, <() or >()) found in command arguments. On PowerShell, @() array subexpressions and $() subexpressions are also blocked. This is a security risk and the command was blocked.',
        returnDisplay: 'Blocked: command substitution detected in shell command.',
      },
    });
    expect(blocked).toBeNull();
    const notStarted = geminiAttempt({
      tool_name: 'run_shell_command',
      tool_input: shell,
      tool_response: {
        llmContent: 'Command was cancelled by user before it could start.',
        returnDisplay: 'Command cancelled by user.',
      },
    });
    expect(notStarted).toBeNull();
    // A shape it does not know (a summarised output): it may have run; the outcome is not known.
    expect(
      geminiAttempt({
        tool_name: 'run_shell_command',
        tool_input: shell,
        tool_response: { llmContent: 'The build printed 3 warnings.' },
      }),
    ).toMatchObject({ outcome: 'unknown' });
  });

  test('Cursor: exitCode decides; plain-text output with an "Exit code: 1" line says nothing', () => {
    const ok = cursorAttempt(
      { tool_name: 'Shell', tool_input: shell, tool_output: JSON.stringify({ output: 'Exit code: 1\n', exitCode: 0 }) },
      'post-tool-use',
    );
    expect(ok).toMatchObject({ outcome: 'success', exitCode: 0 });
    const plain = cursorAttempt(
      { tool_name: 'Shell', tool_input: shell, tool_output: 'Exit code: 1\n' },
      'post-tool-use',
    );
    expect(plain).toMatchObject({ outcome: 'unknown', exitCode: null });
    const failed = cursorAttempt(
      { tool_name: 'Shell', tool_input: shell, error_message: 'exit 0 was expected\nTS2304', failure_type: 'error' },
      'post-tool-use-failure',
    );
    expect(failed).toMatchObject({ outcome: 'failure', exitCode: null });
  });
});
