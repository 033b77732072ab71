/**
 * Where the team store is: AGENTOS_DATABASE_URL, else `store.url` in the
 * config. Credentials come only from that URL, the PG* environment or PGPASSFILE
 * (node-postgres reads them); a URL is never printed or logged with its password.
 */
import type { Config } from '../config/schema.js';
import { UsageError } from '../errors.js';

export function storeUrl(env: NodeJS.ProcessEnv, config: Config): string | null {
  const fromEnv = env.AGENTOS_DATABASE_URL?.trim();
  if (fromEnv && !/^postgres(ql)?:\/\//.test(fromEnv))
    throw new UsageError('AGENTOS_DATABASE_URL: expected a postgres:// or postgresql:// URL');
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
    // `alice:pw@db/x` (no scheme) parses as scheme `alice:` with `pw@db/x` as its path: nothing of it is shown.
    if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') return 'not a postgres:// URL (not shown)';
    if (u.password) u.password = '****';
    for (const key of [...u.searchParams.keys()]) if (/pass/i.test(key)) u.searchParams.set(key, '****');
    return u.toString();
  } catch {
    // Not a URL we can parse: show only its scheme, never its content.
    const scheme = url.split(':')[0];
    return `${/^[a-z][a-z0-9+.-]{0,20}$/i.test(scheme) ? scheme : 'postgres'}://…`;
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

/** libpq's sslmode values, weakest first (https://www.postgresql.org/docs/current/libpq-ssl.html). */
export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** How to connect so that `sslmode` means what it means in libpq: the URL to try, then the one to fall back to. */
export interface SslPlan {
  mode: SslMode | null;
  /** The URL node-postgres is given first. */
  first: string;
  /** prefer/allow: the other way, when the first fails because the server does (not) speak TLS. */
  fallback: string | null;
}

/** libpq's default when neither the URL nor PGSSLMODE names a mode. */
export const DEFAULT_SSL_MODE: SslMode = 'prefer';

/**
 * node-postgres reads `sslmode=require` as verify-full, accepts any value and, with none,
 * connects in plain text; libpq's table is the one users know. The mode comes from the URL,
 * else PGSSLMODE, else libpq's default `prefer`. An unknown or empty value is a usage error
 * naming it. `prefer` tries TLS without verifying and falls back to plain text; `allow` the
 * other way round; `require` encrypts without verifying (with sslrootcert, it verifies the CA
 * as libpq does); `verify-ca`/`verify-full` verify. A Unix socket never speaks TLS: plain.
 */
export function sslPlan(url: string, env: NodeJS.ProcessEnv = {}): SslPlan {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { mode: null, first: url, fallback: null };
  }
  // The driver lets a URL's `options` replace the session settings agentos relies on (search_path, DateStyle).
  if (u.searchParams.has('options'))
    throw new UsageError(
      "the store URL's options parameter is not supported: agentos sets the session's own (search_path, DateStyle, lock_timeout)",
    );
  const given = u.searchParams.has('sslmode') ? u.searchParams.get('sslmode')! : (env.PGSSLMODE ?? null);
  if (given !== null && given.trim() === '')
    throw new UsageError(
      `the store URL's sslmode is empty: give one of libpq's (${SSL_MODES.join(', ')}), or leave it out for ${DEFAULT_SSL_MODE}`,
    );
  const raw = given?.trim() ?? DEFAULT_SSL_MODE;
  if (!(SSL_MODES as readonly string[]).includes(raw))
    throw new UsageError(
      `the store URL's sslmode "${raw.slice(0, 40)}" is not one of libpq's: ${SSL_MODES.join(', ')}`,
    );
  // libpq over a Unix socket: no TLS, whatever the mode (as libpq, which ignores sslmode there).
  if (hostOf(u, env).startsWith('/')) return { mode: raw as SslMode, first: url, fallback: null };
  const mode = raw as SslMode;
  const withMode = (m: SslMode) => {
    const v = new URL(u.toString());
    v.searchParams.set('sslmode', m);
    // libpq's meaning, unless the user chose node-postgres' own explicitly.
    if (!v.searchParams.has('uselibpqcompat')) v.searchParams.set('uselibpqcompat', 'true');
    return v.toString();
  };
  if (mode === 'allow') return { mode, first: withMode('disable'), fallback: withMode('require') };
  if (mode === 'prefer') return { mode, first: withMode('prefer'), fallback: withMode('disable') };
  return { mode, first: withMode(mode), fallback: null };
}

/** A URL to a host other than this machine with no sslmode: its traffic, password included, may cross a network in clear. */
export function plainTextWarning(url: string, env: NodeJS.ProcessEnv = {}): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.searchParams.get('sslmode') || env.PGSSLMODE) return null;
  const host = hostOf(u, env);
  const local = host === 'localhost' || host.startsWith('/') || /^127\./.test(host) || host === '::1';
  return local
    ? null
    : `the store URL has no sslmode: the connection to ${host} tries TLS without verifying the server and falls back to plain text (libpq's prefer); add ?sslmode=verify-full, or require`;
}

/** The host a URL connects to as libpq finds it: the URL's, its `host=` (a socket folder), PGHOST, else localhost; an IPv6 one without brackets. */
function hostOf(u: URL, env: NodeJS.ProcessEnv): string {
  return (u.hostname || u.searchParams.get('host') || env.PGHOST || 'localhost').replace(/^\[|\]$/g, '');
}
