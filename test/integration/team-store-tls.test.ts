// SLOW: TLS to the team store as libpq does it (issue 47), against a real PostgreSQL with
// TLS on. pgserver's build (the other store tests) has no OpenSSL, so this one runs
// Debian's server (package postgresql-15, which .ci/run installs), with a self-signed
// certificate made here by openssl for localhost and 127.0.0.1, as the compose file
// makes its own. Only the connection is tested (Debian has no pgvector package here):
// the mode libpq would use, what each mode refuses, and no password in any message.
import { jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connectTeamStore } from '../../src/shared/team-store/connect.js';
import { runCli } from '../helpers/cli.js';
import { PG_PASSWORD, startPostgres, type TestPostgres } from '../helpers/postgres.js';

jest.setTimeout(120_000);

/** Debian's PostgreSQL server binaries, newest first, when installed. */
function debianPgbin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin', 'postgres')) && existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0], 'bin') : null;
}

const bin = debianPgbin();
// In CI the server must be there (.ci/run installs it): a TLS test skipped there would hide a regression.
const suite = bin || process.env.CI ? describe : describe.skip;

let tmp: string;
let cert: string;
let tls: TestPostgres;
let tlsOnly: TestPostgres;

/** Whether the session that runs this is encrypted, as the server says. */
async function encrypted(url: string): Promise<boolean> {
  const c = await connectTeamStore(url, 10_000);
  try {
    return (await c.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')).rows[0].ssl;
  } finally {
    await c.end();
  }
}

suite('TLS to the team store, as libpq (issue 47)', () => {
  beforeAll(async () => {
    if (!bin)
      throw new Error(
        'no Debian PostgreSQL server under /usr/lib/postgresql (apt-get install postgresql-15): .ci/run installs it',
      );
    tmp = await mkdtemp(path.join(os.tmpdir(), 'agentos-tls-'));
    cert = path.join(tmp, 'server.crt');
    const key = path.join(tmp, 'server.key');
    execFileSync(
      'openssl',
      [
        'req',
        '-new',
        '-x509',
        '-days',
        '2',
        '-nodes',
        '-newkey',
        'rsa:2048',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    tls = await startPostgres({ pgbin: bin, tls: { cert, key } });
    tlsOnly = await startPostgres({ pgbin: bin, tls: { cert, key, only: true } });
  });

  afterAll(async () => {
    tls?.stop();
    tlsOnly?.stop();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  test("no sslmode is libpq's prefer: TLS when the server speaks it, and a server that requires TLS is reached", async () => {
    expect(await encrypted(tls.url)).toBe(true);
    expect(await encrypted(tlsOnly.url)).toBe(true);
    expect(await encrypted(`${tlsOnly.url}?sslmode=require`)).toBe(true);
    // disable is plain text: the TLS-only server refuses it, in one line without the password.
    const refused = await connectTeamStore(`${tlsOnly.url}?sslmode=disable`, 10_000).then(
      (c) => c.end().then(() => 'connected'),
      (e: Error) => e.message,
    );
    expect(refused).toMatch(
      /the store at 127\.0\.0\.1:\d+\/postgres refused the credentials \(not allowed to connect\)/,
    );
    expect(refused).not.toContain(PG_PASSWORD);
    expect(await encrypted(`${tls.url}?sslmode=disable`)).toBe(false);
  });

  test('verify-full verifies: with the certificate as its root it connects; without, a self-signed server is refused by name', async () => {
    expect(await encrypted(`${tlsOnly.url}?sslmode=verify-full&sslrootcert=${encodeURIComponent(cert)}`)).toBe(true);
    const byName = tlsOnly.url.replace('127.0.0.1', 'localhost');
    expect(await encrypted(`${byName}?sslmode=verify-full&sslrootcert=${encodeURIComponent(cert)}`)).toBe(true);
    const unverified = await connectTeamStore(`${tlsOnly.url}?sslmode=verify-full`, 10_000).then(
      (c) => c.end().then(() => 'connected'),
      (e: Error) => e.message,
    );
    expect(unverified).toMatch(/^the store at 127\.0\.0\.1:\d+\/postgres failed: .*(?:self[- ]signed|certificate)/i);
    expect(unverified).not.toContain(PG_PASSWORD);
  });

  test('the CLI reaches a TLS-only store with a URL that names no sslmode', async () => {
    // No schema yet: the answer is the store's own (run store init), which only a connection gets.
    const r = await runCli(['store', 'status'], { env: { AGENTOS_DATABASE_URL: tlsOnly.url } });
    expect(`${r.stdout}${r.stderr}`).toMatch(/no agentos schema yet|store init/);
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/not allowed to connect|refused/);
    expect(`${r.stdout}${r.stderr}`).not.toContain(PG_PASSWORD);
    // It says what the session is: encrypted, the server not verified (prefer); verified under verify-full.
    expect(r.stdout).toMatch(/^Connection: TLSv1\.[23], server not verified \(sslmode prefer\)$/m);
    const verified = await runCli(['store', 'status', '--json'], {
      env: { AGENTOS_DATABASE_URL: `${tlsOnly.url}?sslmode=verify-full&sslrootcert=${encodeURIComponent(cert)}` },
    });
    expect(JSON.parse(verified.stdout).connection).toEqual({
      tls: expect.stringMatching(/^TLSv1\.[23]$/),
      sslmode: 'verify-full',
    });
    const plain = await runCli(['store', 'status'], { env: { AGENTOS_DATABASE_URL: `${tls.url}?sslmode=disable` } });
    expect(plain.stdout).toMatch(/^Connection: plain text \(sslmode disable\)$/m);
  });
});
