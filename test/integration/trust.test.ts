// SLOW: real model
// Issue 8 §1-2 through the built CLI (bin/agentos.js -> dist/), the real model
// and real indexes of small scratch projects cut from fixtures/demo-repo:
// a stale index is brought up to date before the check, --no-refresh warns
// instead, an index without completed work is no_history (not clear), the index
// remembers that it covers history, and `init` / `status` on a project laid out
// unlike the demo.
import { cliEnv } from '../helpers/cli.js';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import { readCurrent } from '../../src/work-memory/index/hnsw-index.js';
import { BIN, DEMO, REPO } from '../helpers/paths.js';
import { spawnCollect, type Collected } from '../helpers/spawn-collect.js';

jest.setTimeout(180_000);

type RunResult = Collected;

function run(root: string, args: string[]): Promise<RunResult> {
  return spawnCollect(process.execPath, [BIN, '-C', root, ...args], { cwd: REPO, env: cliEnv() });
}

const json = (r: RunResult) => {
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`not JSON (exit ${r.code}):\n${r.stdout}\n--- stderr:\n${r.stderr}`);
  }
};

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-trust-'));
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const ONBOARDING = path.join(DEMO, 'briefs', 'unrelated-onboarding-tour.md');
const NEW_ISSUE = 'docs/audit/done/200-onboarding-tour/001-issue.md';

/** Two ADRs and three finished issues of the demo, default layout. */
async function smallDemo(name: string, opts: { history?: boolean } = {}): Promise<string> {
  const root = path.join(tmp, name);
  await mkdir(path.join(root, '.agentos'), { recursive: true });
  const files = ['docs/adrs/0001-use-postgres-for-build-metadata.md', 'docs/adrs/0005-container-image-baseline.md'];
  if (opts.history !== false) {
    files.push(
      'docs/audit/done/27-docker-build-optimization/001-issue.md',
      'docs/audit/done/48-dashboard-dark-mode/001-issue.md',
      'docs/audit/done/63-webhook-retries-backoff/001-issue.md',
    );
  }
  for (const f of files) {
    await mkdir(path.dirname(path.join(root, f)), { recursive: true });
    await cp(path.join(DEMO, f), path.join(root, f));
  }
  return root;
}

/** The onboarding brief, filed as finished issue #200: the brief then duplicates past work. */
async function fileOnboardingAsDone(root: string, rel = NEW_ISSUE): Promise<void> {
  const text = (await readFile(ONBOARDING, 'utf8')).replace(
    /^# .*$/m,
    '# Issue #200: Interactive onboarding tour for new dashboard users',
  );
  await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
  await writeFile(path.join(root, rel), text);
}

