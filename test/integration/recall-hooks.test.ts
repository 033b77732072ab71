// SLOW: real index, real attempt store, headless Chromium
// recall, worked-on (+ --html in a real browser) and the Claude Code hooks end to
// end through the built CLI (bin/agentos.js), with payload fixtures written from
// Claude Code's documented hook format (test/fixtures/hooks, docs/hooks.md).
import { cliEnv, indexedDemo } from '../helpers/cli.js';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import { openAttemptMemory } from '../../src/attempt-memory/open.js';
import { DEFAULT_CONFIG } from '../../src/shared/config/schema.js';
import { BIN, REPO } from '../helpers/paths.js';

jest.setTimeout(240_000);

let tmp: string;
let root: string;

function cli(args: string[], input?: string, env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: root,
    input,
    encoding: 'utf8',
    env: cliEnv({ CI: 'true', HOME: tmp, ...env }),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const fixture = (name: string) =>
  readFileSync(path.join(REPO, 'test', 'fixtures', 'hooks', name), 'utf8').replaceAll('PROJECT', root);

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-recall-'));
  root = path.join(tmp, 'demo');
  await indexedDemo(root);
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('hooks run with Claude Code payloads, the real store', () => {
  test('failure, success, a secret; then the pre-tool check warns and names what worked', () => {
    for (const [event, file] of [
      ['post-tool-use-failure', 'post-tool-use-failure-bash.json'],
      ['post-tool-use', 'post-tool-use-bash.json'],
      ['post-tool-use-failure', 'post-tool-use-failure-secret.json'],
      ['post-tool-use', 'post-tool-use-write.json'],
    ]) {
      const r = cli(['hooks', 'run', event], fixture(file));
      expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
    }
    const memory = openAttemptMemory(root, DEFAULT_CONFIG);
    const recorded = memory.list().map((a) => [a.tool, a.outcome, a.command, a.sessionId, a.cwd]);
    memory.close();
    expect(recorded).toEqual(
      expect.arrayContaining([
        ['Bash', 'failure', 'npm install redis-node', '3f2c9a1e-5b7d-4c2a-9e1f-0a1b2c3d4e5f', '.'],
        ['Bash', 'success', 'npm install ioredis', '3f2c9a1e-5b7d-4c2a-9e1f-0a1b2c3d4e5f', '.'],
        ['Write', 'success', 'Write file_path=~/demo/src/cache/redis.ts', '3f2c9a1e-5b7d-4c2a-9e1f-0a1b2c3d4e5f', '.'], // home redacted by the store
      ]),
    );

    const pre = cli(['hooks', 'run', 'pre-tool-use'], fixture('pre-tool-use-bash.json'));
    expect(pre.code).toBe(0);
    const out = JSON.parse(pre.stdout);
    expect(out.hookSpecificOutput.hookEventName).toBe('PreToolUse');
    expect(out.hookSpecificOutput.additionalContext).toMatch(/failed: .*404 Not Found/);
    expect(out.hookSpecificOutput.additionalContext).toContain('What worked instead: `npm install ioredis`');
    expect(out.hookSpecificOutput.permissionDecision).toBeUndefined();
  });

  test('no secret from a hook payload reaches the store files', () => {
    const dir = path.join(root, '.agentos', 'memory');
    const bytes = Buffer.concat(readdirSync(dir).map((f) => readFileSync(path.join(dir, f)))).toString('latin1');
    expect(bytes).not.toContain('sk-proj-abcdefghijklmnop');
    expect(bytes).not.toContain('ghp_abcdefghijklmnop');
  });

  test('session-start prints the recall as additionalContext, bounded by maxContextSize', () => {
    const r = cli(['hooks', 'run', 'session-start'], fixture('session-start.json'));
    expect(r.code).toBe(0);
    const ctx: string = JSON.parse(r.stdout).hookSpecificOutput.additionalContext;
    expect(ctx.length).toBeLessThanOrEqual(2000);
    expect(ctx).toContain('**Avoid (failed recently):**');
    expect(ctx).toContain('`npm install redis-node`');
    expect(ctx).toContain('**Recent completed work:**');
    expect(ctx).toContain('**Standards that apply widely:**');
  });

  test('attempts.autoInject: false → no session context; a broken payload fails open', async () => {
    await writeFile(
      path.join(root, '.agentos', 'config.yaml'),
      'attempts:\n  autoInject: false\n  maxContextSize: 300\n',
    );
    const off = cli(['hooks', 'run', 'session-start'], fixture('session-start.json'));
    expect([off.code, off.stdout]).toEqual([0, '']);
    const bounded = cli(['recall']);
    expect(bounded.stdout.trimEnd().length).toBeLessThanOrEqual(300);
    await rm(path.join(root, '.agentos', 'config.yaml'));
    const bad = cli(['hooks', 'run', 'post-tool-use'], '{"tool_name": ');
    expect(bad.code).toBe(0);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^agentos: hook post-tool-use skipped \(fail open\): payload is not JSON/);
  });

  test('forgetting the memory removes what recall would show', () => {
    // (the store's forget; `agentos forget` is the attempt memory branch's command over the same call)
    const memory = openAttemptMemory(root, DEFAULT_CONFIG);
    expect(memory.forget({ all: true })).toBeGreaterThan(0);
    memory.close();
    const r = cli(['recall', '--format', 'json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.antiPatterns).toEqual([]);
    expect(j.successPatterns).toEqual([]);
    expect(j.markdown).not.toContain('redis');
  });
});

describe('hooks install / uninstall against settings files', () => {
  test('with existing hooks: merged, idempotent, dry-run diff, uninstall restores the file', async () => {
    const settings = path.join(root, '.claude', 'settings.json');
    await mkdir(path.dirname(settings), { recursive: true });
    const original =
      JSON.stringify(
        {
          permissions: { allow: ['Bash(npm test)'] },
          hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './guard.sh' }] }] },
        },
        null,
        2,
      ) + '\n';
    await writeFile(settings, original);
    const dry = cli(['hooks', 'install', '--dry-run', '--command', 'agentos']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('+');
    expect(dry.stdout).toContain('agentos hooks run pre-tool-use');
    expect(await readFile(settings, 'utf8')).toBe(original);

    expect(cli(['hooks', 'install', '--command', 'agentos']).code).toBe(0);
    const installed = await readFile(settings, 'utf8');
    const parsed = JSON.parse(installed);
    expect(parsed.hooks.PreToolUse[0].hooks[0].command).toBe('./guard.sh');
    expect(Object.keys(parsed.hooks)).toEqual(['PreToolUse', 'SessionStart', 'PostToolUse', 'PostToolUseFailure']);
    const again = cli(['hooks', 'install', '--command', 'agentos']);
    expect(again.stderr).toContain('already installed');
    expect(await readFile(settings, 'utf8')).toBe(installed);

    expect(cli(['hooks', 'uninstall']).code).toBe(0);
    expect(await readFile(settings, 'utf8')).toBe(original);
  });

  test('without a settings file: created; uninstall leaves an empty object; invalid JSON is refused untouched', async () => {
    const local = path.join(root, '.claude', 'settings.local.json');
    expect(cli(['hooks', 'install', '--local']).code).toBe(0);
    expect(JSON.parse(await readFile(local, 'utf8')).hooks.SessionStart[0].hooks[0].command).toMatch(
      /hooks run session-start$/,
    );
    expect(cli(['hooks', 'uninstall', '--local']).code).toBe(0);
    expect(JSON.parse(await readFile(local, 'utf8'))).toEqual({});
    await writeFile(local, '{ broken');
    const r = cli(['hooks', 'install', '--local']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/settings\.local\.json: not valid JSON/);
    expect(await readFile(local, 'utf8')).toBe('{ broken');
  });
});

