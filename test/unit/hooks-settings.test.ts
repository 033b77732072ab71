import {
  CLAUDE_HOOKS,
  formatSettings,
  installHooks,
  isOurCommand,
  lineDiff,
  parseSettings,
  uninstallHooks,
} from '../../src/agents/hooks/agent-settings.js';
import { UsageError } from '../../src/shared/errors.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { runHooksInstall } from '../../src/cli/commands/hooks/install/index.js';
import { makeIO, makeProject, testContext } from '../helpers/fakes.js';

const PREFIX = 'agentos';
const USER_SETTINGS = {
  permissions: { allow: ['Bash(npm test)'] },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'python3 ~/.claude/guard.py', timeout: 3 }] }],
    Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }],
  },
  model: 'opus',
};

describe('installHooks', () => {
  test('into empty settings: one group per event, each calling `hooks run <event>`', () => {
    const { settings, added } = installHooks({}, PREFIX);
    expect(added).toEqual(['SessionStart', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure']);
    const hooks = settings.hooks as Record<
      string,
      Array<{ matcher: string; hooks: Array<{ type: string; command: string; timeout: number }> }>
    >;
    for (const spec of CLAUDE_HOOKS) {
      expect(hooks[spec.event]).toEqual([
        {
          matcher: spec.matcher,
          hooks: [{ type: 'command', command: `agentos hooks run ${spec.arg}`, timeout: spec.timeout }],
        },
      ]);
    }
  });

  test('keeps every existing key, hook and order; ours are appended after the user’s', () => {
    const { settings } = installHooks(structuredClone(USER_SETTINGS), PREFIX);
    const hooks = settings.hooks as Record<string, unknown[]>;
    expect(settings.permissions).toEqual(USER_SETTINGS.permissions);
    expect(settings.model).toBe('opus');
    expect(hooks.Stop).toEqual(USER_SETTINGS.hooks.Stop);
    expect(hooks.PreToolUse[0]).toEqual(USER_SETTINGS.hooks.PreToolUse[0]);
    expect(hooks.PreToolUse).toHaveLength(2);
    expect(JSON.stringify(hooks.PreToolUse[1])).toContain('hooks run pre-tool-use');
  });

  test('does not mutate its input', () => {
    const input = structuredClone(USER_SETTINGS);
    installHooks(input, PREFIX);
    expect(input).toEqual(USER_SETTINGS);
  });

  test('idempotent: a second install adds nothing and changes nothing', () => {
    const once = installHooks(structuredClone(USER_SETTINGS), PREFIX).settings;
    const twice = installHooks(once, PREFIX);
    expect(twice.added).toEqual([]);
    expect(formatSettings(twice.settings)).toBe(formatSettings(once));
  });

  test('an install made with another prefix counts as installed (no duplicates after agentos moves)', () => {
    const once = installHooks({}, 'node "/opt/agentos/bin/agentos.js"').settings;
    expect(installHooks(once, 'agentos').added).toEqual([]);
  });

  test('installing again with other options rewrites the handlers we own, and only those', () => {
    const first = installHooks(
      { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'their-linter' }] }] } },
      PREFIX,
    );
    const again = installHooks(first.settings, PREFIX);
    expect([again.added, again.updated]).toEqual([[], []]);
    const ask = installHooks(first.settings, PREFIX, undefined, { 'pre-tool-use': '--on-repeat ask' });
    expect([ask.added, ask.updated]).toEqual([[], ['PreToolUse']]);
    const text = formatSettings(ask.settings);
    expect(text).toContain('agentos hooks run pre-tool-use --on-repeat ask');
    expect(text.match(/hooks run pre-tool-use/g)).toHaveLength(1);
    expect(text).toContain('their-linter');
  });

  test('--on-repeat ask is written into the pre-tool-use command only', () => {
    const { settings } = installHooks({}, PREFIX, undefined, { 'pre-tool-use': '--on-repeat ask' });
    const text = JSON.stringify(settings);
    expect(text).toContain('agentos hooks run pre-tool-use --on-repeat ask');
    expect(text).not.toContain('post-tool-use --on-repeat');
  });
});

