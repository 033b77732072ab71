/**
 * The few GitHub REST calls `agentos ci github` makes (docs.github.com/rest: issue comments,
 * labels, pull request files), with the Actions token. `GITHUB_API_URL` is the runner's (GitHub
 * Enterprise Server too) and, in the tests, a local server that records the calls.
 * A refusal is one line naming the call, GitHub's message and what permission the workflow needs;
 * the token never appears in it.
 */
import { ExitCode, ExitError } from '../../../shared/errors.js';
import { oneLine } from '../../../shared/sanitize.js';

export interface IssueComment {
  id: number;
  body: string;
}

/** Most comments read when looking for ours (100 a page): an issue with more is a discussion, not a new issue. */
const MAX_COMMENT_PAGES = 10;
const MAX_FILE_PAGES = 30;

export class GitHubApi {
  constructor(
    private readonly base: string,
    private readonly token: string,
    private readonly repo: string,
    /** Only comments by this login are agentos' own: anyone may post a comment that starts with its marker. */
    private readonly botLogin: string,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  private async call(
    method: string,
    path: string,
    what: string,
    permission: string,
    body?: unknown,
    absentIsDone = false,
  ): Promise<unknown> {
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.base.replace(/\/+$/, '')}${path}`, {
        method,
        headers: {
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${this.token}`,
          'x-github-api-version': '2022-11-28',
          'user-agent': 'agentos',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (e) {
      throw new ExitError(
        `GitHub could not be reached to ${what} (${oneLine((e as Error).message, 200)})`,
        ExitCode.TrackerRefused,
      );
    }
    const text = await res.text();
    if (res.status === 404 && absentIsDone) return null;
    if (!res.ok) {
      let message = '';
      try {
        message = String((JSON.parse(text) as { message?: unknown }).message ?? '');
      } catch {
        message = text;
      }
      const limited =
        res.status === 429 ||
        (res.status === 403 && (res.headers.get('x-ratelimit-remaining') === '0' || /rate limit/i.test(message)));
      const hint = limited
        ? `; rate limited${res.headers.get('x-ratelimit-reset') ? ` until ${new Date(Number(res.headers.get('x-ratelimit-reset')) * 1000).toISOString()}` : ''}`
        : res.status === 401 || res.status === 403 || res.status === 404
          ? `; the workflow's token needs \`permissions: ${permission}\``
          : '';
      throw new ExitError(
        `GitHub refused to ${what} (${res.status} ${oneLine(message, 200).replaceAll(this.token, '***')})${hint}`,
        ExitCode.TrackerRefused,
      );
    }
    return text ? JSON.parse(text) : null;
  }

  /** Our comment among the issue's (the first by the bot's login that starts with `marker`), or null. */
  async findComment(issue: number, marker: string): Promise<IssueComment | null> {
    for (let page = 1; page <= MAX_COMMENT_PAGES; page++) {
      const list = (await this.call(
        'GET',
        `/repos/${this.repo}/issues/${issue}/comments?per_page=100&page=${page}`,
        `read the comments of #${issue}`,
        'issues: read',
      )) as Array<{
        id?: unknown;
        body?: unknown;
        user?: { type?: unknown; login?: unknown } | null;
      }>;
      if (!Array.isArray(list)) return null;
      for (const c of list) {
        if (
          typeof c.id === 'number' &&
          typeof c.body === 'string' &&
          c.body.startsWith(marker) &&
          c.user?.login === this.botLogin
        )
          return { id: c.id, body: c.body };
      }
      if (list.length < 100) return null;
    }
    return null;
  }

  async createComment(issue: number, body: string): Promise<number> {
    const r = (await this.call(
      'POST',
      `/repos/${this.repo}/issues/${issue}/comments`,
      `comment on #${issue}`,
      'issues: write',
      { body },
    )) as { id?: unknown };
    return typeof r?.id === 'number' ? r.id : 0;
  }

  async updateComment(id: number, body: string): Promise<void> {
    await this.call('PATCH', `/repos/${this.repo}/issues/comments/${id}`, `edit comment ${id}`, 'issues: write', {
      body,
    });
  }

  async addLabel(issue: number, label: string): Promise<void> {
    await this.call(
      'POST',
      `/repos/${this.repo}/issues/${issue}/labels`,
      `label #${issue} "${label}"`,
      'issues: write',
      { labels: [label] },
    );
  }

  /** Takes the label off (GitHub answers 404 when it is not on the issue: already done). */
  async removeLabel(issue: number, label: string): Promise<void> {
    await this.call(
      'DELETE',
      `/repos/${this.repo}/issues/${issue}/labels/${encodeURIComponent(label)}`,
      `remove the label "${label}" from #${issue}`,
      'issues: write',
      undefined,
      true,
    );
  }

  /** Paths a pull request adds or changes (removed files have nothing to check). */
  async pullRequestFiles(pr: number): Promise<string[]> {
    const out: string[] = [];
    for (let page = 1; page <= MAX_FILE_PAGES; page++) {
      const list = (await this.call(
        'GET',
        `/repos/${this.repo}/pulls/${pr}/files?per_page=100&page=${page}`,
        `list the files of pull request #${pr}`,
        'pull-requests: read',
      )) as Array<{
        filename?: unknown;
        status?: unknown;
      }>;
      if (!Array.isArray(list)) break;
      for (const f of list) if (typeof f.filename === 'string' && f.status !== 'removed') out.push(f.filename);
      if (list.length < 100) break;
    }
    return out;
  }
}