describe('worked-on', () => {
  test('--json: topics from the index with rejected work marked; --topic filters', () => {
    const r = cli(['worked-on', '--json']);
    expect(r.code).toBe(0);
    const w = JSON.parse(r.stdout);
    expect(w.topics.length).toBeGreaterThan(1);
    const items = w.topics.flatMap((t: { items: Array<{ id: string; marked: boolean }> }) => t.items);
    expect(items.find((i: { id: string }) => i.id === '34')).toMatchObject({ marked: true, status: 'rejected' });
    expect(items.filter((i: { id: string }) => i.id === '27')).toHaveLength(1); // issue + design = one item
    const docker = JSON.parse(cli(['worked-on', '--json', '--topic', 'docker']).stdout);
    expect(docker.topics.length).toBeGreaterThan(0);
    expect(docker.topics.length).toBeLessThan(w.topics.length);
  });

  const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  (chromium ? test : test.skip)(
    '--html renders in headless Chromium: topics, items and timeline dots; screenshot taken',
    async () => {
      const page = path.join(tmp, 'worked-on.html');
      const r = cli(['worked-on', '--html', page]);
      expect(r.code).toBe(0);
      const json = JSON.parse(cli(['worked-on', '--json']).stdout);
      const flags = [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        `--user-data-dir=${path.join(tmp, 'chrome')}`,
      ];
      const dom = spawnSync(chromium!, [...flags, '--dump-dom', `file://${page}`], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(dom.status).toBe(0);
      // The inline script ran: one timeline dot per dated item, counted by the page itself.
      const dated = json.topics
        .flatMap((t: { items: Array<{ date: string | null }> }) => t.items)
        .filter((i: { date: string | null }) => i.date).length;
      expect(dom.stdout).toContain(`data-rendered="${dated}"`);
      expect((dom.stdout.match(/data-timeline-item=""/g) ?? []).length).toBe(dated);
      for (const t of json.topics) expect(dom.stdout).toContain(t.label.replace(/&/g, '&amp;').replace(/</g, '&lt;'));
      expect((dom.stdout.match(/data-item=""/g) ?? []).length).toBe(json.totalItems);
      const shot = path.join(tmp, 'worked-on.png');
      const s = spawnSync(chromium!, [...flags, `--screenshot=${shot}`, '--window-size=1200,1600', `file://${page}`], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(s.status).toBe(0);
      const png = readFileSync(shot);
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect(statSync(shot).size).toBeGreaterThan(10_000);
    },
  );
});
