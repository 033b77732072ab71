/**
 * Web addresses of commits and pull requests, from the repository's remote. The
 * remote URL may carry credentials (`https://user:token@host/…`): only the host and
 * the path are ever kept.
 */
export interface WebRepo {
  host: 'github' | 'gitlab' | 'bitbucket' | 'other';
  /** `https://host/owner/name`, no credentials, no `.git`. */
  base: string;
}

export function webRepo(remoteUrl: string): WebRepo | null {
  const url = remoteUrl.trim();
  let host: string;
  let repoPath: string;
  const scp = /^(?:[\w.-]+@)?([\w.-]+):(?!\/\/)(.+)$/.exec(url); // git@github.com:o/r.git
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return null;
    }
    if (!['https:', 'http:', 'ssh:', 'git:', 'git+ssh:', 'ssh+git:'].includes(u.protocol)) return null;
    host = u.hostname;
    repoPath = u.pathname;
  } else if (scp) {
    host = scp[1];
    repoPath = scp[2];
  } else {
    return null;
  }
  repoPath = repoPath
    .replace(/^\/+/, '')
    .replace(/\.git\/?$/, '')
    .replace(/\/+$/, '');
  if (!/^[\w.-]+(?:\/[\w.-]+)+$/.test(repoPath) || !/^[\w.-]+$/.test(host)) return null;
  const kind = /(^|\.)github\.com$/i.test(host)
    ? 'github'
    : /gitlab/i.test(host)
      ? 'gitlab'
      : /(^|\.)bitbucket\.org$/i.test(host)
        ? 'bitbucket'
        : 'other';
  return { host: kind, base: `https://${host.toLowerCase()}/${repoPath}` };
}

export function commitUrl(r: WebRepo | null, sha: string): string | null {
  if (!r) return null;
  if (r.host === 'github') return `${r.base}/commit/${sha}`;
  if (r.host === 'gitlab') return `${r.base}/-/commit/${sha}`;
  if (r.host === 'bitbucket') return `${r.base}/commits/${sha}`;
  return null;
}

export function pullRequestUrl(r: WebRepo | null, n: string): string | null {
  if (!r) return null;
  if (r.host === 'github') return `${r.base}/pull/${n}`;
  if (r.host === 'gitlab') return `${r.base}/-/merge_requests/${n}`;
  if (r.host === 'bitbucket') return `${r.base}/pull-requests/${n}`;
  return null;
}
