/** The appended part of a generation (index/delta.ts): merged after the base, checked against the manifest, bounded in size. */
import { createHash } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  DELTA_FILE,
  deltaFits,
  emptyDelta,
  MIN_DELTA_CHUNKS,
  mergeMeta,
  readDelta,
} from '../../src/work-memory/index/delta.js';
import { readManifest } from '../../src/work-memory/index/hnsw-index.js';
import { IndexUnavailableError } from '../../src/shared/errors.js';
import type { IndexMeta, Manifest, StoredDoc } from '../../src/work-memory/index/types.js';

const doc = (filePath: string, labels: number[]) =>
  ({ filePath, labels, title: filePath, types: ['history'] }) as unknown as StoredDoc;

test("the delta's documents follow the base's, its chunks point at them", () => {
  const base: IndexMeta = {
    docs: [doc('a', [0]), doc('b', [1, 2])],
    chunks: [
      [0, 0, 'A', 'a'],
      [1, 1, 'B', 'b'],
      [2, 1, 'B', 'b2'],
    ],
  };
  const delta = { ...emptyDelta(), docs: [doc('git:c', [3])], chunks: [[3, 0, 'C', 'c']] as IndexMeta['chunks'] };
  const merged = mergeMeta(base, delta);
  expect(merged.docs.map((d) => d.filePath)).toEqual(['a', 'b', 'git:c']);
  expect(merged.chunks[3]).toEqual([3, 2, 'C', 'c']);
  expect(merged.docs[merged.chunks[3][1]].filePath).toBe('git:c');
  expect(mergeMeta(base, null)).toBe(base);
});

test('a delta may grow to 5% of its base, and never below MIN_DELTA_CHUNKS', () => {
  expect(deltaFits(MIN_DELTA_CHUNKS, 10)).toBe(true);
  expect(deltaFits(MIN_DELTA_CHUNKS + 1, 10)).toBe(false);
  expect(deltaFits(400, 8000)).toBe(true);
  expect(deltaFits(401, 8000)).toBe(false);
});

async function generation(bytes: Buffer, sha = createHash('sha256').update(bytes).digest('hex')) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'agentos-delta-'));
  await writeFile(path.join(dir, DELTA_FILE), bytes);
  const manifest = {
    delta: { docs: 1, chunks: 1, firstLabel: 3 },
    integrity: { extra: { [DELTA_FILE]: { bytes: bytes.length, sha256: sha } } },
  } as unknown as Manifest;
  return { dir, manifest };
}

test('a delta is read only as the manifest lists it: a changed byte or another version is refused with the fix', async () => {
  const good = Buffer.from(JSON.stringify({ ...emptyDelta(), docs: [doc('git:c', [3])], chunks: [[3, 0, 'C', 'c']] }));
  const ok = await generation(good);
  expect(readDelta(ok.dir, ok.manifest)?.docs).toHaveLength(1);
  const tampered = await generation(
    Buffer.from(good.toString().replace('git:c', 'git:d')),
    createHash('sha256').update(good).digest('hex'),
  );
  expect(() => readDelta(tampered.dir, tampered.manifest)).toThrow(IndexUnavailableError);
  expect(() => readDelta(tampered.dir, tampered.manifest)).toThrow(/truncated or corrupt; run `agentos index --full`/);
  const other = await generation(Buffer.from(JSON.stringify({ ...emptyDelta(), version: 9 })));
  expect(() => readDelta(other.dir, other.manifest)).toThrow(/another version/);
  expect(readDelta(ok.dir, { ...ok.manifest, delta: undefined })).toBeNull();
});

test("a generation's delta is read, hashed and parsed once for its readers (index, lexical, sources); a file changed since is checked anew", async () => {
  const ok = await generation(Buffer.from(JSON.stringify({ ...emptyDelta(), docs: [doc('git:c', [3])] })));
  const first = readDelta(ok.dir, ok.manifest);
  expect(readDelta(ok.dir, ok.manifest)).toBe(first);
  // Rewritten in place (another time on disk) with a changed byte: refused, not answered from memory.
  await new Promise((r) => setTimeout(r, 5));
  await writeFile(
    path.join(ok.dir, DELTA_FILE),
    Buffer.from(JSON.stringify({ ...emptyDelta(), docs: [doc('git:d', [3])] })),
  );
  expect(() => readDelta(ok.dir, ok.manifest)).toThrow(/truncated or corrupt; run `agentos index --full`/);
});

test('format 2 is a generation with a delta; format 2 without one is refused', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'agentos-delta-'));
  const file = path.join(dir, 'manifest.json');
  const integrity = { vectorsBytes: 0, vectorsHeadSha256: '', metaBytes: 0, metaSha256: '' };
  await writeFile(file, JSON.stringify({ formatVersion: 2, delta: { docs: 1, chunks: 1, firstLabel: 0 }, integrity }));
  expect(readManifest(file).delta?.docs).toBe(1);
  await writeFile(file, JSON.stringify({ formatVersion: 2, integrity }));
  expect(() => readManifest(file)).toThrow(/index format 2 is not the format this agentos reads/);
});
