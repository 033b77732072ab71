/** Redaction, command normalisation, similarity scoring and auto-tagging: the pure parts of attempt memory. */
import { describe, expect, it } from '@jest/globals';
import { redact, REDACTED } from '../../src/attempt-memory/redact.js';
import { commandTokens, normaliseCommand, toolFamily } from '../../src/attempt-memory/normalise.js';
import {
  closeRatio,
  commandSimilarity,
  features,
  mayShareToken,
  ratio,
  similarity,
  tokenPieces,
} from '../../src/attempt-memory/similarity.js';
import { autoTags } from '../../src/attempt-memory/tags.js';
import { SECRET_CASES } from '../helpers/secrets.js';

describe('redact', () => {
  it('has at least 20 real secret shapes to test', () => {
    expect(SECRET_CASES.length).toBeGreaterThanOrEqual(20);
  });

  it.each(SECRET_CASES.map((c) => [c.name, c] as const))('removes %s', (_name, c) => {
    const out = redact(c.text, '/home/tester');
    expect(out).not.toContain(c.secret);
    expect(out).toContain(REDACTED);
  });

  it('keeps what is not secret: the command, flags, hosts, ports', () => {
    expect(redact('npm install redis-node --save', '/h')).toBe('npm install redis-node --save');
    expect(redact('docker run -p8080:80 -p 443:443 nginx', '/h')).toBe('docker run -p8080:80 -p 443:443 nginx');
    expect(redact('psql postgres://app:pw12345@db:5432/app', '/h')).toBe(`psql postgres://${REDACTED}@db:5432/app`);
    // A password typed with an unencoded `@`: none of it is left (the authority ends at its last `@`).
    expect(redact('psql postgres://app:p@ss@w0rd@db:5432/app', '/h')).toBe(`psql postgres://${REDACTED}@db:5432/app`);
    // No user (`redis://:pw@`), a base64 password with `/` and `=`.
    expect(redact('redis-cli -u redis://:hunter2@cache:6379', '/h')).toBe(
      `redis-cli -u redis://${REDACTED}@cache:6379`,
    );
    expect(redact('psql postgres://app:ab/cd+e==@db/x', '/h')).toBe(`psql postgres://${REDACTED}@db/x`);
    expect(redact('mkdir -p build/out', '/h')).toBe('mkdir -p build/out');
    expect(redact('git log --author=alice', '/h')).toBe('git log --author=alice');
  });

  it("replaces the home folder with ~ and other users' homes with *", () => {
    expect(redact('cat /home/tester/.npmrc /home/tester2/x', '/home/tester')).toBe('cat ~/.npmrc /home/*/x');
    expect(redact('ls /Users/alice/code', '/home/tester')).toBe('ls /Users/*/code');
  });

  it('is linear on long hostile input', () => {
    const long = 'a'.repeat(200_000) + '=' + 'b'.repeat(200_000);
    const t = Date.now();
    redact(long, '/h');
    redact('-p'.repeat(100_000), '/h');
    redact('token'.repeat(50_000), '/h');
    // A generous bound: quadratic behaviour on 400k characters takes minutes.
    expect(Date.now() - t).toBeLessThan(5000);
  });
});

describe('normalisation', () => {
  it.each([
    ['npm install redis-node@4.6.7', 'npm install redis-node@<v>'],
    ['pip install requests==2.31.0', 'pip install requests==<v>'],
    ['cat /tmp/tmp.Xa81b2/out.log', 'cat <tmp>/out.log'],
    ['ls /var/folders/xy/abc123/T/jest_1/file', 'ls <tmp>/file'],
    ['git checkout 3f9a2c1d8e', 'git checkout <hash>'],
    ['git show 3f9a2c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39', 'git show <hash>'],
    ['docker rm 123e4567-e89b-12d3-a456-426614174000', 'docker rm <uuid>'],
    ['kill 123456', 'kill <n>'],
    ['grep error logs/2025-11-18T10:11:12Z.log', 'grep error logs/<time>.log'],
    ['go get example.com/mod@v1.22.0', 'go get example.com/mod@<v>'],
  ])('%s → %s', (input, expected) => {
    expect(normaliseCommand(input)).toBe(expected);
  });

  it('does not fold what identifies the attempt: names, words, short numbers', () => {
    expect(normaliseCommand('npm install redis-node')).toBe('npm install redis-node');
    expect(normaliseCommand('head -n 20 deadbeef.txt')).toBe('head -n 20 deadbeef.txt');
    expect(normaliseCommand('git checkout feature-branch')).toBe('git checkout feature-branch');
  });

  it('tokens: program without folder, aliases expanded, versions dropped from packages', () => {
    expect(commandTokens('./node_modules/.bin/jest --ci')).toEqual(['jest', '--ci']);
    expect(commandTokens('npm i redis-node@4.1.0')).toEqual(['npm', 'install', 'redis-node']);
    expect(commandTokens('yarn add ioredis')).toEqual(['yarn', 'install', 'ioredis']);
    expect(commandTokens('make build && make test')).toEqual(['make', 'build', 'make', 'test']);
  });

  it('tool families: shell, Bash, run_command are one tool', () => {
    expect(new Set(['shell', 'Bash', 'run_command', 'sh'].map(toolFamily))).toEqual(new Set(['shell']));
    expect(toolFamily('Edit')).toBe('edit');
  });
});

