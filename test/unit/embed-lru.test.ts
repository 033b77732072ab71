/** The MCP server's embedding cache (issue 31): a text seen before is not embedded again, and nothing it answers can differ from the model's answer. */
import { lruEmbedder } from '../../src/work-memory/embeddings/lru.js';
import { FakeEmbedder, hashVector } from '../helpers/fakes.js';

test('a text seen before comes from the cache; new texts of a batch go to the model once, in one call, in order', async () => {
  const inner = new FakeEmbedder({ vectorFor: (t) => hashVector(t) });
  const e = lruEmbedder(inner);
  const first = await e.embed(['a', 'b']);
  const again = await e.embed(['b', 'c', 'a', 'c']);
  expect(inner.calls).toEqual([['a', 'b'], ['c']]);
  expect(again.map((v) => Array.from(v))).toEqual(['b', 'c', 'a', 'c'].map((t) => Array.from(hashVector(t))));
  expect(Array.from(first[0])).toEqual(Array.from(hashVector('a')));
  // Misses count the distinct texts the model embedded; the second 'c' of a batch is neither.
  expect(e.cacheStats).toEqual({ hits: 2, misses: 3 });
  expect([e.modelId, e.dimensions, e.maxTokens, e.countTokens('one two')]).toEqual([
    inner.modelId,
    inner.dimensions,
    inner.maxTokens,
    inner.countTokens('one two'),
  ]);
});

test('a caller editing its vector in place does not change what the cache answers next', async () => {
  const e = lruEmbedder(new FakeEmbedder({ vectorFor: (t) => hashVector(t) }));
  const [v] = await e.embed(['brief']);
  v.fill(0);
  expect(Array.from((await e.embed(['brief']))[0])).toEqual(Array.from(hashVector('brief')));
});

test('bounded: the least recently used text leaves first', async () => {
  const inner = new FakeEmbedder({ vectorFor: (t) => hashVector(t) });
  const e = lruEmbedder(inner, 2);
  await e.embed(['a']);
  await e.embed(['b']);
  await e.embed(['a']); // a is now the most recent
  await e.embed(['c']); // evicts b
  inner.calls.length = 0;
  await e.embed(['a', 'c']);
  expect(inner.calls).toEqual([]);
  await e.embed(['b']);
  expect(inner.calls).toEqual([['b']]);
});

test('a cached vector evicted by another call while the model runs is still answered whole', async () => {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const inner = new FakeEmbedder({ vectorFor: (t) => hashVector(t) });
  const slow = {
    ...inner,
    modelId: inner.modelId,
    modelFingerprint: inner.modelFingerprint,
    dimensions: inner.dimensions,
    maxTokens: inner.maxTokens,
    countTokens: (t: string) => inner.countTokens(t),
    embed: async (ts: string[]) => (ts.includes('slow') ? gate.then(() => inner.embed(ts)) : inner.embed(ts)),
  };
  const e = lruEmbedder(slow, 1);
  await e.embed(['kept']);
  const pending = e.embed(['kept', 'slow']); // 'kept' is a hit; 'slow' waits for the model
  await e.embed(['other']); // evicts 'kept' (size 1) meanwhile
  release();
  const [kept, slowV] = await pending;
  expect(Array.from(kept)).toEqual(Array.from(hashVector('kept')));
  expect(Array.from(slowV)).toEqual(Array.from(hashVector('slow')));
});
