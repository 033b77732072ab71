/** The store URL as libpq users read it (issue 30): sslmode's table, plain text warned, passwords never shown. */
import { maskUrl, plainTextWarning, sslPlan } from '../../src/shared/team-store/url.js';
import { UsageError } from '../../src/shared/errors.js';

const q = (url: string) => Object.fromEntries(new URL(url).searchParams);

test("libpq's table: require encrypts without verifying, prefer and allow fall back, verify-* verify", () => {
  const base = 'postgres://ann@db.example/agentos';
  // No sslmode is libpq's default, prefer (node-postgres alone would connect in plain text).
  const none = sslPlan(base);
  expect([none.mode, q(none.first), q(none.fallback!)]).toEqual([
    'prefer',
    { sslmode: 'prefer', uselibpqcompat: 'true' },
    { sslmode: 'disable', uselibpqcompat: 'true' },
  ]);
  // A Unix socket never speaks TLS (libpq ignores sslmode there): the URL as it is.
  const socket = 'postgres:///agentos?host=/var/run/postgresql';
  expect(sslPlan(socket).first).toBe(socket);
  const req = sslPlan(`${base}?sslmode=require`);
  expect([req.mode, q(req.first), req.fallback]).toEqual([
    'require',
    { sslmode: 'require', uselibpqcompat: 'true' },
    null,
  ]);
  const prefer = sslPlan(`${base}?sslmode=prefer`);
  expect([q(prefer.first), q(prefer.fallback!)]).toEqual([
    { sslmode: 'prefer', uselibpqcompat: 'true' },
    { sslmode: 'disable', uselibpqcompat: 'true' },
  ]);
  const allow = sslPlan(`${base}?sslmode=allow`);
  expect([q(allow.first).sslmode, q(allow.fallback!).sslmode]).toEqual(['disable', 'require']);
  expect(q(sslPlan(`${base}?sslmode=verify-full`).first)).toEqual({ sslmode: 'verify-full', uselibpqcompat: 'true' });
  // The user chose node-postgres' own reading explicitly: left as it is.
  expect(q(sslPlan(`${base}?sslmode=require&uselibpqcompat=false`).first)).toEqual({
    sslmode: 'require',
    uselibpqcompat: 'false',
  });
  // PGSSLMODE when the URL has none, as libpq reads it.
  expect(q(sslPlan(base, { PGSSLMODE: 'require' }).first).sslmode).toBe('require');
});

test('an unknown sslmode is a usage error naming it', () => {
  expect(() => sslPlan('postgres://ann@db.example/agentos?sslmode=no-such-mode')).toThrow(UsageError);
  expect(() => sslPlan('postgres://ann@db.example/agentos?sslmode=no-such-mode')).toThrow(
    /sslmode "no-such-mode" is not one of libpq's: disable, allow, prefer, require, verify-ca, verify-full/,
  );
  expect(() => sslPlan('postgres://a@h/d', { PGSSLMODE: 'yes' })).toThrow(/"yes"/);
  // An empty one is no mode at all, not the default.
  expect(() => sslPlan('postgres://ann@db.example/agentos?sslmode=')).toThrow(/sslmode is empty/);
});

test('a remote host without sslmode is warned about; this machine and a socket are not', () => {
  expect(plainTextWarning('postgres://ann:pw@db.example:5432/agentos')).toBe(
    "the store URL has no sslmode: the connection to db.example tries TLS without verifying the server and falls back to plain text (libpq's prefer); add ?sslmode=verify-full, or require",
  );
  expect(plainTextWarning('postgres://ann:pw@db.example/agentos?sslmode=verify-full')).toBeNull();
  expect(plainTextWarning('postgres://ann@localhost/agentos')).toBeNull();
  expect(plainTextWarning('postgres://ann@127.0.0.1:5432/agentos')).toBeNull();
  expect(plainTextWarning('postgres://ann@[::1]/agentos')).toBeNull();
  expect(plainTextWarning('postgres:///agentos?host=/var/run/postgresql')).toBeNull();
  expect(plainTextWarning('postgres://ann@db.example/agentos', { PGSSLMODE: 'require' })).toBeNull();
});

test('a shown URL never holds its password', () => {
  expect(maskUrl('postgres://ann:s3cret@db.example/agentos?password=also')).toBe(
    'postgres://ann:****@db.example/agentos?password=****',
  );
  expect(maskUrl('not a url with s3cret')).not.toContain('s3cret');
  // No scheme: `alice:` would parse as one, with the password in its path.
  for (const url of ['alice:pw@db/x', 'alice:s3cret@db.example:5432/agentos', 'mysql://ann:s3cret@db/x'])
    expect(maskUrl(url)).not.toMatch(/s3cret|pw@|alice/);
});

test("a URL's own `options` is refused: the driver would let it replace the session's search_path and DateStyle (issue 47)", () => {
  expect(() => sslPlan('postgres://alice:pw@db.example/agentos?options=-c%20search_path%3Devil')).toThrow(
    "the store URL's options parameter is not supported: agentos sets the session's own (search_path, DateStyle, lock_timeout)",
  );
});
