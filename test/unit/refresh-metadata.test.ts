/** An index read by older metadata rules: unchanged files get their ids read again, their vectors kept (issue 29). */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { METADATA_VERSION } from '../../src/work-memory/corpus/metadata.js';
import { refreshStartLine } from '../../src/cli/ui/index-refresh.js';
import { readTextFile } from '../../src/work-memory/corpus/read.js';
import type { CorpusFile } from '../../src/work-memory/corpus/types.js';
import { metadataOutdated, refreshKeptMetadata } from '../../src/work-memory/index/refresh-metadata.js';
import type { StoredDoc } from '../../src/work-memory/index/types.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'agentos-refresh-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const DESIGN =
  '# 10116 - Feature: LinkedIn OAuth\n\n## 1. Context & Goal\n* **Issue:** #116\n* **Related Issues:** #117\n\nBody.\n';

function stored(filePath: string, extra: Partial<StoredDoc> = {}): StoredDoc {
  return {
    filePath,
    types: ['history'],
    documentType: 'issue',
    issueId: '10116',
    title: 'old',
    summary: '',
    status: 'unknown',
    statusReason: null,
    contentHash: 'h',
    labels: [3, 4],
    ...extra,
  } as StoredDoc;
}

test('an index without a metadata version, or an older one, is outdated; the current one is not', () => {
  expect(metadataOutdated({})).toBe(true); // written before versions: 1
  expect(metadataOutdated({ metadataVersion: METADATA_VERSION - 1 })).toBe(true);
  expect(metadataOutdated({ metadataVersion: METADATA_VERSION })).toBe(false);
});

test('kept documents are read again: the declared issue id and relations, the same labels and repository', async () => {
  const rel = 'docs/lld/done/10116-linkedin-oauth.md';
  const abs = path.join(dir, '10116-linkedin-oauth.md');
  await writeFile(abs, DESIGN);
  const read = await readTextFile(abs, 1e6);
  if (!read.ok) throw new Error('fixture unreadable');
  const file: CorpusFile = { relPath: rel, absPath: abs, types: ['history'], size: DESIGN.length, mtimeMs: 0 };
  const keep = [
    stored(rel, { repository: 'acme/app' }),
    stored('docs/gone.md'),
    { ...stored('git:abc'), origin: { kind: 'commit' } } as unknown as StoredDoc,
  ];
  const { refreshed, texts } = await refreshKeptMetadata(keep, [file], () => read.hash, 1e6);
  expect(refreshed).toBe(1);
  expect(keep[0]).toMatchObject({
    filePath: rel,
    issueId: '116',
    related: ['117'],
    title: 'LinkedIn OAuth',
    labels: [3, 4],
    repository: 'acme/app',
    types: ['history'],
  });
  expect(texts.get(rel)).toBe(DESIGN);
  // No file for it, or not a file at all: left as it was.
  expect(keep[1].issueId).toBe('10116');
  expect(keep[2].issueId).toBe('10116');
});

test('a file that changed since the plan keeps what it had (its new text is embedded by the build, not here)', async () => {
  const rel = 'docs/lld/done/10116-linkedin-oauth.md';
  const abs = path.join(dir, 'changed.md');
  await writeFile(abs, DESIGN);
  const keep = [stored(rel)];
  const { refreshed } = await refreshKeptMetadata(
    keep,
    [{ relPath: rel, absPath: abs, types: ['history'], size: 1, mtimeMs: 0 }],
    () => 'another-hash',
    1e6,
  );
  expect(refreshed).toBe(0);
  expect(keep[0].issueId).toBe('10116');
});

test('a refresh for new metadata rules says so, not "the corpus settings"; a file change still names the files', () => {
  const none = { added: [], changed: [], removed: [], sources: [], configChanged: false };
  expect(refreshStartLine({ ...none, metadataOutdated: true })).toBe(
    'Updating the index: re-reading issue ids and relations as this agentos reads them (no embedding)…',
  );
  expect(refreshStartLine({ ...none, configChanged: true, metadataOutdated: true })).toBe(
    'Updating the index: the corpus settings changed…',
  );
  expect(refreshStartLine({ ...none, changed: ['docs/a.md'], metadataOutdated: true })).toBe(
    'Updating the index: 1 file (0 new, 1 changed, 0 deleted) since it was built…',
  );
});
