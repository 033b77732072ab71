/**
 * What `issue start` says about what it covered (issue 8 §1): never "clear"
 * about an index without completed work (status no_history, exit 0), never a
 * bare "clear" from an index that misses newer files, and `--json` coverage.
 * The check runs over the fake embedder and an exact in-memory store; a
 * hand-written manifest on disk stands for the live index's bookkeeping.
 */
import { METADATA_VERSION } from '../../src/work-memory/corpus/metadata.js';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CHUNKING_VERSION } from '../../src/work-memory/chunks/chunk.js';
import { DEFAULT_CONFIG } from '../../src/shared/config/schema.js';
import { explainNoHistory } from '../../src/work-memory/check/no-history.js';
import { runIssueStart, type IssueStartOptions } from '../../src/cli/commands/issue-start/index.js';
import { corpusConfigHash } from '../../src/work-memory/index/corpus-config.js';
import { indexPaths } from '../../src/work-memory/index/layout.js';
import type { Manifest, VectorIndex } from '../../src/work-memory/index/types.js';
import {
  fakeDeps,
  fakeManifest,
  makeIO,
  makeProject,
  readLog,
  indexWithScores,
  testContext,
} from '../helpers/fakes.js';

const BRIEF =
  '# Add rate limiting to the public API\n\nPer-client limits on the public API, HTTP 429 with Retry-After.\n';

async function run(root: string, index: VectorIndex, opts: Partial<IssueStartOptions> = {}) {
  await writeFile(path.join(root, 'brief.md'), BRIEF);
  const t = makeIO(root);
  const code = await runIssueStart(testContext(t.io, {}, { deps: () => fakeDeps(index) }), 'brief.md', {
    onDuplicate: 'link',
    context: [],
    ...opts,
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON read back from stdout
  const json = opts.json ? (JSON.parse(t.stdout()) as Record<string, any>) : null;
  return { code, t, json, log: await readLog(root) };
}

async function writeManifest(root: string, over: Partial<Manifest>): Promise<void> {
  const m: Manifest = {
    ...fakeManifest(),
    chunkingVersion: CHUNKING_VERSION,
    metadataVersion: METADATA_VERSION,
    corpusConfigHash: corpusConfigHash(DEFAULT_CONFIG, over.includeHistory ?? true),
    ...over,
  };
  const p = indexPaths(root);
  await mkdir(p.generation('gen-test-1').dir, { recursive: true });
  await writeFile(p.generation('gen-test-1').manifest, JSON.stringify(m));
  await writeFile(p.current, 'gen-test-1\n');
}

describe('no_history: an index without completed work is not a clear result', () => {
  test('history globs matching nothing: says so naming the globs, JSON status no_history, exit 0, brief still written', async () => {
    const root = await makeProject({ 'docs/standards/logging.md': '# Logging\n' });
    const r = await run(root, indexWithScores([], [0.9]), { json: true });
    expect(r.code).toBe(0);
    expect(r.json!.status).toBe('no_history');
    expect(r.json!.error).toBeNull();
    const err = r.t.stderr();
    expect(err).toContain(
      'No completed work is indexed (history globs matched 0 files: docs/audit/done/*/001-issue.md, ',
    );
    expect(err).not.toContain('No similar past work');
    expect(r.json!.noHistory.historyGlobs.map((g: { files: number }) => g.files)).toEqual(
      DEFAULT_CONFIG.corpus.history.map(() => 0),
    );
    expect(r.json!.output).toMatch(/brief\.md$/);
    expect(r.log.find((l) => l.event === 'decision')).toMatchObject({ status: 'no_history' });
  });

  test('an index built without --include-history while history exists: names the flag', async () => {
    const root = await makeProject({
      'docs/audit/done/12-x/001-issue.md': '# Issue #12\n',
      'docs/audit/done/13-y/001-issue.md': '# Issue #13\n',
    });
    await writeManifest(root, { includeHistory: false });
    const r = await run(root, indexWithScores([], [0.9]));
    expect(r.code).toBe(0);
    expect(r.t.stderr()).toContain(
      'No completed work is indexed (the index was built without --include-history; the history globs match 2 files). Run `agentos index --include-history`.',
    );
  });

  test('completed work configured in git or a tracker, not in files: the message names the source, not an empty glob list', async () => {
    const root = await makeProject({ 'docs/adr/0001-x.md': '# 1. X\n' });
    const config = {
      ...DEFAULT_CONFIG,
      corpus: { ...DEFAULT_CONFIG.corpus, history: [] },
      sources: { ...DEFAULT_CONFIG.sources, git: { ...DEFAULT_CONFIG.sources.git, enabled: true } },
    };
    expect((await explainNoHistory(root, config, false)).message).toBe(
      'No completed work is indexed (the index was built without --include-history; git is configured as history). Run `agentos index --include-history`.',
    );
    const both = { ...config, sources: { ...config.sources, trackers: ['issues.json'] } };
    expect((await explainNoHistory(root, both, true)).message).toBe(
      'No completed work is indexed (corpus.history names no folder, and git and tracker exports gave nothing to index). Run `agentos index --include-history` and see what it reports for each source, or set corpus.history in .agentos/config.yaml.',
    );
    const none = { ...config, sources: DEFAULT_CONFIG.sources };
    expect((await explainNoHistory(root, none, null)).message).toBe(
      'No completed work is indexed (corpus.history names no folder). Run `agentos init` or set corpus.history in .agentos/config.yaml, then `agentos index --include-history`.',
    );
  });

  test('an empty index (nothing at all) is no_history too', async () => {
    const root = await makeProject();
    const r = await run(root, indexWithScores([]), { json: true });
    expect(r.json!.status).toBe('no_history');
  });
});

describe('a stale index that was not refreshed', () => {
  test('--no-refresh: warns which files it misses, the clear line says the index misses them, JSON lists them', async () => {
    const root = await makeProject({ 'docs/audit/done/12-x/001-issue.md': '# Issue #12\n' });
    await writeManifest(root, { includeHistory: true, coverage: { standard: 0, history: 1 } });
    const r = await run(root, indexWithScores([0.2]), { json: true, refresh: false });
    expect(r.code).toBe(0);
    expect(r.json!.status).toBe('clear');
    const err = r.t.stderr();
    expect(err).toContain(
      'warning: --no-refresh: the index misses changes to 1 file (1 new, 0 changed, 0 deleted): docs/audit/done/12-x/001-issue.md (new)',
    );
    expect(err).not.toContain('✓ No similar past work found.');
    expect(err).toContain('No similar past work found in the index, which misses 1 changed file');
    expect(r.json!.coverage).toMatchObject({
      documents: { standard: 0, history: 1 },
      includeHistory: true,
      refresh: { state: 'stale', ran: false, skipped: 'no-refresh', added: ['docs/audit/done/12-x/001-issue.md'] },
      staleFiles: ['docs/audit/done/12-x/001-issue.md'],
    });
  });

  test('a fresh index: plain clear line and coverage state fresh', async () => {
    const root = await makeProject();
    await writeManifest(root, { includeHistory: true, coverage: { standard: 3, history: 4 } });
    const r = await run(root, indexWithScores([0.2]), { json: true });
    expect(r.t.stderr()).toContain('✓ No similar past work found.');
    expect(r.json!.coverage.refresh).toMatchObject({ state: 'fresh', ran: false, skipped: null });
    expect(r.json!.coverage.documents).toEqual({ standard: 3, history: 4 });
    expect(typeof r.json!.coverage.indexAgeSeconds).toBe('number');
  });
});
