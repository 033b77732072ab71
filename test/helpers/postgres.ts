/**
 * A real PostgreSQL server with pgvector for the shared-store tests, from the PyPI
 * wheel pgserver (scripts/provision-postgres.sh), on 127.0.0.1 at a free port, with
 * password authentication over TCP. initdb and postgres refuse to run as root: as
 * root they run as `nobody`, their folders handed to it. `stop()` ends it cleanly,
 * `kill()` the way a crash would (immediate shutdown).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { REPO } from './paths.js';

const require = createRequire(import.meta.url);

export const PG_PASSWORD = 'agentos-test-secret-7f3a';

export interface TestPostgres {
  url: string;
  host: string;
  port: number;
  pgbin: string;
  /** A URL with another password (the server must refuse it). */
  wrongPasswordUrl: string;
  stop(): void;
  kill(): void;
  start(): void;
  /** The command line that kills the server the way a crash would (for a child process to run). */
  killCommand: string[];
}

export function pgbin(): string {
  if (process.env.AGENTOS_TEST_PGBIN) return process.env.AGENTOS_TEST_PGBIN;
  const out = execFileSync('bash', [path.join(REPO, 'scripts', 'provision-postgres.sh')], { encoding: 'utf8' });
  return out.trim().split('\n').pop()!;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A server certificate and key (PEM files) to start the server with TLS on; `only`: refuse connections without TLS (hostssl). */
export interface TestTls {
  cert: string;
  key: string;
  only?: boolean;
}

/**
 * `pgbin`: another installation's bin folder (a copy without pgvector, to test a server that lacks it,
 * or Debian's, built with OpenSSL, for TLS: pgserver's build has none). `tls`: TLS on.
 */
export async function startPostgres(opts: { pgbin?: string; tls?: TestTls } = {}): Promise<TestPostgres> {
  const bin = opts.pgbin ?? pgbin();
  const base = mkdtempSync(path.join(os.tmpdir(), 'agentos-pg-'));
  const data = path.join(base, 'data');
  const sock = path.join(base, 'sock');
  const pwfile = path.join(base, 'pw');
  writeFileSync(pwfile, PG_PASSWORD + '\n');
  const asRoot = process.getuid?.() === 0;
  const as = (cmd: string, args: string[]) =>
    (asRoot ? ['runuser', ['-u', 'nobody', '--', cmd, ...args]] : [cmd, args]) as [string, string[]];
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }));
    chownSync(base, uid, gid);
    chownSync(pwfile, uid, gid);
  }
  const run = (cmd: string, args: string[]) => {
    const [c, a] = as(path.join(bin, cmd), args);
    const r = spawnSync(c, a, { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
  };
  run('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    `--pwfile=${pwfile}`,
    '-E',
    'UTF8',
    '--no-locale',
  ]);
  mkdirSync(sock);
  if (asRoot) execFileSync('chown', ['nobody', sock]);
  let tlsOptions = '';
  if (opts.tls) {
    // The server reads its key only when no one else may (0600, its own).
    for (const [from, to] of [
      [opts.tls.cert, 'server.crt'],
      [opts.tls.key, 'server.key'],
    ]) {
      writeFileSync(path.join(data, to), readFileSync(from), { mode: 0o600 });
      if (asRoot) execFileSync('chown', ['nobody', path.join(data, to)]);
    }
    tlsOptions = ' -c ssl=on -c ssl_cert_file=server.crt -c ssl_key_file=server.key';
    if (opts.tls.only) {
      const hba = path.join(data, 'pg_hba.conf');
      writeFileSync(hba, readFileSync(hba, 'utf8').replace(/^host(\s)/gm, 'hostssl$1'));
    }
  }
  const port = await freePort();
  const start = () =>
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      path.join(base, 'server.log'),
      '-w',
      '-t',
      '30',
      '-o',
      `-h 127.0.0.1 -p ${port} -k ${sock} -c fsync=off${tlsOptions}`,
      'start',
    ]);
  start();
  const url = `postgres://postgres:${PG_PASSWORD}@127.0.0.1:${port}/postgres`;
  return {
    url,
    host: '127.0.0.1',
    port,
    pgbin: bin,
    wrongPasswordUrl: `postgres://postgres:not-the-password@127.0.0.1:${port}/postgres`,
    start,
    stop: () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } catch {
        // already down (a test killed it): nothing to stop
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    },
    kill: () => run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']),
    killCommand: as(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']).flat(),
  };
}

/** One statement against a test server (its own connection, closed after). */
export async function sqlAt<T>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const { Client } = require('pg') as typeof import('pg');
  // As agentos connects: the store's own schema first on the path (version 4 on), public (pgvector's type) after.
  const c = new Client({ connectionString: url, options: '-c search_path=agentos,public' });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** A person's own password on the test server (each person is a login role, issue 30). */
export const PERSON_PASSWORD = 'agentos-person-secret-51c2';

/**
 * The URL a teammate connects with: their own login role, created on first use in the
 * group `agentos_writer` (or `agentos_reader`) that `store init` made. The role's name
 * is who they are on the server: the author of what they record.
 */
export function personUrl(
  pg: TestPostgres,
  name: string,
  group: 'agentos_writer' | 'agentos_reader' | 'agentos_admin' = 'agentos_writer',
): Promise<string> {
  // Once per server and person: processes started together share the one CREATE ROLE (and a server stopped later still has the URL).
  const key = `${pg.port}/${name}`;
  let made = people.get(key);
  if (!made) {
    const quoted = `"${name.replace(/"/g, '""')}"`;
    made = sqlAt(pg.url, `CREATE ROLE ${quoted} LOGIN PASSWORD '${PERSON_PASSWORD}' IN ROLE ${group}`).then(
      () => `postgres://${encodeURIComponent(name)}:${PERSON_PASSWORD}@${pg.host}:${pg.port}/postgres`,
    );
    people.set(key, made);
  }
  return made;
}
const people = new Map<string, Promise<string>>();
