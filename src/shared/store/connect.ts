/**
 * One connection to the shared store (node-postgres), bounded in time: connecting and
 * every statement give up after `timeoutMs`. Failures become one StoreUnavailableError
 * line that says what went wrong and where, never with the password.
 */
import { createRequire } from 'node:module';
import type { Client as PgClient } from 'pg';
import { StoreUnavailableError, errorMessage } from '../errors.js';
import { target } from './url.js';

const require = createRequire(import.meta.url);

export type StoreClient = PgClient;

export async function connectStore(url: string, timeoutMs: number): Promise<StoreClient> {
  const { Client } = require('pg') as typeof import('pg');
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, statement_timeout: timeoutMs, query_timeout: timeoutMs + 1000, application_name: 'agentos' });
  // A server going away later must not crash the process: the query in flight reports it.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (e) {
    await client.end().catch(() => undefined);
    throw storeError(e, url, timeoutMs);
  }
  return client;
}

/** A driver or server error as one line naming the store (host, port, database) and the problem. */
export function storeError(e: unknown, url: string, timeoutMs: number): StoreUnavailableError {
  const where = target(url);
  const code = (e as { code?: string }).code;
  const message = errorMessage(e);
  if (e instanceof StoreUnavailableError) return e;
  if (code === 'ECONNREFUSED') return new StoreUnavailableError(`cannot reach the store at ${where} (connection refused): is the server running?`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new StoreUnavailableError(`cannot reach the store at ${where} (unknown host)`);
  if (code === '28P01' || code === '28000') return new StoreUnavailableError(`the store at ${where} refused the credentials (${code === '28P01' ? 'wrong password' : 'not allowed to connect'})`);
  if (code === '3D000') return new StoreUnavailableError(`the store at ${where} has no such database`);
  if (code === '57014' || /timeout|timed out/i.test(message)) return new StoreUnavailableError(`no answer from the store at ${where} within ${(timeoutMs / 1000).toFixed(1)} s`);
  // The driver's message can quote the connection string in some errors: never pass a password on.
  return new StoreUnavailableError(`the store at ${where} failed: ${message.replace(/postgres(ql)?:\/\/\S+/g, '<url>')}`);
}
