/**
 * Where the shared team store is: AGENTOS_DATABASE_URL, else `store.url` in the
 * config. Credentials come only from that URL, the PG* environment or PGPASSFILE
 * (node-postgres reads them); a URL is never printed or logged with its password.
 */
import type { Config } from '../config/schema.js';
import { UsageError } from '../errors.js';

export function storeUrl(env: NodeJS.ProcessEnv, config: Config): string | null {
  const fromEnv = env.AGENTOS_DATABASE_URL?.trim();
  if (fromEnv && !/^postgres(ql)?:\/\//.test(fromEnv)) throw new UsageError('AGENTOS_DATABASE_URL: expected a postgres:// or postgresql:// URL');
  return fromEnv ? fromEnv : config.store.url;
}

/** A store URL is set. A malformed one counts: whatever uses the store then says what is wrong with it. */
export function storeConfigured(env: NodeJS.ProcessEnv, config: Config): boolean {
  try {
    return storeUrl(env, config) !== null;
  } catch {
    return true;
  }
}

/** The URL as it may be shown: the password (and any password= parameter) replaced by ****. */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '****';
    for (const key of [...u.searchParams.keys()]) if (/pass/i.test(key)) u.searchParams.set(key, '****');
    return u.toString();
  } catch {
    // Not a URL we can parse: show only its scheme, never its content.
    return `${url.split(':')[0] || 'postgres'}://…`;
  }
}

/** Host and port (or socket folder) and database, for messages: no user, no password. */
export function target(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname || u.searchParams.get('host') || 'localhost';
    return `${host}${u.port ? `:${u.port}` : ''}${u.pathname && u.pathname !== '/' ? u.pathname : ''}`;
  } catch {
    return 'the store';
  }
}
