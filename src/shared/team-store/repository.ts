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
  if (config.store.repository) return normaliseRepositoryName(config.store.repository);
  const remote = originUrl(root);
  if (remote) return normaliseRepositoryName(remote);
  throw new UsageError(
    'the team store needs a name for this repository: it has no git remote "origin"; set store.repository in .agentos/config.yaml',
  );
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

// Invisible and control characters: zero-width spaces and joiners, bidirectional controls, soft hyphens, BOMs.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * A repository's name as the store keeps it (issue 47): Unicode NFKC, no invisible or control
 * characters, the host lower-case. `github.com/acme/b\u200b` and `GitHub.com/acme/b` are then
 * `github.com/acme/b`: a look-alike cannot stand beside the name it imitates.
 */
export function normaliseRepositoryName(name: string): string {
  const n = name.normalize('NFKC').replace(INVISIBLE, '').trim();
  const slash = n.indexOf('/');
  return slash < 0 ? n.toLowerCase() : n.slice(0, slash).toLowerCase() + n.slice(slash);
}

/** Whether a name read from the store is one the store keeps (rows from before version 5, or written by hand, may not be). */
export const isNormalRepositoryName = (name: string): boolean => name !== '' && normaliseRepositoryName(name) === name;
