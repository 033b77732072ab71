/**
 * Hooks for Codex CLI, Gemini CLI and Cursor (issue 21 §2): the installer merges
 * into copies of real-looking settings files without clobbering and uninstalls
 * exactly; `hooks run --format <agent>` reads each agent's documented payloads
 * (test/fixtures/hooks/<agent>-*.json) and answers in its words.
 */
import { hookIO } from '../helpers/hook-io.js';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AGENTS } from '../../src/agents/hooks/agents.js';
import { formatSettings, installHooks, parseSettings, uninstallHooks } from '../../src/agents/hooks/agent-settings.js';
import { runHook, type HookDeps, type HookRunOptions } from '../../src/agents/hooks/run.js';
import type { AttemptMemory } from '../../src/attempt-memory/types.js';
import { FakeAttemptMemory } from '../helpers/fake-attempts.js';
import { REPO } from '../helpers/paths.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'agentos-agents-'));
  await mkdir(path.join(root, '.agentos'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const fixture = async (name: string) =>
  (await readFile(path.join(REPO, 'test', 'fixtures', 'hooks', name), 'utf8')).replaceAll('PROJECT', root);

async function run(event: string, fixtureName: string, opts: HookRunOptions, memory: AttemptMemory) {
  const h = hookIO(await fixture(fixtureName));
  const deps: HookDeps = {
    openMemory: async () => memory,
    recall: async () => '## Project context\n- Stack: TypeScript',
  };
  const code = await runHook(event, h.io, opts, deps);
  const out = h.out();
  return { code, out, err: h.err(), json: out.trim() ? (JSON.parse(out) as Record<string, unknown>) : null };
}

describe('hooks install for each agent, on copies of real-looking settings', () => {
  test("an agent's own switch under hooks (not an event agentos writes) is kept; an event of ours that is not a list is refused", () => {
    const withSwitch = parseSettings('{"hooks": {"enabled": true}}', '.gemini/settings.json');
    const { settings } = installHooks(withSwitch, 'agentos', AGENTS.gemini);
    expect((settings.hooks as Record<string, unknown>).enabled).toBe(true);
    expect(uninstallHooks(settings).settings).toEqual({ hooks: { enabled: true } });
    expect(() => parseSettings('{"hooks": {"BeforeTool": {}}}', '.gemini/settings.json')).toThrow(
      /^\.gemini\/settings\.json: hooks\.BeforeTool must be an array/,
    );
  });

  test.each([
    ['gemini', 'gemini-settings.json'],
    ['cursor', 'cursor-hooks.json'],
    ['codex', 'codex-hooks.json'],
  ] as const)(
    '%s: merged after the user’s own hooks, every other key kept, idempotent, and uninstall gives back the file',
    async (name, file) => {
      const agent = AGENTS[name];
      const original = parseSettings(await fixture(file), file);
      const { settings, added } = installHooks(original, 'agentos', agent);
      expect(added).toEqual(agent.specs.map((s) => s.event));
      // Nothing of the user's changed or moved.
      for (const [k, v] of Object.entries(original)) if (k !== 'hooks') expect(settings[k]).toEqual(v);
      const hooks = settings.hooks as Record<string, unknown[]>;
      for (const [event, entries] of Object.entries(original.hooks as Record<string, unknown[]>))
        expect(hooks[event].slice(0, entries.length)).toEqual(entries);
      // Ours call `hooks run <event> --format <agent>`.
      const text = formatSettings(settings);
      for (const s of agent.specs) expect(text).toContain(`agentos hooks run ${s.arg} --format ${name}`);
      expect(installHooks(settings, 'agentos', agent).added).toEqual([]);
      const { settings: back, removed } = uninstallHooks(settings);
      expect(removed).toBe(agent.specs.length);
      expect(back).toEqual(original);
    },
  );

  test('each layout as its agent documents it', () => {
    const cursor = installHooks({}, 'agentos', AGENTS.cursor).settings as {
      version: number;
      hooks: Record<string, unknown[]>;
    };
    expect(cursor.version).toBe(1);
    expect(cursor.hooks.beforeShellExecution).toEqual([
      { command: 'agentos hooks run pre-tool-use --format cursor', timeout: 5 },
    ]);
    expect(cursor.hooks.postToolUse).toEqual([
      { command: 'agentos hooks run post-tool-use --format cursor', matcher: 'Shell', timeout: 5 },
    ]);
    const gemini = installHooks({}, 'agentos', AGENTS.gemini).settings as { hooks: Record<string, unknown[]> };
    expect(gemini.hooks.BeforeTool).toEqual([
      {
        matcher: 'run_shell_command',
        hooks: [{ type: 'command', command: 'agentos hooks run pre-tool-use --format gemini', timeout: 5000 }],
      },
    ]);
    expect(gemini.hooks.SessionStart).toEqual([
      { hooks: [{ type: 'command', command: 'agentos hooks run session-start --format gemini', timeout: 10000 }] },
    ]);
    const codex = installHooks({}, 'agentos', AGENTS.codex).settings as { hooks: Record<string, unknown[]> };
    expect(Object.keys(codex.hooks)).toEqual(['SessionStart', 'PreToolUse', 'PostToolUse']);
    // A file that held only our hooks is empty again after uninstall (Cursor's version key included).
    expect(uninstallHooks(cursor).settings).toEqual({});
  });
});

describe('hooks run --format gemini', () => {
  const opts: HookRunOptions = { format: 'gemini', onRepeat: 'warn' };

  test('session start: additionalContext; AfterTool records the exit code and the cause; BeforeTool warns the person', async () => {
    const mem = new FakeAttemptMemory();
    const start = await run('session-start', 'gemini-session-start.json', opts, mem);
    expect(start.json).toEqual({
      hookSpecificOutput: {
        hookEventName: 'SessionStart',
        additionalContext: '## Project context\n- Stack: TypeScript',
      },
    });

    expect((await run('post-tool-use', 'gemini-after-tool-failure.json', opts, mem)).out).toBe('');
    const [failure] = mem.records;
    expect(failure).toMatchObject({
      tool: 'run_shell_command',
      command: 'npm install redis-node',
      outcome: 'failure',
      exitCode: 1,
      context: 'Add Redis caching',
    });
    expect(failure.cause).toBe('404 Not Found - GET https://registry.npmjs.org/redis-node - Not found');

    const warned = await run('pre-tool-use', 'gemini-before-tool.json', opts, mem);
    expect(Object.keys(warned.json ?? {})).toEqual(['systemMessage']);
    expect(warned.json?.systemMessage).toMatch(/tried on .* and failed: "404 Not Found/);

    await run('post-tool-use', 'gemini-after-tool-success.json', opts, mem);
    expect(mem.records[1]).toMatchObject({ command: 'npm install ioredis', outcome: 'success', exitCode: 0 });
  });
});

describe('hooks run --format cursor', () => {
  test('sessionStart additional_context; a Shell exit code from tool_output; a timeout from postToolUseFailure; beforeShellExecution answers with permission', async () => {
    const mem = new FakeAttemptMemory();
    const start = await run('session-start', 'cursor-session-start.json', { format: 'cursor', onRepeat: 'warn' }, mem);
    expect(start.json).toEqual({ additional_context: '## Project context\n- Stack: TypeScript' });

    await run('post-tool-use', 'cursor-post-tool-use-exit.json', { format: 'cursor', onRepeat: 'warn' }, mem);
    expect(mem.records[0]).toMatchObject({
      tool: 'Shell',
      command: 'npm install redis-node',
      outcome: 'failure',
      exitCode: 1,
      sessionId: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
    });
    expect(mem.records[0].cause).toMatch(/^404 Not Found/);
    await run(
      'post-tool-use-failure',
      'cursor-post-tool-use-failure.json',
      { format: 'cursor', onRepeat: 'warn' },
      mem,
    );
    expect(mem.records[1]).toMatchObject({
      command: 'make deploy',
      outcome: 'failure',
      error: 'Command timed out after 120s',
    });

    // Never "allow": that would skip Cursor's own approval for a command known to fail. A repeat asks.
    for (const onRepeat of ['warn', 'ask'] as const) {
      const r = await run('pre-tool-use', 'cursor-before-shell.json', { format: 'cursor', onRepeat }, mem);
      expect(r.json).toEqual({
        permission: 'ask',
        user_message: expect.stringMatching(/404 Not Found/),
        agent_message: expect.stringMatching(/404 Not Found/),
      });
    }
  });

  test('a clear command gets no answer at all (Cursor proceeds as it would without agentos)', async () => {
    const r = await run(
      'pre-tool-use',
      'cursor-before-shell.json',
      { format: 'cursor', onRepeat: 'warn' },
      new FakeAttemptMemory(),
    );
    expect([r.code, r.out, r.err]).toEqual([0, '', '']);
  });
});

describe('hooks run --format codex', () => {
  test("Bash's output with no exit status: npm's own words make a failure (tagged as read from the output), and the next run of it is warned about", async () => {
    const mem = new FakeAttemptMemory();
    await run('post-tool-use', 'codex-post-tool-use.json', { format: 'codex', onRepeat: 'warn' }, mem);
    expect(mem.records[0]).toMatchObject({
      tool: 'Bash',
      outcome: 'failure',
      exitCode: null,
      tags: ['outcome-from-output'],
      sessionId: '019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b',
    });
    expect(mem.records[0].cause).toBe('Missing script: "lint"');
    const warn = await run('pre-tool-use', 'codex-pre-tool-use.json', { format: 'codex', onRepeat: 'warn' }, mem);
    expect(warn.json).toMatchObject({
      systemMessage: expect.any(String),
      hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: expect.stringMatching(/Missing script/) },
    });
  });

  test('output that no tool calls a failure is of unknown outcome: never "what worked instead" for the failure before it', async () => {
    const mem = new FakeAttemptMemory();
    await run('post-tool-use', 'codex-post-tool-use.json', { format: 'codex', onRepeat: 'warn' }, mem);
    await run('post-tool-use', 'codex-post-tool-use-success.json', { format: 'codex', onRepeat: 'warn' }, mem);
    expect(mem.records.map((r) => r.outcome)).toEqual(['failure', 'unknown']);
    expect(mem.list({ outcome: 'success' })).toEqual([]);
  });
});

describe('a hook outside any project', () => {
  test('does nothing and leaves nothing behind: no .agentos/, no output, exit 0 (issue 31)', async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), 'agentos-outside-'));
    try {
      const { existsSync } = await import('node:fs');
      // Only a folder with no project above it counts: a test run from inside a checkout under /tmp would not be one.
      const { projectRootOrNull } = await import('../../src/shared/project.js');
      expect(projectRootOrNull(outside)).toBeNull();
      for (const event of ['session-start', 'pre-tool-use', 'post-tool-use']) {
        const h = hookIO(
          JSON.stringify({
            session_id: 's',
            cwd: outside,
            hook_event_name: 'PostToolUse',
            tool_name: 'Bash',
            tool_input: { command: 'npm test' },
            tool_response: { exit_code: 1, stderr: 'boom' },
          }),
        );
        expect(await runHook(event, h.io, { format: 'claude', onRepeat: 'warn' })).toBe(0);
        expect([h.out(), h.err()]).toEqual(['', '']);
      }
      expect(existsSync(path.join(outside, '.agentos'))).toBe(false);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
