import { spawnSync } from 'node:child_process';
import type { Config } from '../config/schema.js';
import { UsageError } from '../errors.js';

/**
 * This repository's name in the team store: `store.repository`, else its git remote
 * `origin` as git itself reads it (worktrees and subfolders included), as host/path
 * with no user, no password, no `.git`. Never a folder name: two unrelated folders
 * called "api" would share a namespace, and each sync would delete the other's
 * documents.
 */
export function repositoryName(root: string, config: Config): string {
  if (config.store.repository) return config.store.repository;
  const remote = originUrl(root);
  if (remote) return remote;
  throw new UsageError('the team store needs a name for this repository: it has no git remote "origin"; set store.repository in .agentos/config.yaml');
}

function originUrl(root: string): string | null {
  const r = spawnSync('git', ['config', '--get', 'remote.origin.url'], { cwd: root, encoding: 'utf8', timeout: 5000 });
  const url = r.status === 0 ? r.stdout.trim() : '';
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
      name = url.replace(/^[^@]*@/, '');
    }
  }
  return name.replace(/\.git$/, '').replace(/\/+$/, '');
}
