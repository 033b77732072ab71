/**
 * Attempt memory through the built CLI (bin/agentos.js): record/check/list/
 * forget, `run` with real commands (exit codes, streamed output, signals),
 * 8 concurrent writers, kill -9 mid-write, the y/N prompt on a real pty
 * (util-linux `script`), and redaction checked on the bytes of the store files.
 */
import { cliEnv, runCli } from '../helpers/cli.js';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { parseFastRoute } from '../../src/cli/fast-path.js';
import { BIN, REPO } from '../helpers/paths.js';
import { SECRET_CASES } from '../helpers/secrets.js';

jest.setTimeout(120_000);
const require = createRequire(import.meta.url);
const Database = require('better-sqlite3') as typeof BetterSqlite3;
const OPEN_JS = path.join(REPO, 'dist', 'attempt-memory', 'open.js');
const SCHEMA_JS = path.join(REPO, 'dist', 'shared', 'config', 'schema.js');

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'agentos-attempts-int-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
function newProject(): string {
  const root = path.join(tmp, `p${n++}`);
  mkdirSync(path.join(root, '.agentos'), { recursive: true });
  return root;
}

const env = cliEnv;

interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function cli(root: string, args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Result> {
  return runCli(['-C', root, ...args], { cwd: root, ...opts });
}
const json = <T>(r: Result): T => JSON.parse(r.stdout) as T;

describe('record, check, list, forget', () => {
  it('round-trips through the CLI with --json', async () => {
    const root = newProject();
    const rec = await cli(root, [
      'attempt',
      'record',
      '--outcome',
      'failure',
      '--tool',
      'shell',
      '--command',
      'npm install redis-node',
      '--error',
      '404 Not Found',
      '--context',
      'Add Redis caching',
      '--tags',
      'redis,dependency',
      '--exit-code',
      '1',
      '--json',
    ]);
    expect(rec.code).toBe(0);
    const failure = json<{ recorded: { id: string; tags: string[] }[] }>(rec).recorded[0];
    expect(failure.tags).toEqual(expect.arrayContaining(['redis', 'dependency', 'npm']));
    const ok = await cli(root, ['attempt', 'record', '-', '--json'], {
      input: '{"tool":"shell","command":"npm install ioredis","outcome":"success","context":"Add Redis caching"}',
    });
    expect(ok.code).toBe(0);

    const check = await cli(root, ['attempt', 'check', '--json', '--', 'npm', 'install', 'redis-node@4.6.0']);
    expect(check.code).toBe(0);
    const c = json<{
      repeat: boolean;
      warnings: { failure: { id: string }; score: number; workedInstead: { command: string } | null }[];
    }>(check);
    expect(c.repeat).toBe(true);
    expect(c.warnings[0].failure.id).toBe(failure.id);
    expect(c.warnings[0].workedInstead?.command).toBe('npm install ioredis');

    const human = await cli(root, ['attempt', 'check', '--', 'npm', 'install', 'redis-node']);
    expect(human.stdout).toMatch(/⚠ This resembles a failure of the last 7 days/);
    expect(human.stdout).toMatch(
      /npm install redis-node .*\n\s+error: 404 Not Found\n\s+for: Add Redis caching\n\s+✓ worked instead: `npm install ioredis`, \d{4}-\d{2}-\d{2}/,
    );
    const clear = await cli(root, ['attempt', 'check', '--', 'cargo', 'build']);
    expect([clear.code, clear.stdout]).toEqual([0, 'No similar failure in the last 7 days.\n']);

    const failures = json<{ attempts: { command: string }[] }>(
      await cli(root, ['attempt', 'list', '--failures', '--json']),
    );
    expect(failures.attempts.map((a) => a.command)).toEqual(['npm install redis-node']);
    const tagged = json<{ attempts: { command: string }[] }>(
      await cli(root, ['attempt', 'list', '--tag', 'ioredis', '--since', '1d', '--json']),
    );
    expect(tagged.attempts.map((a) => a.command)).toEqual(['npm install ioredis']);

    const bad = await cli(root, ['attempt', 'list', '--since', 'last week']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/expected a duration \(7d, 12h, 2w\) or a date/);

    expect((await cli(root, ['forget'])).code).toBe(2);
    const forgot = await cli(root, ['forget', '--id', failure.id, '--json']);
    expect(json(forgot)).toEqual({ forgotten: 1, shared: null });
    expect(
      json<{ repeat: boolean }>(await cli(root, ['attempt', 'check', '--json', '--', 'npm', 'install', 'redis-node']))
        .repeat,
    ).toBe(false);
    expect((await cli(root, ['forget', '--all'])).stdout).toBe('Forgot 1 attempt.\n');
    expect(json<{ attempts: unknown[] }>(await cli(root, ['attempt', 'list', '--all', '--json'])).attempts).toEqual([]);
  });

  // Issue 21 §4: forget forgets. The text must be gone from the store's files, not only from queries:
  // the warnings that cited it, its full-text terms, freed pages and the WAL.
  const storeBytes = (root: string) => {
    const dir = path.join(root, '.agentos', 'memory');
    return ['attempts.db', 'attempts.db-wal', 'attempts.db-shm']
      .map((f) => (existsSync(path.join(dir, f)) ? readFileSync(path.join(dir, f)).toString('latin1') : ''))
      .join('');
  };
  const SECRET = 'zqxwvut-private-pkg';
  async function withForgettable(root: string): Promise<string> {
    const rec = await cli(root, [
      'attempt',
      'record',
      '--outcome',
      'failure',
      '--command',
      `npm install ${SECRET}`,
      '--error',
      `404 ${SECRET}`,
      '--context',
      `adding ${SECRET}`,
      '--json',
    ]);
    // A warning about it is recorded (run warns, proceeds, fails again).
    await cli(root, ['run', '--non-interactive', '--', 'npm', 'install', SECRET]);
    await cli(root, ['attempt', 'record', '--outcome', 'success', '--command', 'npm install kept-pkg']);
    expect(storeBytes(root)).toContain(SECRET);
    return json<{ recorded: { id: string }[] }>(rec).recorded[0].id;
  }

  it('forget --id leaves no trace of the command in the store files (warnings, full text, pages)', async () => {
    const root = newProject();
    await withForgettable(root);
    const all = json<{ attempts: { id: string; command: string }[] }>(
      await cli(root, ['attempt', 'list', '--all', '--json']),
    ).attempts;
    for (const a of all.filter((x) => x.command.includes(SECRET)))
      expect((await cli(root, ['forget', '--id', a.id])).code).toBe(0);
    expect(storeBytes(root)).not.toContain(SECRET);
    expect(storeBytes(root)).not.toContain('zqxwvut');
    // What was not forgotten is still there and still searchable.
    expect(
      json<{ attempts: { command: string }[] }>(await cli(root, ['attempt', 'list', '--all', '--json'])).attempts.map(
        (a) => a.command,
      ),
    ).toEqual(['npm install kept-pkg']);
  });

  it('forget --before and --all leave no trace either', async () => {
    const before = newProject();
    await withForgettable(before);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(json(await cli(before, ['forget', '--before', tomorrow, '--json']))).toEqual({ forgotten: 3, shared: null });
    expect(storeBytes(before)).not.toContain('zqxwvut');
    const all = newProject();
    await withForgettable(all);
    expect((await cli(all, ['forget', '--all'])).code).toBe(0);
    expect(storeBytes(all)).not.toContain('zqxwvut');
  });

  // Issue 21 §3: the stored and shown error is the cause line, read from real tools' output here.
  it('run keeps the cause of a real failure, and the warning repeats that line, not the log trailer', async () => {
    const root = newProject();
    const node = await cli(root, ['run', '--non-interactive', '--', process.execPath, '-e', "require('left-padz')"]);
    expect(node.code).toBe(1);
    const py = await cli(root, ['run', '--non-interactive', '--', 'python3', '-c', "import json; json.loads('{bad')"]);
    expect(py.code).toBe(1);
    const git = await cli(root, [
      'run',
      '--non-interactive',
      '--',
      'git',
      '-C',
      path.join(root, 'no-such-dir'),
      'status',
    ]);
    expect(git.code).not.toBe(0);
    const list = json<{ attempts: { command: string; cause: string | null; error: string | null }[] }>(
      await cli(root, ['attempt', 'list', '--json']),
    ).attempts;
    const causeOf = (needle: string) => list.find((a) => a.command.includes(needle))?.cause;
    expect(causeOf('left-padz')).toBe("Error: Cannot find module 'left-padz'");
    expect(causeOf('json.loads')).toMatch(/^json\.decoder\.JSONDecodeError: Expecting property name/);
    expect(causeOf('no-such-dir')).toMatch(/^fatal: cannot change to '.*no-such-dir'/);
    // The raw tail is still kept beside it (Node's last line is its version, not the cause).
    expect(list.find((a) => a.command.includes('left-padz'))?.error).toMatch(/Node\.js v\d+/);
    const check = await cli(root, ['attempt', 'check', '--', process.execPath, '-e', "require('left-padz')"]);
    expect(check.stdout).toContain("error: Error: Cannot find module 'left-padz'");
    expect(check.stdout).not.toMatch(/error: Node\.js v/);
  });

  it('bad stdin is exit 2 with one line naming stdin and the field', async () => {
    const root = newProject();
    const r = await cli(root, ['attempt', 'record', '-'], { input: '{"command":"x","outcome":"meh"}' });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('agentos: stdin: outcome: expected "success", "failure", "unknown"\n');
  });
});

describe('the commander-free route (bin/agentos.js -> dist/cli/fast-path.js)', () => {
  it('says exactly what the commander route says, line for line, exit code included', async () => {
    // `run` records what it ran: each route gets its own project with the same past.
    const project = async () => {
      const root = newProject();
      await cli(root, [
        'attempt',
        'record',
        '--outcome',
        'failure',
        '--command',
        'npm install redis-node',
        '--error',
        '404 Not Found',
        '--context',
        'Add Redis caching',
      ]);
      await cli(root, [
        'attempt',
        'record',
        '--outcome',
        'success',
        '--command',
        'npm install ioredis',
        '--context',
        'Add Redis caching',
      ]);
      return root;
    };
    const lines = [
      ['attempt', 'check', '--', 'npm', 'install', 'redis-node@4.6.0'],
      ['attempt', 'check', '--json', '--tags', 'redis', '--context=Add Redis caching', '--', 'npm', 'i', 'redis-node'],
      ['attempt', 'check', '--command', 'cargo build'],
      ['-q', 'attempt', 'check', '--tool', 'Bash', '--', 'npm', 'install', 'redis-node'],
      ['attempt', 'check', '--json'],
      ['attempt', 'check', '--command', 'x', '--', 'y'],
      ['run', '--non-interactive', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3'],
      ['run', '--on-repeat', 'block', '--', 'npm', 'install', 'redis-node'],
      ['run', '--context', 'Add Redis caching', '--', 'true'],
    ];
    const [fastRoot, slowRoot] = [await project(), await project()];
    for (const line of lines) {
      expect(parseFastRoute(['-C', fastRoot, ...line], {})).not.toBeNull(); // the first run below takes the fast route
      const fast = await cli(fastRoot, line);
      const slow = await cli(slowRoot, line, { env: { AGENTOS_NO_FAST_PATH: '1' } });
      // Ids, times and session ids differ between the two projects; the rest must not.
      const same = (r: Result) => {
        const text = (t: string) =>
          t
            .replace(/\b[0-9A-HJKMNP-TV-Z]{26}\b/g, '<id>')
            .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>')
            .replace(/\d{4}-\d\d-\d\d_[0-9a-f]{8}/g, '<session>');
        return { line, code: r.code, signal: r.signal, stdout: text(r.stdout), stderr: text(r.stderr) };
      };
      expect(same(fast)).toEqual(same(slow));
    }
    // And both recorded the same attempts.
    const recorded = async (root: string) =>
      JSON.parse((await cli(root, ['attempt', 'list', '--json'])).stdout).attempts.map(
        (a: { command: string; outcome: string; exitCode: number | null }) => [a.command, a.outcome, a.exitCode],
      );
    expect(await recorded(fastRoot)).toEqual(await recorded(slowRoot));
  });
});

describe('run', () => {
  it('passes a failing exit code through, then a success; output streams as it comes', async () => {
    const root = newProject();
    // Streaming: "first" must reach us while the command is still running.
    const child = spawn(
      process.execPath,
      [BIN, '-C', root, 'run', '--', 'sh', '-c', 'echo first; echo oops >&2; sleep 1; echo second; exit 3'],
      {
        cwd: root,
        env: env(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const t0 = Date.now();
    let firstAt = 0;
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!firstAt && out.includes('first')) firstAt = Date.now();
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const endAt = Date.now();
    expect(code).toBe(3);
    expect(out).toBe('first\nsecond\n');
    expect(err).toContain('oops');
    expect(endAt - firstAt).toBeGreaterThanOrEqual(800); // "first" arrived before the sleep ended
    expect(firstAt - t0).toBeLessThan(endAt - t0);

    const ok = await cli(root, ['run', '--', 'sh', '-c', 'echo fine']);
    expect([ok.code, ok.stdout]).toEqual([0, 'fine\n']);
    const list = json<{ attempts: { outcome: string; exitCode: number; error: string | null }[] }>(
      await cli(root, ['attempt', 'list', '--json']),
    );
    expect(list.attempts.map((a) => [a.outcome, a.exitCode])).toEqual([
      ['success', 0],
      ['failure', 3],
    ]);
    // stdout was a pipe here (as under a coding agent): it is kept too, before stderr.
    expect(list.attempts[1].error).toBe('first\nsecond\noops');
  });

  // Issue 21 §3: tsc prints its errors on stdout; under an agent (stdout not a terminal) the cause is read there.
  it('the real tsc: its error line on stdout becomes the cause', async () => {
    const root = newProject();
    writeFileSync(path.join(root, 't.ts'), 'const n: number = "a";\n');
    const r = await cli(root, [
      'run',
      '--non-interactive',
      '--',
      process.execPath,
      path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'),
      '--noEmit',
      't.ts',
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('error TS2322'); // still passed through
    const [a] = json<{ attempts: { cause: string | null }[] }>(await cli(root, ['attempt', 'list', '--json'])).attempts;
    expect(a.cause).toBe("t.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.");
  });

  it('a reader that goes away (`agentos run -- cmd | head -1`): the command gets its broken pipe, agentos records it and does not crash', async () => {
    const root = newProject();
    const child = spawn(
      process.execPath,
      [BIN, '-C', root, 'run', '--', 'sh', '-c', 'i=0; while [ $i -lt 200000 ]; do echo line $i; i=$((i+1)); done'],
      {
        cwd: root,
        env: env(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.once('data', () => child.stdout.destroy()); // like head -1
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(err).not.toMatch(/EPIPE|Unhandled|at .*child\.js/);
    expect(code).not.toBe(0);
    const [a] = json<{ attempts: { command: string; outcome: string }[] }>(
      await cli(root, ['attempt', 'list', '--json']),
    ).attempts;
    expect(a).toMatchObject({ outcome: 'failure' });
    expect(a.command).toContain('while');
  });

  it('stdin reaches the command', async () => {
    const root = newProject();
    const r = await cli(root, ['run', '--', 'sh', '-c', 'read line; echo "got $line"'], { input: 'hello\n' });
    expect([r.code, r.stdout]).toEqual([0, 'got hello\n']);
  });

  it('forwards SIGINT (Ctrl-C) and SIGTERM to the command and exits with its code', async () => {
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      const root = newProject();
      const script = `trap 'echo "got ${sig.slice(3)}"; exit 42' ${sig.slice(3)}; echo ready; while :; do sleep 0.1; done`;
      const child = spawn(process.execPath, [BIN, '-C', root, 'run', '--', 'sh', '-c', script], {
        cwd: root,
        env: env(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      let sent = false;
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (!sent && out.includes('ready\n')) {
          sent = true;
          child.kill(sig);
        }
      });
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      // A signal that is never forwarded would loop forever: fail loudly instead of hanging.
      const guard = setTimeout(() => {
        err += `[test] no exit 30 s after ${sent ? sig : 'start (no "ready")'}: killed\n`;
        child.kill('SIGKILL');
      }, 30_000);
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      clearTimeout(guard);
      expect([code, out, err]).toEqual([42, `ready\ngot ${sig.slice(3)}\n`, '']);
    }
  });

  it('does not wait for a background process the command left running', async () => {
    const root = newProject();
    const t0 = Date.now();
    const r = await cli(root, ['run', '--', 'sh', '-c', 'sleep 20 >/dev/null & echo started; exit 0']);
    expect([r.code, r.stdout]).toEqual([0, 'started\n']);
    expect(Date.now() - t0).toBeLessThan(15_000);
  });

  it('a command killed by a signal: 128+N, recorded as a failure', async () => {
    const root = newProject();
    const r = await cli(root, ['run', '--', 'sh', '-c', 'kill -9 $$']);
    expect(r.code).toBe(137);
    const list = json<{ attempts: { outcome: string; exitCode: number; error: string }[] }>(
      await cli(root, ['attempt', 'list', '--json']),
    );
    expect(list.attempts[0]).toMatchObject({ outcome: 'failure', exitCode: 137, error: 'killed by SIGKILL' });
  });

  it('--on-repeat block: exit 6, nothing runs; --on-repeat warn: runs', async () => {
    const root = newProject();
    expect((await cli(root, ['run', '--', 'sh', '-c', 'echo ran; exit 1'])).code).toBe(1);
    const blocked = await cli(root, ['run', '--on-repeat', 'block', '--', 'sh', '-c', 'echo ran; exit 1']);
    expect([blocked.code, blocked.stdout]).toEqual([6, '']);
    expect(blocked.stderr).toContain('not run: it repeats a recent failure');
    const warned = await cli(root, ['run', '--', 'sh', '-c', 'echo ran; exit 1']);
    expect([warned.code, warned.stdout]).toEqual([1, 'ran\n']);
    expect(warned.stderr).toContain('⚠ This resembles');
  });
});

describe('many writers, crashes', () => {
  it('8 processes recording at once: every record is there', async () => {
    const root = newProject();
    const per = 100;
    const lines = (w: number) =>
      Array.from({ length: per }, (_, i) =>
        JSON.stringify({
          command: `echo writer-${w}-${i}`,
          outcome: i % 2 ? 'success' : 'failure',
          sessionId: `w${w}`,
        }),
      ).join('\n');
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, w) => cli(root, ['attempt', 'record', '-', '--json'], { input: lines(w) })),
    );
    for (const r of results) expect([r.code, r.stderr]).toEqual([0, '']);
    const all = json<{ attempts: { command: string; sessionId: string }[] }>(
      await cli(root, ['attempt', 'list', '--all', '--json']),
    );
    expect(all.attempts).toHaveLength(8 * per);
    expect(new Set(all.attempts.map((a) => a.command)).size).toBe(8 * per);
  });

  it('kill -9 during writes: every acknowledged record survives, nothing half-written is read back', async () => {
    const root = newProject();
    // A writer that prints each id only after record() returned (the acknowledgement).
    const writer = `
      const { openAttemptMemory } = await import(${JSON.stringify(OPEN_JS)});
      const { DEFAULT_CONFIG } = await import(${JSON.stringify(SCHEMA_JS)});
      const m = openAttemptMemory(process.argv[1], DEFAULT_CONFIG);
      for (let i = 0; ; i++) {
        const r = m.record({ tool: 'shell', command: 'step ' + i + ' ' + 'x'.repeat(3000), outcome: 'failure', error: 'e'.repeat(1500), context: 'crash test' });
        process.stdout.write(r.id + '\\n');
      }`;
    let acknowledged: string[] = [];
    for (let round = 0; round < 3; round++) {
      const child = spawn(process.execPath, ['--input-type=module', '-e', writer, root], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      await new Promise<void>((resolve) => {
        const kill = () => (out.split('\n').length > 20 + round * 7 ? child.kill('SIGKILL') : setTimeout(kill, 10));
        kill();
        child.on('close', () => resolve());
      });
      acknowledged = acknowledged.concat(out.split('\n').filter((l) => /^[0-9A-Z]{26}$/.test(l)));
    }
    const db = new Database(path.join(root, '.agentos', 'memory', 'attempts.db'));
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const rows = db.prepare('SELECT id, command, error, context FROM attempts').all() as {
      id: string;
      command: string;
      error: string;
      context: string;
    }[];
    db.close();
    const ids = new Set(rows.map((r) => r.id));
    for (const id of acknowledged) expect(ids.has(id)).toBe(true);
    for (const r of rows) {
      expect(r.command).toMatch(/^step \d+ x{3000}$/);
      expect(r.error).toBe('e'.repeat(1500));
      expect(r.context).toBe('crash test');
    }
    expect(acknowledged.length).toBeGreaterThan(60);
  });
});

describe('redaction reaches the disk', () => {
  it(`none of ${SECRET_CASES.length} real secret shapes is in the db, -wal or -shm files`, async () => {
    const root = newProject();
    // Hold a connection so the WAL and shm files stay (the last close checkpoints and removes them).
    mkdirSync(path.join(root, '.agentos', 'memory'), { recursive: true });
    const holder = new Database(path.join(root, '.agentos', 'memory', 'attempts.db'));
    holder.pragma('journal_mode = WAL');
    // An open read transaction: the writers' last close cannot checkpoint and delete the WAL.
    holder.exec('BEGIN');
    holder.prepare('SELECT count(*) FROM sqlite_master').get();
    const input = SECRET_CASES.map((c) =>
      JSON.stringify({
        tool: 'shell',
        command: c.text,
        outcome: 'failure',
        error: `failed: ${c.text}`,
        context: `while using ${c.text}`,
        tags: ['ci'],
      }),
    ).join('\n');
    expect((await cli(root, ['attempt', 'record', '-'], { input })).code).toBe(0);
    // And through `run`: the secret on the command line and in the command's stderr.
    const c0 = SECRET_CASES[0];
    await cli(root, ['run', '--', 'sh', '-c', `echo '${c0.text.replace(/'/g, '')}' >&2; exit 1`]);
    const files = ['attempts.db', 'attempts.db-wal', 'attempts.db-shm'].map((f) =>
      path.join(root, '.agentos', 'memory', f),
    );
    expect(files.map((f) => existsSync(f))).toEqual([true, true, true]);
    const bytes = files.map((f) => readFileSync(f).toString('latin1')).join('\n');
    expect(bytes).toContain('[redacted]'); // the records are there…
    expect(SECRET_CASES.filter((c) => bytes.includes(c.secret)).map((c) => c.name)).toEqual([]); // …their secrets are not
    holder.exec('COMMIT');
    holder.close();
  });
});

// ---- the y/N prompt on a real terminal -------------------------------------

const hasScript = (() => {
  const s = spawnSync('script', ['--version'], { encoding: 'utf8' });
  return s.status === 0 && /util-linux/.test(s.stdout + s.stderr);
})();
const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

function onPty(
  root: string,
  args: string[],
  keys: string | null,
): Promise<{ code: number | null; output: string; prompted: boolean }> {
  if (!hasScript) throw new Error('no pseudo-terminal: util-linux `script` is required to drive the real prompt');
  const cmd = [process.execPath, BIN, '-C', root, ...args].map(shq).join(' ');
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], {
    cwd: root,
    env: env({ TERM: 'xterm' }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let raw = '';
  let prompted = false;
  child.stdout.on('data', (d: Buffer) => {
    raw += d.toString();
    if (!prompted && stripAnsi(raw).includes('Proceed anyway?')) {
      prompted = true;
      if (keys !== null) setTimeout(() => child.stdin.write(keys), 300);
    }
  });
  child.stderr.on('data', (d: Buffer) => (raw += d.toString()));
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, output: stripAnsi(raw), prompted });
    });
  });
}

describe('the y/N prompt on a pty', () => {
  it('N: not run, exit 6; y: runs, exit code passed through; Ctrl-C: 130', async () => {
    const root = newProject();
    const marker = path.join(root, 'ran');
    writeFileSync(path.join(root, 'cmd.sh'), `touch ${marker}\nexit 9\n`);
    expect((await cli(root, ['run', '--', 'sh', 'cmd.sh'])).code).toBe(9);
    rmSync(marker);

    const no = await onPty(root, ['run', '--', 'sh', 'cmd.sh'], 'n\r');
    expect(no.prompted).toBe(true);
    expect(no.output).toContain('Proceed anyway? (y/N)');
    expect(no.output).toContain('⚠ This resembles a failure');
    expect(no.code).toBe(6);
    expect(existsSync(marker)).toBe(false);

    const ctrlC = await onPty(root, ['run', '--', 'sh', 'cmd.sh'], '\x03');
    expect([ctrlC.prompted, ctrlC.code, existsSync(marker)]).toEqual([true, 130, false]);

    const yes = await onPty(root, ['run', '--', 'sh', 'cmd.sh'], 'y\r');
    expect(yes.prompted).toBe(true);
    expect(yes.code).toBe(9);
    expect(existsSync(marker)).toBe(true);
  });
});