describe('a stale index is brought up to date before the check (issue 8 §1)', () => {
  let root: string;
  beforeAll(async () => {
    root = await smallDemo('stale');
    const first = await run(root, ['index', '--include-history']);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^First build of the index\.$/m);
    expect(first.stdout).not.toMatch(/weights changed/);
  });

  test('nothing changed: no refresh, coverage says fresh and what the index holds', async () => {
    const r = await run(root, ['issue', 'start', ONBOARDING, '--non-interactive', '--json']);
    expect(r.code).toBe(0);
    const j = json(r);
    expect(j.status).toBe('clear');
    expect(j.coverage).toMatchObject({
      documents: { standard: 2, history: 3 },
      includeHistory: true,
      refresh: { state: 'fresh', ran: false },
    });
    expect(j.coverage.indexAgeSeconds).toBeGreaterThanOrEqual(0);
    expect(r.stderr).not.toContain('Index updated before the check');
  });

  test('context --json carries coverage too', async () => {
    const r = await run(root, ['context', ONBOARDING, '--json']);
    expect(r.code).toBe(0);
    expect(json(r).coverage).toMatchObject({ includeHistory: true, refresh: { state: 'fresh' } });
  });

  test('--no-refresh with a new finished issue: checks the old index, warns naming the file, index untouched', async () => {
    await fileOnboardingAsDone(root);
    const before = readCurrent(root);
    const r = await run(root, ['issue', 'start', ONBOARDING, '--non-interactive', '--json', '--no-refresh']);
    expect(r.code).toBe(0);
    const j = json(r);
    expect(j.status).toBe('clear');
    expect(r.stderr).toContain(
      `warning: --no-refresh: the index misses changes to 1 file (1 new, 0 changed, 0 deleted): ${NEW_ISSUE} (new)`,
    );
    expect(j.coverage.refresh).toMatchObject({ state: 'stale', ran: false, skipped: 'no-refresh', added: [NEW_ISSUE] });
    expect(j.coverage.staleFiles).toEqual([NEW_ISSUE]);
    expect(readCurrent(root)).toBe(before);
  });

  test('without the flag the new issue is indexed first and the brief is caught as a duplicate', async () => {
    const r = await run(root, ['issue', 'start', ONBOARDING, '--non-interactive', '--json']);
    expect(r.code).toBe(0);
    const j = json(r);
    expect(r.stderr).toContain('Index updated before the check (1 new, 0 changed, 0 removed;');
    expect(j.coverage.refresh).toMatchObject({ state: 'refreshed', ran: true, added: [NEW_ISSUE] });
    expect(j.coverage.documents).toEqual({ standard: 2, history: 4 });
    expect(j.coverage.staleFiles).toEqual([]);
    expect(j.status).toBe('duplicate_alert');
    expect(j.matches[0].path).toBe(NEW_ISSUE);
    expect(j.matches[0].score).toBeGreaterThanOrEqual(0.85);
  });

  test('a deleted issue is dropped before `search` answers; search --json carries coverage', async () => {
    await rm(path.join(root, NEW_ISSUE));
    const r = await run(root, ['search', 'interactive onboarding tour', '--json']);
    expect(r.code).toBe(0);
    const j = json(r);
    expect(j.coverage.refresh).toMatchObject({ state: 'refreshed', removed: [NEW_ISSUE] });
    expect(j.results.map((x: { path: string }) => x.path)).not.toContain(NEW_ISSUE);
  });
});

