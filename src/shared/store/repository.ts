import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';

/**
 * This repository's name in the shared store: `store.repository`, else its git
 * remote `origin` (host and path, no user, no password, no `.git`), else its folder
 * name. Matches from another repository are shown with this name.
 */
export function repositoryName(root: string, config: Config): string {
  if (config.store.repository) return config.store.repository;
  const remote = originUrl(root);
  if (remote) return remote;
  return path.basename(path.resolve(root));
}

function originUrl(root: string): string | null {
  let text: string;
  try {
    text = readFileSync(path.join(root, '.git', 'config'), 'utf8');
  } catch {
    return null;
  }
  const section = /\[remote "origin"\]([^[]*)/.exec(text)?.[1];
  const url = section && /^\s*url\s*=\s*(\S+)\s*$/m.exec(section)?.[1];
  if (!url) return null;
  // git@github.com:acme/payments.git, https://user:token@github.com/acme/payments.git -> github.com/acme/payments
  const scp = /^[\w.-]+@([\w.-]+):(.+)$/.exec(url);
  let name: string;
  if (scp) name = `${scp[1]}/${scp[2]}`;
  else {
    try {
      const u = new URL(url);
      name = `${u.host}${u.pathname}`;
    } catch {
      name = url;
    }
  }
  return name.replace(/\.git$/, '').replace(/\/+$/, '');
}
