/**
 * Which work an attempt belongs to (src/attempt-memory/work.ts) and the join that shows,
 * beside a matched past work, what failed while it was done (knowledge/tried-during.ts).
 * Real SQLite files in temp projects; a fake .git folder for the branch.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openAttemptMemory } from '../../src/attempt-memory/open.js';
import { SCHEMA_VERSION } from '../../src/attempt-memory/sqlite-memory.js';
import {
  currentBranch,
  issueFromBranch,
  noteStartedWork,
  startedWork,
  workId,
  workOf,
} from '../../src/attempt-memory/work.js';
import { DEFAULT_CONFIG } from '../../src/shared/config/schema.js';
import { renderTried, triedDuring, triedLookup } from '../../src/knowledge/tried-during.js';
import { FakeAttemptMemory } from '../helpers/fake-attempts.js';

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

function project(branch?: string): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'agentos-work-'));
  roots.push(root);
  if (branch !== undefined) {
    mkdirSync(path.join(root, '.git'));
    writeFileSync(path.join(root, '.git', 'HEAD'), branch === '' ? '3f2a9c1d0e\n' : `ref: refs/heads/${branch}\n`);
  }
  return root;
}

describe('workId', () => {
  it('reads ids the way the index does: "#027" is "27", names are lower-cased, nothing is null', () => {
    expect(['#027', '27', ' 0 ', 'PROJ-12', '', '   ', null, undefined].map(workId)).toEqual([
      '27',
      '27',
      '0',
      'proj-12',
      null,
      null,
      null,
      null,
    ]);
  });

  it('is an id or nothing: no spaces, quotes, escapes, or more than 64 characters', () => {
    expect(['fix the build', 'a"b', '\u001b[31m12', 'x'.repeat(65), 'feat/auth.v2_x'].map(workId)).toEqual([
      null,
      null,
      null,
      null,
      'feat/auth.v2_x',
    ]);
  });
});

describe('issueFromBranch', () => {
  it.each([
    ['27-build-cache', '27'],
    ['feat/27-build-cache', '27'],
    ['issue-27', '27'],
    ['issues/0042_retry', '42'],
    ['gh-91', '91'],
    ['alice/issue27', '27'],
    ['fix/build-gh-88-tokens', '88'],
  ])('%s → %s', (branch, id) => expect(issueFromBranch(branch)).toBe(id));

  it.each([
    'main',
    'release/2.3',
    'feat/add-http2',
    'v1.2.3',
    'renovate/node-20.x',
    'release/2024-10',
    'hotfix/2025-01-15',
  ])('%s carries no issue', (branch) => expect(issueFromBranch(branch)).toBeNull());
});

describe('currentBranch', () => {
  it('reads .git/HEAD; a detached HEAD or no git is null', () => {
    expect(currentBranch(project('feat/27-cache'))).toBe('feat/27-cache');
    expect(currentBranch(project(''))).toBeNull();
    expect(currentBranch(project())).toBeNull();
  });

  it("a project in a folder of a larger repository reads the repository's branch", () => {
    const repo = project('issue-5');
    const sub = path.join(repo, 'services', 'api');
    mkdirSync(sub, { recursive: true });
    expect(currentBranch(sub)).toBe('issue-5');
  });

  it('follows a worktree: .git is a file naming the real git folder', () => {
    const main = project('main');
    const gitdir = path.join(main, '.git', 'worktrees', 'wt');
    mkdirSync(gitdir, { recursive: true });
    writeFileSync(path.join(gitdir, 'HEAD'), 'ref: refs/heads/issue-12\n');
    const wt = project();
    writeFileSync(path.join(wt, '.git'), `gitdir: ${gitdir}\n`);
    expect(currentBranch(wt)).toBe('issue-12');
  });
});

describe('workOf: given, then AGENTOS_WORK, then the brief begun on this branch, then the branch name', () => {
  it('applies the first rule that has an answer', async () => {
    const root = project('feat/27-cache');
    expect(workOf(root, undefined, {})).toEqual({ work: '27', branch: 'feat/27-cache' });
    await noteStartedWork(root, '31', 'Retry budget', 'feat/27-cache');
    expect(startedWork(root, 'feat/27-cache')).toBe('31');
    expect(workOf(root, undefined, {}).work).toBe('31');
    expect(workOf(root, undefined, { AGENTOS_WORK: '#040' }).work).toBe('40');
    expect(workOf(root, '5', { AGENTOS_WORK: '40' }).work).toBe('5');
  });

  it('a brief begun on another branch does not apply here', async () => {
    const root = project('main');
    await noteStartedWork(root, '31', 'Retry budget', 'feat/31-retry');
    expect(startedWork(root, 'main')).toBeNull();
    expect(workOf(root, undefined, {})).toEqual({ work: null, branch: 'main' });
  });
});

describe('work given with a secret in it', () => {
  it('is redacted before it is read as an id (a token never survives as a lower-cased work id)', () => {
    const root = project('main');
    const mem = openAttemptMemory(root, DEFAULT_CONFIG, {
      env: { AGENTOS_WORK: 'ghp_0123456789abcdefghijABCDEFGHIJ0123456789' },
      home: '/home/t',
    });
    const r = mem.record({ tool: 'shell', command: 'make', outcome: 'failure' });
    mem.close();
    expect(JSON.stringify(r)).not.toMatch(/ghp_0123456789/i);
  });
});

describe('the store keeps work and branch (schema 4)', () => {
  it('records them, lists by work, and upgrades a version-3 store in place', async () => {
    const root = project('issue-27');
    const mem = openAttemptMemory(root, DEFAULT_CONFIG, { env: {}, home: '/home/t' });
    // Times a second apart: two records in one millisecond have no defined order.
    const a = mem.record({
      tool: 'shell',
      command: 'npm install redis-node',
      outcome: 'failure',
      time: new Date(Date.now() - 2000).toISOString(),
    });
    mem.record({
      tool: 'shell',
      command: 'npm test',
      outcome: 'success',
      work: '#12',
      time: new Date(Date.now() - 1000).toISOString(),
    });
    expect([a.work, a.branch]).toEqual(['27', 'issue-27']);
    expect(mem.list({ work: ['12'] }).map((r) => r.command)).toEqual(['npm test']);
    expect(mem.list({ work: [] })).toEqual([]);
    mem.close();

    const { createRequire } = await import('node:module');
    const Database = createRequire(import.meta.url)('better-sqlite3');
    const file = path.join(root, '.agentos', 'memory', 'attempts.db');
    const v3 = new Database(file);
    v3.exec('DROP INDEX attempts_work; ALTER TABLE attempts DROP COLUMN work; ALTER TABLE attempts DROP COLUMN branch');
    v3.pragma('user_version = 3');
    v3.close();
    const again = openAttemptMemory(root, DEFAULT_CONFIG, { env: { AGENTOS_WORK: '9' } });
    expect(again.list().map((r) => [r.command, r.work, r.branch])).toEqual([
      ['npm test', null, null],
      ['npm install redis-node', null, null],
    ]);
    expect(again.record({ tool: 'shell', command: 'make', outcome: 'failure' }).work).toBe('9');
    again.close();
    const db = new Database(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    db.close();
  });
});

describe('triedDuring', () => {
  const t = (minutes: number) => new Date(Date.UTC(2026, 10, 2, 10, minutes)).toISOString();

  it('lists the failures of each matched work, newest first, the same command once, with what worked instead', () => {
    const m = new FakeAttemptMemory();
    m.record({
      tool: 'shell',
      command: 'npm install redis-node',
      outcome: 'failure',
      error: 'npm error 404 Not Found - GET https://registry.npmjs.org/redis-node',
      work: '27',
      time: t(0),
    });
    m.record({ tool: 'shell', command: 'npm install redis-node', outcome: 'failure', work: '27', time: t(1) });
    m.record({ tool: 'shell', command: 'npm test', outcome: 'success', work: '27', time: t(2) });
    m.record({ tool: 'shell', command: 'npm install ioredis', outcome: 'success', work: '27', time: t(3) });
    m.record({ tool: 'shell', command: 'make deploy', outcome: 'failure', work: '31', time: t(4) });
    m.record({ tool: 'shell', command: 'cargo build', outcome: 'failure', work: null, time: t(5) });
    const lookup = triedLookup(triedDuring(m, ['027', '31', null, '99']));
    const of27 = lookup({ issueId: '27' });
    expect(of27.map((x) => [x.failure.command, x.failure.time, x.workedInstead?.command ?? null])).toEqual([
      ['npm install redis-node', t(1), 'npm install ioredis'],
    ]);
    expect(lookup({ issueId: '#31' }).map((x) => [x.failure.command, x.workedInstead])).toEqual([
      ['make deploy', null],
    ]);
    expect(lookup({ issueId: '99' })).toEqual([]);
    expect(lookup({ issueId: null })).toEqual([]);
  });

  it('renders one line each, past text made safe by the caller and kept inside its code span', () => {
    const m = new FakeAttemptMemory();
    m.record({ tool: 'shell', command: 'echo `id`', outcome: 'failure', error: 'Error: boom', work: '1', time: t(0) });
    const [line] = renderTried(triedLookup(triedDuring(m, ['1']))({ issueId: '1' }), (s) => s.toUpperCase());
    expect(line).toBe("failed (2026-11-02): `ECHO 'ID'` — ERROR: BOOM");
  });
});
