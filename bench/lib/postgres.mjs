// A throwaway PostgreSQL with pgvector for the store benchmark, from the same registry
// package as the tests (scripts/provision-postgres.sh: PyPI pgserver, PostgreSQL 16.2 +
// pgvector 0.6.2). test/helpers/postgres.ts is the tests' twin (TypeScript, password auth);
// this one trusts local connections over a unix socket and takes server settings, since a
// benchmark tunes memory for an index build. As root, the server runs as `nobody`.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO } from './common.mjs';

export function startBenchPostgres(settings = {}) {
  const bin = execFileSync('bash', [path.join(REPO, 'scripts', 'provision-postgres.sh')], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop();
  const base = mkdtempSync(path.join(os.tmpdir(), 'agentos-bench-pg-'));
  const data = path.join(base, 'data');
  const sock = path.join(base, 'sock');
  const asRoot = process.getuid?.() === 0;
  const as = (cmd, args) => (asRoot ? ['runuser', ['-u', 'nobody', '--', cmd, ...args]] : [cmd, args]);
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }));
    chownSync(base, uid, gid);
  }
  const run = (cmd, args) => {
    const [c, a] = as(path.join(bin, cmd), args);
    const r = spawnSync(c, a, { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
  };
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale']);
  mkdirSync(sock);
  if (asRoot) execFileSync('chown', ['nobody', sock]);
  const opts = [
    `-c listen_addresses=''`,
    `-k ${sock}`,
    '-c fsync=off',
    ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`),
  ].join(' ');
  run('pg_ctl', ['-D', data, '-l', path.join(base, 'server.log'), '-w', '-t', '60', '-o', opts, 'start']);
  return {
    // node-postgres reads a socket folder as the host.
    url: `postgres://postgres@localhost/postgres?host=${encodeURIComponent(sock)}`,
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    },
  };
}
