import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/**
 * A stand-in for the Hugging Face hub on 127.0.0.1: serves
 * `/<owner>/<name>/resolve/<revision>/<file>` from `root/<owner>/<name>/<file>`
 * (the hub itself is unreachable from here). `override` can answer a path
 * differently (a status code, or a body) to play a broken or tampered hub.
 */
export async function startHub(root: string, override: (file: string) => number | Buffer | null = () => null) {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = decodeURIComponent(req.url ?? '');
    requests.push(url);
    const m = /^\/([^/]+\/[^/]+)\/resolve\/[^/]+\/(.+)$/.exec(url);
    if (!m) return void res.writeHead(404).end();
    const o = override(m[2]);
    if (typeof o === 'number') return void res.writeHead(o).end();
    if (o) return void res.writeHead(200, { 'content-length': o.length }).end(o);
    const file = path.join(root, m[1], m[2]);
    if (!existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
