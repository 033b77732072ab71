/**
 * The local side of shared attempts (src/attempt-memory/share.ts, sqlite-memory.ts):
 * the outbox filled in the record's own transaction, forgets queued, the team's
 * records read in, and a store that cannot be reached costing one warning and
 * nothing else. No server: the network side is tested in test/integration/store-attempts.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { openAttemptMemory } from '../../src/attempt-memory/open.js';
import { buildRecall, MAX_PER_TEAMMATE } from '../../src/knowledge/recall.js';
import { shareBestEffort } from '../../src/attempt-memory/share.js';
import { fromWire, WIRE_MAX, WIRE_MAX_TAGS, type WireRow } from '../../src/attempt-memory/share-wire.js';
import type { AttemptRecord } from '../../src/attempt-memory/types.js';
import { DEFAULT_CONFIG, type Config } from '../../src/shared/config/schema.js';

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

// A port nothing listens on: connecting is refused at once.
const DOWN = 'postgres://agentos@127.0.0.1:1/agentos';

function open(scope: 'repo' | 'org') {
  const root = mkdtempSync(path.join(os.tmpdir(), 'agentos-share-'));
  roots.push(root);
  const config: Config = {
    ...DEFAULT_CONFIG,
    attempts: { ...DEFAULT_CONFIG.attempts, scope },
    store: { ...DEFAULT_CONFIG.store, url: DOWN, repository: 'acme/a', timeoutMs: 2000 },
  };
  const mem = openAttemptMemory(root, config, { sessionId: 's', cwd: root, env: {}, home: '/home/tester' });
  return { mem, root, config };
}

const teammate = (over: Partial<AttemptRecord>): AttemptRecord & { origin: string } => ({
  id: '01TEAM0000000000000000000A',
  time: new Date().toISOString(),
  sessionId: 'their-session',
  tool: 'shell',
  command: 'npm install redis-node',
  outcome: 'failure',
  exitCode: 1,
  durationMs: null,
  error: 'npm ERR! 404',
  cause: 'npm ERR! 404',
  context: null,
  work: null,
  branch: null,
  tags: ['npm'],
  cwd: '.',
  overriddenBy: null,
  archived: false,
  origin: 'bob@acme.test (acme/b)',
  ...over,
});

describe('the outbox', () => {
  it('attempts.scope org: every record is queued with it; a forget replaces the send by a forget', () => {
    const { mem } = open('org');
    const r = mem.record({ tool: 'shell', command: 'make release', outcome: 'failure' });
    expect(mem.queue!.pending(10)).toEqual([
      { op: 'send', record: expect.objectContaining({ id: r.id, command: 'make release' }) },
    ]);
    mem.forget({ id: r.id });
    expect(mem.queue!.pending(10)).toEqual([{ op: 'forget', id: r.id }]);
    mem.queue!.settle([{ id: r.id, op: 'forget' }]);
    expect(mem.queue!.outboxSize()).toBe(0);
    mem.close();
  });

  it('a record the store has is forgotten there too, even from a run where sharing is off; one it never had is not', () => {
    const { mem, root, config } = open('org');
    const sent = mem.record({ tool: 'shell', command: 'make release', outcome: 'failure' });
    mem.queue!.settle([{ id: sent.id, op: 'send' }]);
    mem.close();
    // The same project in a shell without the store: records are not queued, forgets of sent ones are.
    const local = openAttemptMemory(
      root,
      { ...config, attempts: { ...config.attempts, scope: 'repo' } },
      { sessionId: 's', cwd: root, env: {}, home: '/home/tester' },
    );
    const never = local.record({ tool: 'shell', command: 'make test', outcome: 'failure' });
    expect(local.queue!.outboxSize()).toBe(0);
    local.forget({ all: true });
    expect(local.queue!.pending(10)).toEqual([{ op: 'forget', id: sent.id }]);
    expect(local.queue!.pending(10).some((e) => e.op === 'forget' && e.id === never.id)).toBe(false);
    local.close();
  });

  it('attempts.scope local: nothing is queued, nothing is sent', async () => {
    const { mem, root, config } = open('repo');
    mem.record({ tool: 'shell', command: 'make release', outcome: 'failure' });
    expect(mem.queue!.outboxSize()).toBe(0);
    expect(await shareBestEffort(root, config, mem.queue, {}, 'send')).toBeNull();
    mem.close();
  });
});

describe("the team's records", () => {
  it("are warned about like one's own, name who tried, and a teammate's success overrides that teammate's failures, never another's (issue 47)", () => {
    const { mem } = open('org');
    const mine = mem.record({
      tool: 'shell',
      command: 'npm install redis-node',
      outcome: 'failure',
      time: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(mem.queue!.importShared([teammate({})], [])).toEqual({ added: 1, removed: 0 });
    // Read twice (the pull overlaps the last one): still one copy.
    expect(mem.queue!.importShared([teammate({})], [])).toEqual({ added: 0, removed: 0 });
    const warned = mem.checkRepeat({ tool: 'shell', command: 'npm install redis-node' });
    expect(warned.map((w) => w.failure.origin ?? 'mine')).toEqual(
      expect.arrayContaining(['bob@acme.test (acme/b)', 'mine']),
    );
    mem.queue!.importShared(
      [teammate({ id: '01TEAM0000000000000000000B', outcome: 'success', time: new Date().toISOString() })],
      [],
    );
    // Bob's success answers Bob's failure; a success in the team store (anyone may write one) does not silence mine.
    expect(
      mem.checkRepeat({ tool: 'shell', command: 'npm install redis-node' }).map((w) => w.failure.origin ?? 'mine'),
    ).toEqual(['mine']);
    expect(mem.list({ outcome: 'failure' }).find((a) => a.id === mine.id)?.overriddenBy).toBeNull();
    expect(mem.list({ outcome: 'failure' }).find((a) => a.id === '01TEAM0000000000000000000A')?.overriddenBy).toBe(
      '01TEAM0000000000000000000B',
    );
    // My own success of it does.
    mem.record({
      tool: 'shell',
      command: 'npm install redis-node',
      outcome: 'success',
      time: new Date().toISOString(),
    });
    expect(mem.checkRepeat({ tool: 'shell', command: 'npm install redis-node' })).toEqual([]);
    // A forgotten record leaves this machine only as a copy: one's own are never dropped by a pull.
    expect(mem.queue!.importShared([], ['01TEAM0000000000000000000A', mine.id])).toEqual({ added: 0, removed: 1 });
    expect(mem.list().map((a) => a.id)).toContain(mine.id);
    // Others' records are not counted as this machine's sessions.
    expect(mem.stats().sessions).toBe(1);
    mem.close();
  });
});

describe("a flood of one teammate's records (issue 47)", () => {
  it("never pushes this machine's own failure out of recall's Avoid list, and takes at most MAX_PER_TEAMMATE lines of it", async () => {
    const { mem, root, config } = open('org');
    mem.record({
      tool: 'shell',
      command: 'make deploy-staging',
      outcome: 'failure',
      error: 'token refused',
      time: new Date(Date.now() - 3_600_000).toISOString(),
    });
    const flood = Array.from({ length: 400 }, (_, i) =>
      teammate({
        id: `01FQQQ${String(i).padStart(20, '0')}`,
        command: `make flood-${i}`,
        origin: 'mallory@acme.test (acme/a)',
        time: new Date(Date.now() - 60_000 + i).toISOString(),
      }),
    );
    expect(mem.queue!.importShared(flood, []).added).toBe(400);
    const r = await buildRecall(root, config, mem);
    expect(r.antiPatterns.map((a) => a.command)).toContain('make deploy-staging');
    expect(r.antiPatterns.filter((a) => a.by === 'mallory@acme.test (acme/a)')).toHaveLength(MAX_PER_TEAMMATE);
    mem.close();
  });
});

describe("a teammate's row read back (share-wire.ts fromWire)", () => {
  const now = new Date('2026-11-27T12:00:00Z');
  const row = (over: Partial<WireRow>): WireRow => ({
    id: '01TEAM0000000000000000000A',
    repository: 'acme/b',
    author: 'bob',
    time: new Date('2026-11-27T11:00:00Z'),
    session_id: 's',
    tool: 'shell',
    command: 'npm test',
    outcome: 'failure',
    exit_code: 1,
    duration_ms: null,
    error: 'boom',
    cause: 'boom',
    context: null,
    work: null,
    branch: null,
    tags: ['npm'],
    cwd: '.',
    received_at: now,
    ...over,
  });

  it("a record of its shape comes in, named as the teammate's", () => {
    expect(fromWire(row({}), now)).toMatchObject({ command: 'npm test', origin: 'bob (acme/b)', tags: ['npm'] });
  });

  it.each([
    // Dated 9999-12-31: it would warn, and be what worked instead, forever (a success cannot override a later failure).
    [{ time: new Date('9999-12-31T00:00:00Z') }, 'its time is later than today'],
    [{ error: 'x'.repeat(WIRE_MAX.error + 1) }, `its error is longer than ${WIRE_MAX.error} characters`],
    [{ command: 'y'.repeat(WIRE_MAX.command + 1) }, `its command is longer than ${WIRE_MAX.command} characters`],
    [{ tags: null as unknown as string[] }, `its tags are not a list of at most ${WIRE_MAX_TAGS} short words`],
    [
      { tags: Array.from({ length: WIRE_MAX_TAGS + 1 }, (_, i) => `t${i}`) },
      `its tags are not a list of at most ${WIRE_MAX_TAGS} short words`,
    ],
    [{ tags: [42] as unknown as string[] }, `its tags are not a list of at most ${WIRE_MAX_TAGS} short words`],
  ])('%j is refused, and says why', (over, why) => {
    expect(fromWire(row(over), now)).toBe(why);
  });

  it("a clock a few hours ahead of this machine's is not a forgery", () => {
    expect(typeof fromWire(row({ time: new Date('2026-11-27T20:00:00Z') }), now)).toBe('object');
  });
});

describe('a store that cannot be reached', () => {
  it('costs one warning; the record stays queued; within a minute nothing is tried again', async () => {
    const { mem, root, config } = open('org');
    mem.record({ tool: 'shell', command: 'make release', outcome: 'failure' });
    const warning = await shareBestEffort(root, config, mem.queue, {}, 'send');
    expect(warning).toMatch(
      /^attempts not shared with the team \(cannot reach the store at 127\.0\.0\.1:1\/agentos \(connection refused\): is the server running\?\); 1 stay queued/,
    );
    expect(mem.queue!.outboxSize()).toBe(1);
    // The back-off: the next hook does not wait on the store again.
    expect(await shareBestEffort(root, config, mem.queue, {}, 'send')).toBeNull();
    expect(mem.queue!.outboxSize()).toBe(1);
    mem.close();
  });

  it('a store that accepts and never answers: a hook waits its own deadline once, then backs off without connecting', async () => {
    const sockets: Socket[] = [];
    const server = createServer((sock) => sockets.push(sock)); // accepts, never says a word
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const { mem, root, config } = open('org');
      const hanging = {
        ...config,
        store: { ...config.store, url: `postgres://agentos@127.0.0.1:${port}/agentos`, timeoutMs: 5000 },
      };
      mem.record({ tool: 'shell', command: 'make release', outcome: 'failure' });
      const warning = await shareBestEffort(root, hanging, mem.queue, {}, 'send', undefined, 300);
      // The hook's deadline, not the store's 5 s.
      expect(warning).toMatch(/no answer from the store at 127\.0\.0\.1:\d+\/agentos within 0\.3 s\); 1 stay queued/);
      expect(sockets).toHaveLength(1);
      expect(await shareBestEffort(root, hanging, mem.queue, {}, 'send', undefined, 300)).toBeNull();
      expect(sockets).toHaveLength(1);
      mem.close();

      // A process killed while connecting left its mark: once the mark is older than its deadline, nobody waits again.
      const killed = open('org');
      killed.mem.record({ tool: 'shell', command: 'make release', outcome: 'failure' });
      const file = path.join(killed.root, '.agentos', 'memory', 'store-unreachable');
      writeFileSync(file, `connecting ${new Date(Date.now() - 5000).toISOString()} 1500\n`);
      expect(
        await shareBestEffort(killed.root, { ...hanging }, killed.mem.queue, {}, 'send', undefined, 300),
      ).toBeNull();
      expect(sockets).toHaveLength(1);
      // A failure mark from the future (the clock stepped back) does not hold sharing off for hours.
      writeFileSync(file, `${new Date(Date.now() + 3_600_000).toISOString()}\n`);
      expect(await shareBestEffort(killed.root, { ...hanging }, killed.mem.queue, {}, 'send', undefined, 300)).toMatch(
        /no answer/,
      );
      expect(sockets).toHaveLength(2);
      // A mark still within its deadline is another process at work: this one sends too.
      writeFileSync(file, `connecting ${new Date().toISOString()} 1500\n`);
      expect(await shareBestEffort(killed.root, { ...hanging }, killed.mem.queue, {}, 'send', undefined, 300)).toMatch(
        /no answer/,
      );
      expect(sockets).toHaveLength(3);
      killed.mem.close();
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});