describe('uninstallHooks', () => {
  test('removes exactly what install added: the result equals the original settings', () => {
    const installed = installHooks(structuredClone(USER_SETTINGS), PREFIX).settings;
    const { settings, removed } = uninstallHooks(installed);
    expect(removed).toBe(4);
    expect(settings).toEqual(USER_SETTINGS);
  });

  test('from settings that had no hooks key: the key is removed again', () => {
    const installed = installHooks({ model: 'opus' }, PREFIX).settings;
    expect(uninstallHooks(installed).settings).toEqual({ model: 'opus' });
  });

  test('a user hook sharing a group with ours is kept', () => {
    const settings = {
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'command', command: 'agentos hooks run pre-tool-use' },
              { type: 'command', command: './mine.sh' },
            ],
          },
        ],
      },
    };
    const { settings: out, removed } = uninstallHooks(settings);
    expect(removed).toBe(1);
    expect(out).toEqual({
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './mine.sh' }] }] },
    });
  });

  test('nothing of ours: unchanged, 0 removed', () => {
    expect(uninstallHooks(structuredClone(USER_SETTINGS))).toEqual({ settings: USER_SETTINGS, removed: 0 });
  });

  test('commands that merely mention agentos are not ours', () => {
    expect(isOurCommand('echo "agentos hooks run pre-tool-use" >> log')).toBe(true); // the words are ours: documented limitation
    expect(isOurCommand('my-agentos-wrapper run pre-tool-use')).toBe(false);
    expect(isOurCommand('agentos recall')).toBe(false);
    expect(isOurCommand('node "/x/bin/agentos.js" hooks run session-start')).toBe(true);
    expect(isOurCommand(42)).toBe(false);
  });
});

describe('parseSettings', () => {
  test('missing or empty file → {}', () => {
    expect(parseSettings(null, 'f')).toEqual({});
    expect(parseSettings('  \n', 'f')).toEqual({});
  });
  test.each([
    ['{ not json', /not valid JSON/],
    ['[1,2]', /expected a JSON object/],
    ['{"hooks": []}', /"hooks" must be an object/],
    ['{"hooks": {"PreToolUse": {}}}', /hooks.PreToolUse must be an array/],
  ])('%s → UsageError naming the file', (text, re) => {
    expect(() => parseSettings(text, '.claude/settings.json')).toThrow(UsageError);
    expect(() => parseSettings(text, '.claude/settings.json')).toThrow(re);
    expect(() => parseSettings(text, '.claude/settings.json')).toThrow(/^\.claude\/settings\.json: /);
  });
});

describe('lineDiff', () => {
  test('shows removed and added lines, nothing when equal', () => {
    const before = formatSettings({ a: 1 });
    const after = formatSettings({ a: 1, b: 2 });
    const d = lineDiff(before, after, 's.json');
    expect(d).toContain('--- s.json');
    expect(d).toContain('+  "b": 2');
    expect(d).toContain('-  "a": 1');
    expect(lineDiff(before, before, 's.json')).toBe('');
  });
});

describe('hooks install decides what each agent accepts', () => {
  test('Codex: --on-repeat ask is refused with the reason; Gemini CLI: ask is written; re-running with warn updates it', async () => {
    const root = await makeProject();
    const t = makeIO(root);
    await expect(runHooksInstall(testContext(t.io), 'codex', { onRepeat: 'ask', command: 'agentos' })).rejects.toThrow(
      /hooks install codex: --on-repeat ask: Codex CLI's hooks cannot ask for a confirmation \(Codex rejects permissionDecision "ask" from a PreToolUse hook and drops the warning with it\); use warn/,
    );
    expect(await runHooksInstall(testContext(t.io), 'gemini', { onRepeat: 'ask', command: 'agentos' })).toBe(0);
    const file = path.join(root, '.gemini', 'settings.json');
    expect(await readFile(file, 'utf8')).toContain('agentos hooks run pre-tool-use --format gemini --on-repeat ask');
    expect(await runHooksInstall(testContext(t.io), 'gemini', { onRepeat: 'warn', command: 'agentos' })).toBe(0);
    const after = await readFile(file, 'utf8');
    expect(after).not.toContain('--on-repeat ask');
    expect(after.match(/hooks run pre-tool-use/g)).toHaveLength(1);
    expect(t.stderr()).toContain('updated agentos Gemini CLI hooks (BeforeTool)');
  });
});