describe('similarity (same tool +0.3, command +0.4, context/tags +0.3)', () => {
  const f = (tool: string, command: string, context?: string, tags?: string[]) =>
    features({ tool, command, context, tags });

  it('identical attempts score 1; the parts add up as the PRD says', () => {
    const a = f('shell', 'npm install redis-node', 'Add Redis caching', ['redis']);
    expect(similarity(a, a)).toBe(1);
    // Other tool, same command and tags: 0.4 + 0.3.
    expect(
      similarity(
        f('edit', 'npm install redis-node', undefined, ['redis']),
        f('shell', 'npm install redis-node', undefined, ['redis']),
      ),
    ).toBe(0.7);
    // Same tool and command, nothing in common in context or tags: 0.3 + 0.4.
    expect(similarity(f('shell', 'make', undefined, ['a']), f('shell', 'make', undefined, ['b']))).toBe(0.7);
    // Same tool only.
    expect(similarity(f('shell', 'ls'), f('shell', 'pwd'))).toBe(0.3);
  });

  it('versions, temp paths and hashes do not make two commands different', () => {
    const sim = (x: string, y: string) => commandSimilarity(f('shell', x), f('shell', y));
    expect(sim('npm install redis-node@1.0.0', 'npm i redis-node@2.3.4')).toBe(1);
    expect(sim('tar xf /tmp/tmp.AbC123/a.tgz', 'tar xf /tmp/tmp.ZzZ999/a.tgz')).toBe(1);
    expect(sim('git revert a1b2c3d4e5', 'git revert 9f8e7d6c5b')).toBe(1);
  });

  it('the argument matters more than the program: another package is another attempt', () => {
    const s = similarity(
      f('shell', 'npm install redis-node', undefined, ['redis']),
      f('shell', 'npm install ioredis', undefined, ['redis']),
    );
    expect(s).toBeLessThan(0.85);
    const t = similarity(f('shell', 'pytest tests/test_auth.py'), f('shell', 'pytest tests/test_user.py'));
    expect(t).toBeLessThan(0.85);
  });

  it('a typo in an argument still counts (fuzzy), a different word does not', () => {
    expect(ratio('redis-node', 'redis-nodee')).toBeGreaterThanOrEqual(0.85);
    expect(
      commandSimilarity(f('shell', 'npm install redis-node'), f('shell', 'npm install redis-nodee')),
    ).toBeGreaterThan(0.9);
    expect(ratio('express', 'fastify')).toBeLessThan(0.85);
  });

  it('closeRatio is ratio where ratio reaches 0.85 and 0 elsewhere (its shortcuts change no decision)', () => {
    let seed = 3;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const word = () => Array.from({ length: 1 + rand(24) }, () => 'abcde-_.'[rand(8)]).join('');
    const mutate = (w: string) => {
      const chars = [...w];
      for (let k = rand(4); k > 0; k--) chars.splice(rand(chars.length + 1), rand(2), 'abcde'[rand(5)]);
      return chars.join('');
    };
    let close = 0;
    for (let i = 0; i < 5000; i++) {
      const a = word();
      const b = rand(2) ? mutate(a) : word();
      const r = ratio(a, b);
      expect([a, b, closeRatio(a, b)]).toEqual([a, b, r >= 0.85 ? r : 0]);
      if (r >= 0.85 && a !== b) close++;
    }
    expect(close).toBeGreaterThan(100); // near misses and near hits were both exercised
  });

  it('mayShareToken is false only where commandSimilarity is 0 (the q-gram filter loses no match)', () => {
    let seed = 11;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const vocab = [
      'npm',
      'install',
      'redis-node',
      'redis-nodes',
      'rediss-node',
      'ioredis',
      'pytest',
      'tests/test_auth.py',
      'tests/test_autth.py',
      'cargo',
      'build',
      '--release',
      'abcdefghijklmnop',
      'abcdefghijklmnopq',
    ];
    const command = () => Array.from({ length: 1 + rand(4) }, () => vocab[rand(vocab.length)]).join(' ');
    let skipped = 0;
    let fuzzy = 0;
    for (let i = 0; i < 3000; i++) {
      const q = f('shell', command());
      const p = f('shell', command());
      const sim = commandSimilarity(q, p);
      if (!mayShareToken(tokenPieces(q), p.tokens.join(' '))) {
        expect([q.tokens, p.tokens, sim]).toEqual([q.tokens, p.tokens, 0]);
        skipped++;
      } else if (sim > 0 && !q.tokens.some((t) => p.tokens.includes(t))) fuzzy++;
    }
    expect(skipped).toBeGreaterThan(100);
    expect(fuzzy).toBeGreaterThan(10); // fuzzy-only matches were kept, not skipped
  });

  it('context words count when both sides have a context', () => {
    const a = f('shell', 'make', 'add redis caching layer', ['x']);
    const b = f('shell', 'make', 'redis caching layer', ['y']);
    expect(similarity(a, b)).toBeCloseTo(0.3 + 0.4 + 0.3 * ((0 + 1) / 2), 9);
  });
});