describe('the index remembers that it covers history (issue 8 §1)', () => {
  let root: string;
  beforeAll(async () => {
    root = await smallDemo('remember');
    expect((await run(root, ['index', '--include-history'])).code).toBe(0);
  });

  test('a plain `index` keeps history and says so', async () => {
    const r = await run(root, ['index', '--json']);
    expect(r.code).toBe(0);
    const j = json(r);
    expect(j).toMatchObject({ includeHistory: true, historyKept: true, removed: [] });
    expect(r.stderr).toContain('Keeping history: the index already covers completed work (--no-history drops it).');
  });

  test('`--full` keeps history too', async () => {
    const r = await run(root, ['index', '--full', '--json']);
    const j = json(r);
    expect(j).toMatchObject({ includeHistory: true, historyKept: true, fullRebuildReason: '--full was given' });
    expect(j.added.filter((f: string) => f.startsWith('docs/audit/'))).toHaveLength(3);
  });

  test('--include-history with --no-history is a usage error', async () => {
    const r = await run(root, ['index', '--include-history', '--no-history']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--include-history and --no-history contradict each other');
  });

  test('`--no-history` drops it on purpose; the check then says no completed work is indexed (no_history, exit 0)', async () => {
    const r = await run(root, ['index', '--no-history', '--json']);
    const j = json(r);
    expect(j).toMatchObject({ includeHistory: false, historyDropped: true });
    expect([...j.removed].sort()).toEqual([
      'docs/audit/done/27-docker-build-optimization/001-issue.md',
      'docs/audit/done/48-dashboard-dark-mode/001-issue.md',
      'docs/audit/done/63-webhook-retries-backoff/001-issue.md',
    ]);
    const check = await run(root, ['issue', 'start', ONBOARDING, '--non-interactive', '--json']);
    expect(check.code).toBe(0);
    const c = json(check);
    expect(c.status).toBe('no_history');
    expect(check.stderr).toContain(
      'No completed work is indexed (the index was built without --include-history; the history globs match 3 files). Run `agentos index --include-history`.',
    );
    expect(check.stderr).not.toContain('No similar past work found');
    // A later plain run stays standards-only: nothing silently re-added either.
    expect(json(await run(root, ['index', '--json']))).toMatchObject({
      includeHistory: false,
      historyKept: false,
      added: [],
    });
  });
});

describe('an index without completed work (issue 8 §1)', () => {
  test('history globs matching nothing: index warns, issue start reports no_history naming the globs, exit 0', async () => {
    const root = await smallDemo('no-history', { history: false });
    const idx = await run(root, ['index', '--include-history']);
    expect(idx.code).toBe(0);
    expect(idx.stderr).toMatch(
      /warning: history globs matched 0 files \(docs\/audit\/done\/\*\/001-issue\.md, .*\): no completed work is indexed; run `agentos init`/,
    );
    const r = await run(root, ['issue', 'start', ONBOARDING, '--non-interactive', '--json']);
    expect(r.code).toBe(0);
    expect(json(r).status).toBe('no_history');
    expect(r.stderr).toContain(
      'No completed work is indexed (history globs matched 0 files: docs/audit/done/*/001-issue.md, ',
    );
  });

  test('`index` finding no file at all names the globs and points to `agentos init`', async () => {
    const root = path.join(tmp, 'empty');
    await mkdir(path.join(root, '.agentos'), { recursive: true });
    const r = await run(root, ['index']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'warning: no files matched the corpus globs (docs/adrs/**/*.md, docs/adr/**/*.md, docs/standards/**/*.md, ',
    );
    expect(r.stderr).toContain('run `agentos init`');
  });
});

describe('`agentos init` and `agentos status` on a project laid out unlike the demo (issue 8 §2)', () => {
  test('init --yes finds docs/decisions and issues/closed; index and check use them; status reports it all', async () => {
    const root = path.join(tmp, 'other-layout');
    await mkdir(path.join(root, '.git'), { recursive: true });
    const put = async (rel: string, from: string) => {
      await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
      await cp(path.join(DEMO, from), path.join(root, rel));
    };
    await put('docs/decisions/0001-postgres.md', 'docs/adrs/0001-use-postgres-for-build-metadata.md');
    await put('docs/decisions/0005-images.md', 'docs/adrs/0005-container-image-baseline.md');
    await put('issues/closed/27-docker-build.md', 'docs/audit/done/27-docker-build-optimization/001-issue.md');
    await put('issues/closed/48-dark-mode.md', 'docs/audit/done/48-dashboard-dark-mode/001-issue.md');
    await put('issues/open/121-autoscaling.md', 'docs/audit/active/121-runner-autoscaling/001-issue.md');

    // Before init the default globs find nothing here.
    expect((await run(root, ['index'])).stderr).toContain('no files matched the corpus globs');

    const init = await run(root, ['init', '--yes']);
    expect(init.code).toBe(0);
    expect(init.stdout).toMatch(/docs\/decisions\/\*\*\/\*\.md\s+2 files/);
    expect(init.stdout).toMatch(/issues\/closed\/\*\*\/\*\.md\s+2 files/);
    expect(init.stdout).not.toContain('issues/open');
    expect(await readFile(path.join(root, '.agentos', '.gitignore'), 'utf8')).toContain('index/');
    expect((await run(root, ['init', '--yes'])).code).toBe(2); // never overwrites

    expect((await run(root, ['index', '--include-history'])).code).toBe(0);
    const check = await run(root, [
      'issue',
      'start',
      path.join(DEMO, 'briefs', 'optimize-docker-build-times.md'),
      '--non-interactive',
      '--json',
    ]);
    const c = json(check);
    expect(c.status).toBe('duplicate_alert');
    expect(c.matches[0].path).toBe('issues/closed/27-docker-build.md');

    const status = json(await run(root, ['status', '--json']));
    expect(status.globs).toEqual([
      { type: 'standard', glob: 'docs/decisions/**/*.md', files: 2 },
      { type: 'history', glob: 'issues/closed/**/*.md', files: 2 },
    ]);
    expect(status.config.settings.find((s: { key: string }) => s.key === 'corpus.history')).toMatchObject({
      source: '.agentos/config.yaml',
    });
    expect(status.config.settings.find((s: { key: string }) => s.key === 'thresholds.duplicate')).toMatchObject({
      value: 0.85,
      source: 'default',
    });
    expect(status.model).toMatchObject({ present: true, source: 'AGENTOS_MODEL_DIR' });
    expect(status.index).toMatchObject({
      state: 'fresh',
      includeHistory: true,
      documents: { standard: 2, history: 2 },
      incompatible: null,
    });
    expect(status.index.modelFingerprint).toBe(status.model.fingerprint);
    expect(status.lock.holder).toBeNull();
    expect(status.log.bytes).toBeGreaterThan(0);
  });
});
