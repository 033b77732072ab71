import { embedProgressLine } from '../../src/cli/commands/index/index.js';

describe('index progress line', () => {
  test('chunks and tokens, with an ETA from tokens per second since embedding began', () => {
    // 1,000 of 4,000 tokens in 10 s -> 3,000 more at 100 tokens/s = 30 s.
    expect(embedProgressLine({ done: 64, total: 128, tokens: 1000, totalTokens: 4000 }, 10)).toBe(
      'Embedding chunks 64/128 · tokens 1,000/4,000 (25%) · ETA 30s',
    );
  });

  test('the ETA follows tokens, not chunks: half the chunks but a tenth of the tokens is far from done', () => {
    const line = embedProgressLine({ done: 64, total: 128, tokens: 400, totalTokens: 4000 }, 4);
    expect(line).toContain('(10%)');
    expect(line).toContain('ETA 36s');
  });

  test('no ETA before anything is embedded or when done; a chunk percentage without token counts', () => {
    expect(embedProgressLine({ done: 0, total: 10, tokens: 0, totalTokens: 500 }, 0)).toBe(
      'Embedding chunks 0/10 · tokens 0/500 (0%)',
    );
    expect(embedProgressLine({ done: 10, total: 10, tokens: 500, totalTokens: 500 }, 5)).not.toContain('ETA');
    expect(embedProgressLine({ done: 5, total: 10 }, 3)).toBe('Embedding chunks 5/10 (50%)');
  });
});
