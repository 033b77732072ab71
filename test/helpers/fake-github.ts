/**
 * A local stand-in for the GitHub REST endpoints `agentos ci github` calls, in the shapes of
 * docs.github.com/rest (test/fixtures/github/README.md). It keeps issue comments and labels
 * per issue and records every call, so a test can say "one comment created, then the same one
 * edited". `refuse` answers every write with GitHub's 403 for a token without the permission.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeGitHub {
  url: string;
  calls: Array<{ method: string; path: string; body: unknown; auth: string | undefined }>;
  comments: Map<number, Array<{ id: number; body: string; user: { login: string; type: string } }>>;
  labels: Map<number, string[]>;
  /** Files of a pull request, as `GET /pulls/{n}/files` lists them. */
  prFiles: Map<number, Array<{ filename: string; status: string }>>;
  refuse: boolean;
  close(): Promise<void>;
}

export async function fakeGitHub(repo: string): Promise<FakeGitHub> {
  let nextId = 9000;
  const state: Omit<FakeGitHub, 'url' | 'close'> = {
    calls: [],
    comments: new Map(),
    labels: new Map(),
    prFiles: new Map(),
    refuse: false,
  };
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    for await (const c of req) raw += c;
    const body = raw ? JSON.parse(raw) : null;
    const url = new URL(req.url ?? '/', 'http://x');
    state.calls.push({ method: req.method ?? '', path: url.pathname, body, auth: req.headers.authorization });
    const prefix = `/repos/${repo}`;
    if (!url.pathname.startsWith(prefix)) return send(res, 404, { message: 'Not Found' });
    const p = url.pathname.slice(prefix.length);
    if (req.method !== 'GET' && state.refuse)
      return send(res, 403, {
        message: 'Resource not accessible by integration',
        documentation_url: 'https://docs.github.com/rest',
      });
    let m: RegExpExecArray | null;
    if ((m = /^\/issues\/(\d+)\/comments$/.exec(p))) {
      const n = Number(m[1]);
      const list = state.comments.get(n) ?? [];
      if (req.method === 'GET') {
        const page = Number(url.searchParams.get('page') ?? 1);
        const per = Number(url.searchParams.get('per_page') ?? 30);
        return send(res, 200, list.slice((page - 1) * per, page * per));
      }
      const c = { id: nextId++, body: String(body?.body ?? ''), user: { login: 'github-actions[bot]', type: 'Bot' } };
      state.comments.set(n, [...list, c]);
      return send(res, 201, c);
    }
    if ((m = /^\/issues\/comments\/(\d+)$/.exec(p)) && req.method === 'PATCH') {
      for (const list of state.comments.values()) {
        const c = list.find((x) => x.id === Number(m![1]));
        if (c) {
          c.body = String(body?.body ?? '');
          return send(res, 200, c);
        }
      }
      return send(res, 404, { message: 'Not Found' });
    }
    if ((m = /^\/issues\/(\d+)\/labels$/.exec(p)) && req.method === 'POST') {
      const n = Number(m[1]);
      const labels = [...new Set([...(state.labels.get(n) ?? []), ...((body?.labels as string[]) ?? [])])];
      state.labels.set(n, labels);
      return send(
        res,
        200,
        labels.map((name) => ({ name })),
      );
    }
    if ((m = /^\/issues\/(\d+)\/labels\/([^/]+)$/.exec(p)) && req.method === 'DELETE') {
      // docs.github.com/rest/issues/labels "Remove a label from an issue": 200 with the labels left, 404 when it is not on the issue.
      const n = Number(m[1]);
      const name = decodeURIComponent(m[2]);
      const labels = state.labels.get(n) ?? [];
      if (!labels.some((l) => l.toLowerCase() === name.toLowerCase()))
        return send(res, 404, { message: 'Label does not exist' });
      const left = labels.filter((l) => l.toLowerCase() !== name.toLowerCase());
      state.labels.set(n, left);
      return send(
        res,
        200,
        left.map((l) => ({ name: l })),
      );
    }
    if ((m = /^\/pulls\/(\d+)\/files$/.exec(p)) && req.method === 'GET') {
      const page = Number(url.searchParams.get('page') ?? 1);
      return send(res, 200, (state.prFiles.get(Number(m[1])) ?? []).slice((page - 1) * 100, page * 100));
    }
    return send(res, 404, { message: 'Not Found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
}
