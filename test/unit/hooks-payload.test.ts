import { readFileSync } from 'node:fs';
import path from 'node:path';
import { claudeAttempt, commandOf, geminiAttempt, exitCodeFromText, genericAttempt, parsePayload, PayloadError, toolCallOf } from '../../src/agents/hooks/payload.js';
import { REPO } from '../helpers/paths.js';

const fixture = (name: string) => parsePayload(readFileSync(path.join(REPO, 'test', 'fixtures', 'hooks', name), 'utf8'));

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
    const a = claudeAttempt({ tool_name: 'Bash', tool_input: { command: 'make' }, tool_response: { exit_code: 2, stderr: 'make: *** [all] Error 2' } }, 'PostToolUse');
    expect(a).toMatchObject({ outcome: 'failure', exitCode: 2, error: 'make: *** [all] Error 2' });
  });

  test('a call the person interrupted is of unknown outcome, tagged: nobody saw whether it would have worked', () => {
    expect(claudeAttempt({ tool_name: 'Bash', tool_input: { command: 'sleep 100' }, is_interrupt: true }, 'PostToolUseFailure')).toMatchObject({
      outcome: 'unknown',
      error: null,
      tags: ['interrupted'],
    });
  });

  test('PreToolUse → the tool call to check', () => {
    expect(toolCallOf(fixture('pre-tool-use-bash.json'))).toEqual({ tool: 'Bash', command: 'npm install redis-node', context: 'Add Redis caching' });
    expect(toolCallOf({})).toBeNull();
  });

  test('long commands and errors are bounded', () => {
    const a = claudeAttempt({ tool_name: 'Bash', tool_input: { command: 'x'.repeat(10_000) }, error: 'e'.repeat(10_000) }, 'PostToolUseFailure');
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
    expect(genericAttempt({ tool: 'edit', outcome: 'success', input: { path: 'src/a.ts' } }).command).toBe('edit path=src/a.ts');
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
  const bash = (tool_response: Record<string, unknown>) => claudeAttempt({ tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_response }, 'PostToolUse');
  test('Claude Code: a cancelled Bash call (interrupted: true) and one sent to the background', () => {
    expect(bash({ stdout: '', stderr: '', interrupted: true, isImage: false })).toMatchObject({ outcome: 'unknown', exitCode: null, tags: ['interrupted'] });
    expect(bash({ stdout: '', stderr: '', interrupted: false, backgroundTaskId: 'bash_1' })).toMatchObject({ outcome: 'unknown', tags: ['background'] });
    expect(bash({ stdout: 'ok', stderr: '', interrupted: false })).toMatchObject({ outcome: 'success', exitCode: 0 });
  });

  // llmContent as gemini-cli's shell.ts (test/fixtures/hooks/README.md) writes each case.
  const gemini = (llmContent: string, tool_input: Record<string, unknown> = { command: 'npm test' }) =>
    geminiAttempt({ tool_name: 'run_shell_command', tool_input, tool_response: { llmContent, returnDisplay: '' } });
  test('Gemini CLI: cancelled or backgrounded → unknown; cut off by the timeout or killed by a signal → failure', () => {
    expect(gemini('Command was cancelled by user before it could complete. Below is the output before it was cancelled:\n(empty)')).toMatchObject({ outcome: 'unknown', tags: ['interrupted'] });
    expect(gemini('Command moved to background (PID: 4242). Output hidden. Press Ctrl+B to view.')).toMatchObject({ outcome: 'unknown', tags: ['background'] });
    expect(gemini('Output: (empty)', { command: 'npm run dev', is_background: true })).toMatchObject({ outcome: 'unknown', tags: ['background'] });
    expect(gemini('Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output.')).toMatchObject({
      outcome: 'failure',
      exitCode: null,
      error: expect.stringMatching(/^Command was automatically cancelled/),
    });
    const killed = gemini('Output: building…\nSignal: SIGKILL\nProcess Group PGID: 77');
    expect(killed).toMatchObject({ outcome: 'failure', exitCode: null });
    expect(killed.error!.match(/Signal: SIGKILL/g)).toHaveLength(1);
    expect(gemini('Output: done\nProcess Group PGID: 78')).toMatchObject({ outcome: 'success', exitCode: 0 });
  });

  test('an exit code below zero is read with its sign', () => {
    expect(claudeAttempt({ tool_name: 'Bash', tool_input: { command: 'x' }, error: 'Exit code -1\nkilled' }, 'PostToolUseFailure')).toMatchObject({ exitCode: -1, error: 'killed' });
  });
});