describe('autoTags', () => {
  it('PRD examples: intent, tech, tool, file', () => {
    expect(autoTags({ tool: 'shell', command: '', context: 'adding auth' })).toEqual(
      expect.arrayContaining(['authentication', 'security']),
    );
    expect(autoTags({ tool: 'shell', command: 'npm install ioredis' })).toEqual(
      expect.arrayContaining(['dependency', 'redis', 'database', 'ioredis', 'npm']),
    );
    expect(autoTags({ tool: 'test_run', command: '' })).toContain('testing');
    expect(autoTags({ tool: 'Edit', command: 'src/auth/jwt.ts' })).toEqual(
      expect.arrayContaining(['auth', 'jwt', 'authentication', 'typescript']),
    );
    expect(autoTags({ tool: 'Edit', command: 'src/server/routes/users.ts' })).toContain('backend');
  });

  it.each([
    ['pip install requests==2.31', ['pip', 'python', 'dependency', 'requests']],
    ['cargo build --release', ['cargo', 'rust', 'build']],
    ['go test ./...', ['go', 'testing']],
    ['docker build -t app .', ['docker', 'container', 'build']],
    ['git push origin main', ['git']],
    ['npx jest test/unit/auth.test.ts', ['node', 'testing', 'auth']],
    ['pytest tests/test_api.py', ['testing', 'python']],
    ['npm run test:unit', ['npm', 'testing']],
    ['npm install @types/node@20', ['dependency', 'node']],
  ])('%s', (command, expected) => {
    expect(autoTags({ tool: 'shell', command })).toEqual(expect.arrayContaining(expected));
  });

  it('is deterministic, sorted, bounded, and keeps given tags (normalised)', () => {
    const a = autoTags({
      tool: 'shell',
      command: 'npm install ioredis',
      context: 'Add Redis caching',
      tags: ['Redis', ' My Tag '],
    });
    expect(a).toEqual([...a].sort());
    expect(a).toContain('my-tag');
    expect(
      autoTags({
        tool: 'shell',
        command: 'npm install ioredis',
        context: 'Add Redis caching',
        tags: ['Redis', ' My Tag '],
      }),
    ).toEqual(a);
    expect(
      autoTags({ tool: 'shell', command: 'x', tags: Array.from({ length: 50 }, (_, i) => `t${i}`) }).length,
    ).toBeLessThanOrEqual(16);
    expect(autoTags({ tool: 'shell', command: 'npm install redis-node' })).not.toContain('install');
  });
});
