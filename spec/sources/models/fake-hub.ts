/**
 * A local stand-in for the Hugging Face hub: serves folders at `/<repo>/resolve/main/<file>` with
 * Content-Length, on 127.0.0.1 and a random port. Tests add routes that misbehave with `route`.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface FakeHub {
  endpoint: string;
  /** Paths requested since the last reset, in order. */
  requests: string[];
  /** Overrides one exact path (query string ignored). */
  route(urlPath: string, handler: Handler): void;
  /** Drops the overrides and the request log. */
  reset(): void;
  close(): Promise<void>;
}

/** Sends a buffer with Content-Length. */
export function sendBytes(res: http.ServerResponse, body: Buffer): void {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
  res.end(body);
}

export async function startFakeHub(repos: Readonly<Record<string, string>>): Promise<FakeHub> {
  const routes = new Map<string, Handler>();
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const urlPath = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    requests.push(urlPath);
    const override = routes.get(urlPath);
    if (override) return override(req, res);
    for (const [repo, dir] of Object.entries(repos)) {
      const prefix = `/${repo}/resolve/main/`;
      if (!urlPath.startsWith(prefix)) continue;
      const file = path.join(dir, ...urlPath.slice(prefix.length).split('/'));
      if (file.startsWith(dir + path.sep) && fs.existsSync(file) && fs.statSync(file).isFile()) {
        return sendBytes(res, fs.readFileSync(file));
      }
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('Entry not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    route: (urlPath, handler) => void routes.set(urlPath, handler),
    reset: () => {
      routes.clear();
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
