/**
 * The HTTP side of `recall view` (node:http, no framework): bound to 127.0.0.1 only, every request
 * must carry the run's random token (`?t=…`, compared in constant time) and a Host header naming
 * this server (a page on another site that points its own DNS name at 127.0.0.1 sends its name, so
 * DNS rebinding gets a 403 too). Responses are HTML with a Content-Security-Policy that allows no
 * source but this response's own style and script (by nonce), no framing, no referrer, no caching.
 * Only GET and HEAD are served; nothing here writes to the state dir or the KB.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { errorMessage } from '../../core/errors.js';
import { showNote, type KbOptions } from '../../pipeline/notes/index.js';
import type { RunIo } from '../../pipeline/run.js';
import { loadViewData } from './data.js';
import { esc, type PageCtx } from './html.js';
import { daysPage, notePage, sessionsPage, type NoteText } from './pages.js';
import { runSearch, searchPage } from './search.js';

export interface ViewServerOptions {
  stateDir: string;
  kb: KbOptions;
  io: RunIo;
  /** 0 = any free port. */
  port: number;
  /** The token (tests pass one; by default 24 random bytes). */
  token?: string;
}

export interface ViewServer {
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Constant-time comparison of the token given with the run's (hashing first makes the lengths equal). */
export function tokenMatches(given: string | null, token: string): boolean {
  return given !== null && timingSafeEqual(digest(given), digest(token));
}

/** Whether a Host header names this server (127.0.0.1 or localhost, on its port). */
export function hostAllowed(host: string | undefined, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

function securityHeaders(nonce: string): Record<string, string> {
  return {
    'Content-Security-Policy': `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

function send(res: http.ServerResponse, status: number, body: string, nonce: string, head: boolean): void {
  res.writeHead(status, {
    'Content-Type': status === 200 ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8',
    ...securityHeaders(nonce),
  });
  res.end(head ? undefined : body);
}

function readNote(id: string, opts: ViewServerOptions): NoteText {
  try {
    const n = showNote(id, opts.kb, { env: opts.io.env, cwd: opts.io.cwd, warn: () => undefined });
    const state = n.location !== 'documents' ? n.location : n.superseded_by ? `superseded by ${n.superseded_by}` : '';
    return { title: n.title, path: n.path, keyInsight: n.key_insight, howToApply: n.how_to_apply, body: n.body, state };
  } catch (err) {
    return { error: `not in this view's KB: ${errorMessage(err)}` };
  }
}

async function route(url: URL, opts: ViewServerOptions, ctx: PageCtx): Promise<{ status: number; body: string }> {
  const data = (): ReturnType<typeof loadViewData> => loadViewData(opts.stateDir);
  switch (url.pathname) {
    case '/':
      return { status: 200, body: sessionsPage(ctx, data()) };
    case '/days':
      return { status: 200, body: daysPage(ctx, data()) };
    case '/note': {
      const id = url.searchParams.get('id') ?? '';
      if (!id) return { status: 400, body: 'missing ?id=' };
      return { status: 200, body: notePage(ctx, id, readNote(id, opts), data()) };
    }
    case '/search': {
      const q = (url.searchParams.get('q') ?? '').trim();
      return { status: 200, body: searchPage(ctx, q ? await runSearch(q, opts.kb, opts.io) : null) };
    }
    default:
      return { status: 404, body: 'not found' };
  }
}

export async function startViewServer(opts: ViewServerOptions): Promise<ViewServer> {
  const token = opts.token ?? randomBytes(24).toString('base64url');
  let port = opts.port;
  const server = http.createServer((req, res) => {
    const nonce = randomBytes(16).toString('base64');
    const head = req.method === 'HEAD';
    if (req.method !== 'GET' && !head) return send(res, 405, 'only GET', nonce, head);
    if (!hostAllowed(req.headers.host, port)) return send(res, 403, 'forbidden: unexpected Host header', nonce, head);
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    } catch {
      return send(res, 400, 'bad request', nonce, head);
    }
    if (!tokenMatches(url.searchParams.get('t'), token))
      return send(res, 403, 'forbidden: this page needs the token printed by `recall view`', nonce, head);
    route(url, opts, { token, nonce }).then(
      (r) => send(res, r.status, r.body, nonce, head),
      (err: unknown) => send(res, 500, `error: ${esc(errorMessage(err))}`, nonce, head),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/?t=${token}`,
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
