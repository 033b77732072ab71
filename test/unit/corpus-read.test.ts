import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { decodeText, normalizeText, readTextFile, sha256 } from '../../src/work-memory/corpus/read.js';

const MB = 1024 * 1024;
const hex = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('decodeText', () => {
  test('plain UTF-8 text is returned with the sha256 of its bytes', () => {
    const buf = Buffer.from('# Title\n\nHéllo wörld — ✓\n', 'utf8');
    expect(decodeText(buf, MB)).toEqual({ ok: true, text: '# Title\n\nHéllo wörld — ✓\n', hash: hex(buf) });
  });

  test('an empty file is valid text', () => {
    expect(decodeText(Buffer.alloc(0), MB)).toEqual({ ok: true, text: '', hash: hex(Buffer.alloc(0)) });
  });

  describe('size limit', () => {
    test('a file exactly at the limit is read', () => {
      const res = decodeText(Buffer.alloc(2048, 'a'), 2048);
      expect(res.ok).toBe(true);
    });

    test('one byte over the limit is rejected with both sizes in KB', () => {
      expect(decodeText(Buffer.alloc(2049, 'a'), 2048)).toEqual({ ok: false, reason: 'larger than 2 KB (2 KB)' });
      expect(decodeText(Buffer.alloc(5 * 1024, 'a'), 1024)).toEqual({ ok: false, reason: 'larger than 1 KB (5 KB)' });
    });

    test('the size check comes before decoding (a huge binary is reported as too large)', () => {
      const res = decodeText(Buffer.alloc(4096, 0), 1024);
      expect(res).toEqual({ ok: false, reason: 'larger than 1 KB (4 KB)' });
    });
  });

  describe('binary', () => {
    test('a NUL byte at the start means binary', () => {
      expect(decodeText(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x1a]), MB)).toEqual({
        ok: false,
        reason: 'binary file (contains NUL bytes)',
      });
    });

    test('a NUL byte in the middle of otherwise valid text means binary', () => {
      const buf = Buffer.concat([Buffer.from('# Title\n'), Buffer.from([0]), Buffer.from('more\n')]);
      expect(decodeText(buf, MB)).toEqual({ ok: false, reason: 'binary file (contains NUL bytes)' });
    });

    test('a NUL byte beyond the first 8 KB still means binary', () => {
      const buf = Buffer.concat([Buffer.alloc(10_000, 'a'), Buffer.from([0]), Buffer.from('tail')]);
      expect(decodeText(buf, MB)).toEqual({ ok: false, reason: 'binary file (contains NUL bytes)' });
    });
  });

  describe('encoding', () => {
    test.each([
      ['a lone continuation byte', [0x61, 0x80, 0x62]],
      ['a truncated 2-byte sequence', [0x61, 0xc3]],
      ['Latin-1 é', [0x63, 0x61, 0x66, 0xe9]],
      ['an overlong encoding', [0xc0, 0xaf]],
      ['a UTF-16 surrogate', [0xed, 0xa0, 0x80]],
    ])('%s is rejected as not valid UTF-8', (_name, bytes) => {
      expect(decodeText(Buffer.from(bytes), MB)).toEqual({ ok: false, reason: 'not valid UTF-8' });
    });

    test('a UTF-8 BOM is stripped from the text but kept in the hash', () => {
      const buf = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('# Title\n')]);
      const res = decodeText(buf, MB);
      expect(res).toEqual({ ok: true, text: '# Title\n', hash: hex(buf) });
      expect(res.ok && res.hash).not.toBe(hex(Buffer.from('# Title\n')));
    });

    test('CRLF and lone CR are normalized to LF; the hash is of the raw bytes', () => {
      const raw = Buffer.from('# Title\r\n\r\nline one\rline two\r\nend');
      const res = decodeText(raw, MB);
      expect(res).toEqual({ ok: true, text: '# Title\n\nline one\nline two\nend', hash: hex(raw) });
      const lf = decodeText(Buffer.from('# Title\n\nline one\nline two\nend'), MB);
      expect(lf.ok && res.ok && lf.text === res.text && lf.hash !== res.hash).toBe(true);
    });
  });
});

describe('normalizeText', () => {
  test.each([
    ['\uFEFFhello', 'hello'],
    ['a\r\nb', 'a\nb'],
    ['a\rb', 'a\nb'],
    ['a\r\r\nb', 'a\n\nb'],
    ['a\n\rb', 'a\n\nb'],
    ['no change\n', 'no change\n'],
  ])('%p -> %p', (input, out) => {
    expect(normalizeText(input)).toBe(out);
  });

  test('only a leading BOM is stripped', () => {
    expect(normalizeText('a\uFEFFb')).toBe('a\uFEFFb');
  });
});

describe('sha256', () => {
  test('hashes strings and buffers the same way', () => {
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256(Buffer.from('abc'))).toBe(sha256('abc'));
  });
});

describe('readTextFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agentos-read-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('reads a file from disk, normalizing the text and hashing the raw bytes', async () => {
    const raw = Buffer.from('\uFEFF# Doc\r\n\r\nBody\r\n', 'utf8');
    const file = path.join(dir, 'doc.md');
    await writeFile(file, raw);
    expect(await readTextFile(file, MB)).toEqual({ ok: true, text: '# Doc\n\nBody\n', hash: hex(raw) });
  });

  test('applies the size limit', async () => {
    const file = path.join(dir, 'big.md');
    await writeFile(file, Buffer.alloc(3 * 1024, 'x'));
    expect(await readTextFile(file, 1024)).toEqual({ ok: false, reason: 'larger than 1 KB (3 KB)' });
  });

  test('rejects binary and invalid UTF-8 files', async () => {
    await writeFile(
      path.join(dir, 'image.md'),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]),
    );
    await writeFile(path.join(dir, 'latin1.md'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    expect(await readTextFile(path.join(dir, 'image.md'), MB)).toEqual({
      ok: false,
      reason: 'binary file (contains NUL bytes)',
    });
    expect(await readTextFile(path.join(dir, 'latin1.md'), MB)).toEqual({ ok: false, reason: 'not valid UTF-8' });
  });

  test('a missing file is unreadable with the error code; a folder is not a regular file', async () => {
    expect(await readTextFile(path.join(dir, 'nope.md'), MB)).toEqual({ ok: false, reason: 'unreadable (ENOENT)' });
    expect(await readTextFile(dir, MB)).toEqual({ ok: false, reason: 'is a folder, not a regular file' });
  });

  test('the hash changes exactly when the bytes change', async () => {
    const file = path.join(dir, 'h.md');
    await writeFile(file, 'one\n');
    const a = await readTextFile(file, MB);
    await writeFile(file, 'one\n');
    const b = await readTextFile(file, MB);
    await writeFile(file, 'one\r\n');
    const c = await readTextFile(file, MB);
    if (!a.ok || !b.ok || !c.ok) throw new Error('expected all reads to succeed');
    expect(a.hash).toBe(b.hash);
    expect(c.hash).not.toBe(a.hash);
    expect(c.text).toBe(a.text);
  });
});
