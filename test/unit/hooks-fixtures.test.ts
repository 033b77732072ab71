/**
 * One case per agent payload in test/fixtures/hooks (issue 31): each is read through
 * `hooks run --format <agent>` as the agent would send it, and what agentos records
 * or answers is pinned. The README beside the fixtures names each one's source.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runHook, type HookDeps, type HookRunOptions } from '../../src/agents/hooks/run.js';
import type { AttemptRecord } from '../../src/attempt-memory/types.js';
import { FakeAttemptMemory } from '../helpers/fake-attempts.js';
import { hookIO } from '../helpers/hook-io.js';
import { REPO } from '../helpers/paths.js';

const DIR = path.join(REPO, 'test', 'fixtures', 'hooks');
const SETTINGS = new Set(['codex-hooks.json', 'cursor-hooks.json', 'gemini-settings.json']);

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'agentos-fixtures-'));
  await mkdir(path.join(root, '.agentos'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function run(
  file: string,
  event: string,
  opts: HookRunOptions,
  mem: FakeAttemptMemory | null = new FakeAttemptMemory(),
) {
  const h = hookIO(readFileSync(path.join(DIR, file), 'utf8').replaceAll('PROJECT', root));
  h.io.cwd = root; // where the agent runs the hook (the generic format names no cwd)
  // null: the memory must not even be opened (opening for writing creates the store).
  const deps: HookDeps = {
    openMemory: async () => {
      if (!mem) throw new Error('the attempt memory was opened');
      return mem;
    },
    recall: async () => '## Project context\n- Stack: TypeScript',
  };
  expect(await runHook(event, h.io, opts, deps)).toBe(0);
  expect(h.err()).toBe('');
  const out = h.out().trim();
  return { mem, answer: out ? (JSON.parse(out) as Record<string, unknown>) : null };
}

const warn = (format: HookRunOptions['format']): HookRunOptions => ({ format, onRepeat: 'warn' });

type Recorded = Partial<
  Pick<
    AttemptRecord,
    'tool' | 'command' | 'outcome' | 'exitCode' | 'cause' | 'context' | 'sessionId' | 'tags' | 'error'
  >
>;

/** Post-tool payloads: what is recorded (null: nothing). */
const RECORDS: Array<[file: string, format: HookRunOptions['format'], event: string, recorded: Recorded | null]> = [
  // Claude Code: PostToolUse fires for successes only; a failure's error starts "Exit code N".
  [
    'post-tool-use-bash.json',
    'claude',
    'post-tool-use',
    { tool: 'Bash', command: 'npm install ioredis', outcome: 'success', exitCode: 0, context: 'Add Redis caching' },
  ],
  ['post-tool-use-write.json', 'claude', 'post-tool-use', { tool: 'Write', outcome: 'success', exitCode: null }],
  [
    'post-tool-use-failure-bash.json',
    'claude',
    'post-tool-use-failure',
    {
      outcome: 'failure',
      exitCode: 1,
      cause: '404 Not Found - GET https://registry.npmjs.org/redis-node - Not found',
      error: expect.stringMatching(/^npm error code E404/) as unknown as string,
    },
  ],
  ['post-tool-use-failure-secret.json', 'claude', 'post-tool-use-failure', { outcome: 'failure', exitCode: 22 }],
  [
    'post-tool-use-failure-interrupt.json',
    'claude',
    'post-tool-use-failure',
    { command: 'npm run test:e2e', outcome: 'unknown', exitCode: null, error: null, tags: ['interrupted'] },
  ],
  // Codex: the output alone, no exit status. A failure only where a tool says so; else unknown.
  [
    'codex-post-tool-use.json',
    'codex',
    'post-tool-use',
    {
      tool: 'Bash',
      command: 'npm run lint',
      outcome: 'failure',
      exitCode: null,
      cause: 'Missing script: "lint"',
      tags: ['outcome-from-output'],
      sessionId: '019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b',
    },
  ],
  [
    'codex-post-tool-use-success.json',
    'codex',
    'post-tool-use',
    { command: 'npm run lint', outcome: 'unknown', exitCode: null, error: null },
  ],
  // Gemini CLI: "Exit Code: N" only when N is not 0; the error is the command's output (returnDisplay).
  [
    'gemini-after-tool-failure.json',
    'gemini',
    'post-tool-use',
    {
      tool: 'run_shell_command',
      outcome: 'failure',
      exitCode: 1,
      cause: '404 Not Found - GET https://registry.npmjs.org/redis-node - Not found',
    },
  ],
  [
    'gemini-after-tool-success.json',
    'gemini',
    'post-tool-use',
    { command: 'npm install ioredis', outcome: 'success', exitCode: 0, error: null },
  ],
  [
    'gemini-after-tool-failure-untrusted.json',
    'gemini',
    'post-tool-use',
    {
      command: 'go build ./...',
      outcome: 'failure',
      exitCode: 1,
      cause: 'cmd/app/main.go:4:2: undefined: greet',
      error: '# example.com/broken/cmd/app\ncmd/app/main.go:4:2: undefined: greet',
    },
  ],
  [
    'gemini-after-tool-spawn-error.json',
    'gemini',
    'post-tool-use',
    { command: 'pnpm install', outcome: 'failure', exitCode: null, error: 'spawn /bin/bash ENOENT' },
  ],
  // Cursor: tool_output is a JSON string; a failing command arrives as postToolUseFailure with its output.
  [
    'cursor-post-tool-use.json',
    'cursor',
    'post-tool-use',
    { tool: 'Shell', command: 'npm install ioredis', outcome: 'success', exitCode: 0 },
  ],
  [
    'cursor-post-tool-use-exit.json',
    'cursor',
    'post-tool-use',
    { outcome: 'failure', exitCode: 1, cause: '404 Not Found - GET https://registry.npmjs.org/redis-node - Not found' },
  ],
  [
    'cursor-post-tool-use-failure.json',
    'cursor',
    'post-tool-use-failure',
    { command: 'make deploy', outcome: 'failure', error: 'Command timed out after 120s' },
  ],
  [
    'cursor-post-tool-use-failure-error.json',
    'cursor',
    'post-tool-use-failure',
    {
      command: 'npm install redis-node',
      outcome: 'failure',
      exitCode: null,
      cause: '404 Not Found - GET https://registry.npmjs.org/redis-node - Not found',
      sessionId: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
    },
  ],
  // The person said no: the command never ran, so nothing was tried.
  ['cursor-post-tool-use-failure-denied.json', 'cursor', 'post-tool-use-failure', null],
  [
    'generic-failure.json',
    'generic',
    'post-tool-use',
    { tool: 'shell', command: 'pip install redis-py', outcome: 'failure', exitCode: 1 },
  ],
];

describe('post-tool payloads: what is recorded', () => {
  test.each(RECORDS)('%s (--format %s, %s)', async (file, format, event, recorded) => {
    if (recorded === null) {
      // run() also checks stderr is empty: the memory was not opened (a call that never ran creates nothing).
      expect((await run(file, event, warn(format), null)).answer).toBeNull();
      return;
    }
    const { mem } = await run(file, event, warn(format));
    expect(mem!.records).toHaveLength(1);
    expect(mem!.records[0]).toMatchObject(recorded);
  });
});

/** A failure of the fixture's command, recorded earlier: the pre-tool payload must warn about it. */
function remembered(command: string, tool: string): FakeAttemptMemory {
  const mem = new FakeAttemptMemory();
  mem.record({
    tool,
    command,
    outcome: 'failure',
    exitCode: 1,
    error: 'npm error 404 Not Found - GET https://registry.npmjs.org/redis-node',
  });
  return mem;
}

const PRE: Array<
  [file: string, format: HookRunOptions['format'], tool: string, command: string, answer: Record<string, unknown>]
> = [
  [
    'pre-tool-use-bash.json',
    'claude',
    'Bash',
    'npm install redis-node',
    {
      systemMessage: expect.any(String),
      hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: expect.stringMatching(/404 Not Found/) },
    },
  ],
  [
    'codex-pre-tool-use.json',
    'codex',
    'Bash',
    'npm run lint',
    {
      systemMessage: expect.any(String),
      hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: expect.stringMatching(/404 Not Found/) },
    },
  ],
  [
    'gemini-before-tool.json',
    'gemini',
    'run_shell_command',
    'npm install redis-node',
    { systemMessage: expect.stringMatching(/404 Not Found/) },
  ],
  [
    'cursor-before-shell.json',
    'cursor',
    'Shell',
    'npm install redis-node',
    { permission: 'ask', user_message: expect.stringMatching(/404 Not Found/), agent_message: expect.any(String) },
  ],
];

describe('pre-tool payloads: a known failure is warned about in words the agent accepts', () => {
  test.each(PRE)('%s (--format %s)', async (file, format, tool, command, answer) => {
    const { answer: got } = await run(file, 'pre-tool-use', warn(format), remembered(command, tool));
    expect(got).toEqual(answer);
    // Codex refuses "ask" (openai/codex output_parser.rs): never sent, even when asked for.
    if (format === 'codex') {
      const { answer: asked } = await run(file, 'pre-tool-use', { format, onRepeat: 'ask' }, remembered(command, tool));
      expect(JSON.stringify(asked)).not.toMatch(/"ask"/);
    }
  });
});

const SESSION: Array<[file: string, format: HookRunOptions['format'], answer: Record<string, unknown>]> = [
  [
    'session-start.json',
    'claude',
    {
      hookSpecificOutput: {
        hookEventName: 'SessionStart',
        additionalContext: expect.stringMatching(/^## Project context/),
      },
    },
  ],
  [
    'codex-session-start.json',
    'codex',
    {
      hookSpecificOutput: {
        hookEventName: 'SessionStart',
        additionalContext: expect.stringMatching(/^## Project context/),
      },
    },
  ],
  [
    'gemini-session-start.json',
    'gemini',
    {
      hookSpecificOutput: {
        hookEventName: 'SessionStart',
        additionalContext: expect.stringMatching(/^## Project context/),
      },
    },
  ],
  ['cursor-session-start.json', 'cursor', { additional_context: expect.stringMatching(/^## Project context/) }],
];

describe('session-start payloads: the context in the agent’s own field', () => {
  test.each(SESSION)('%s (--format %s)', async (file, format, answer) => {
    expect((await run(file, 'session-start', warn(format))).answer).toEqual(answer);
  });
});

test('every fixture is exercised above and its source is named in the README', () => {
  const readme = readFileSync(path.join(DIR, 'README.md'), 'utf8');
  const used = new Set([
    ...RECORDS.map((r) => r[0]),
    ...PRE.map((r) => r[0]),
    ...SESSION.map((r) => r[0]),
    ...SETTINGS,
  ]);
  const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));
  expect(files.filter((f) => !used.has(f))).toEqual([]);
  // A row per file: | `file` | event | source |, the source not empty.
  for (const f of files)
    expect(readme).toMatch(new RegExp(`^\\| \`${f.replace(/\./g, '\\.')}\` \\| [^|]+ \\| [^|\\s][^\\n]*\\|$`, 'm'));
});
