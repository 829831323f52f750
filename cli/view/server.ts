/**
 * The HTTP side of `recall view` (node:http, no framework): bound to 127.0.0.1 only; every request
 * must carry a Host header naming this server (a page on another site that points its own DNS name
 * at 127.0.0.1 sends its name, so DNS rebinding gets a 403) and this run's session cookie, got by
 * trading the run's token or a one-time code for it (auth.ts). Responses carry a
 * Content-Security-Policy that allows no source but this response's own style and script (by
 * nonce), no framing, no referrer to another origin, no caching.
 *
 * GET and HEAD read (the recall log, the notes). One POST, /action, changes a note (actions.ts): it
 * must come from this origin with the session's CSRF token, as a small urlencoded form.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { errorMessage } from '../../core/errors.js';
import { notesOfEverySource, showNote, type KbOptions, type NoteSource } from '../../pipeline/notes/index.js';
import type { RunIo } from '../../pipeline/run.js';
import { loadConfig } from '../../pipeline/config/index.js';
import { resolveSources } from '../../pipeline/kb-sources/index.js';
import { createViewAuth, secretMatches, type ViewAuth } from './auth.js';
import { loadViewData } from './data.js';
import { esc, type PageCtx } from './html.js';
import { daysPage, sessionsPage, type KbLabel } from './pages.js';
import { notePage, notesFilter, notesPage, sourceLabel, type NoteText } from './notes-page.js';
import { DONE, runAction, type ActionName } from './actions.js';
import { runSearch, searchPage } from './search.js';

export { secretMatches as tokenMatches } from './auth.js';

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
  /** The URL for the person (stdout): it carries the run's token. */
  url: string;
  port: number;
  token: string;
  /** A URL for the browser opener: a one-time code, good for one session and then nothing. */
  openUrl(): string;
  close(): Promise<void>;
}

/** The largest form /action takes: a how-to-apply line and a few ids. */
const MAX_FORM_BYTES = 16 * 1024;

/** Whether a Host header names this server (127.0.0.1 or localhost, on its port). */
export function hostAllowed(host: string | undefined, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

/**
 * Whether a POST comes from a page of this server: its Origin must name this server (browsers send
 * Origin on every POST), and Sec-Fetch-Site, when sent, must say same-origin. A page another local
 * user serves on another port of 127.0.0.1 is same-site but not same-origin.
 */
export function sameOrigin(headers: http.IncomingHttpHeaders, port: number): boolean {
  const origin = headers['origin'];
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  return origin === `http://127.0.0.1:${port}` || origin === `http://localhost:${port}`;
}

function securityHeaders(nonce: string): Record<string, string> {
  return {
    'Content-Security-Policy': `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    // No referrer leaves for another origin; a same-origin POST keeps its Origin header, which
    // browsers send as "null" under no-referrer, and sameOrigin needs it.
    'Referrer-Policy': 'same-origin',
    'Cache-Control': 'no-store',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

interface Reply {
  status: number;
  body?: string;
  /** A redirect (303) to this path on this server. */
  location?: string;
  cookie?: string;
  /** The body is a rendered page (HTML), not a line of text. */
  html?: boolean;
}

function send(res: http.ServerResponse, r: Reply, nonce: string, head: boolean): void {
  res.writeHead(r.status, {
    'Content-Type': r.html ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8',
    ...securityHeaders(nonce),
    ...(r.location ? { Location: r.location } : {}),
    ...(r.cookie ? { 'Set-Cookie': r.cookie } : {}),
  });
  res.end(head ? undefined : (r.body ?? ''));
}

function sourcesOf(opts: ViewServerOptions): NoteSource[] {
  return notesOfEverySource(opts.kb, { env: opts.io.env, cwd: opts.io.cwd, warn: () => undefined });
}

/** The KBs a recall here reads, named as the pages name them (no index is opened). */
function kbLabels(opts: ViewServerOptions): KbLabel[] {
  try {
    const config = loadConfig(opts.io.env);
    const { read } = resolveSources(config, { ...opts.kb, cwd: opts.io.cwd, env: opts.io.env });
    return read.map((s) => ({ root: s.root, label: sourceLabel(s) }));
  } catch {
    return [];
  }
}

/** The source a note page shows: the one the link names (if read), else the first that holds the id. */
function sourceFor(id: string, kb: string | null, sources: readonly NoteSource[]): NoteSource | null {
  return sources.find((s) => s.root === kb) ?? sources.find((s) => s.notes.some((n) => n.id === id)) ?? null;
}

function readNote(id: string, source: NoteSource | null, opts: ViewServerOptions): NoteText {
  try {
    const kb: KbOptions = source ? { kb: source.root, global: false, allBranches: false } : opts.kb;
    const n = showNote(id, kb, { env: opts.io.env, cwd: opts.io.cwd, warn: () => undefined });
    const state = n.location !== 'documents' ? n.location : n.superseded_by ? `superseded by ${n.superseded_by}` : '';
    return {
      title: n.title,
      path: n.path,
      keyInsight: n.key_insight,
      howToApply: n.how_to_apply,
      body: n.body,
      state,
      frontmatter: n.frontmatter,
    };
  } catch (err) {
    return { error: `not in the sources this view reads: ${errorMessage(err)}` };
  }
}

async function route(url: URL, opts: ViewServerOptions, ctx: PageCtx): Promise<Reply> {
  const data = (): ReturnType<typeof loadViewData> => loadViewData(opts.stateDir);
  const page = (body: string): Reply => ({ status: 200, body, html: true });
  switch (url.pathname) {
    case '/':
      return page(sessionsPage(ctx, data(), kbLabels(opts)));
    case '/days':
      return page(daysPage(ctx, data()));
    case '/notes':
      return page(notesPage(ctx, sourcesOf(opts), data(), notesFilter(url.searchParams)));
    case '/note': {
      const id = url.searchParams.get('id') ?? '';
      if (!id) return { status: 400, body: 'missing ?id=' };
      const source = sourceFor(id, url.searchParams.get('kb'), sourcesOf(opts));
      const done = DONE[url.searchParams.get('done') as ActionName];
      return page(notePage(ctx, id, readNote(id, source, opts), source, data(), done ? { done } : {}));
    }
    case '/search': {
      const q = (url.searchParams.get('q') ?? '').trim();
      return page(searchPage(ctx, q ? await runSearch(q, opts.kb, opts.io) : null));
    }
    default:
      return { status: 404, body: 'not found' };
  }
}

/** The form of a POST, or null when it is not a small urlencoded form. */
function readForm(req: http.IncomingMessage): Promise<URLSearchParams | null> {
  return new Promise((resolve) => {
    if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      req.resume();
      return resolve(null);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_FORM_BYTES) {
        resolve(null);
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', () => resolve(null));
  });
}

async function postAction(
  req: http.IncomingMessage,
  session: string,
  auth: ViewAuth,
  opts: ViewServerOptions,
  ctx: PageCtx,
): Promise<Reply> {
  const form = await readForm(req);
  if (!form) return { status: 415, body: 'a note action is a urlencoded form of at most 16 KB' };
  if (!secretMatches(form.get('csrf'), auth.csrfOf(session)))
    return { status: 403, body: 'forbidden: the form does not carry this session’s token (reload the page)' };
  const sources = sourcesOf(opts);
  const r = runAction(form, sources, { env: opts.io.env, cwd: opts.io.cwd, warn: () => undefined });
  const params = new URLSearchParams({ id: r.id, kb: r.kb });
  if (r.ok) {
    params.set('done', r.action);
    return { status: 303, location: `/note?${params.toString()}` };
  }
  // The note page again, with what went wrong, and the status saying it.
  const source = sources.find((s) => s.root === r.kb) ?? null;
  const body = r.id
    ? notePage(ctx, r.id, readNote(r.id, source, opts), source, loadViewData(opts.stateDir), { error: r.message })
    : r.message;
  return { status: r.status, body, html: Boolean(r.id) };
}

/** The request's path and query without the secret it came with (the redirect after the trade). */
function withoutSecret(url: URL): string {
  const rest = new URLSearchParams(url.searchParams);
  rest.delete('t');
  rest.delete('code');
  const q = rest.toString();
  // One leading slash: `//host/…` in a Location header would send the browser to another host.
  return `/${url.pathname.replace(/^[/\\]+/, '')}${q ? `?${q}` : ''}`;
}

export async function startViewServer(opts: ViewServerOptions): Promise<ViewServer> {
  let auth: ViewAuth | null = null;
  let port = opts.port;
  const server = http.createServer((req, res) => {
    const nonce = randomBytes(16).toString('base64');
    const head = req.method === 'HEAD';
    const reply = (r: Reply): void => send(res, r, nonce, head);
    if (!auth) return reply({ status: 503, body: 'starting' });
    if (req.method !== 'GET' && !head && req.method !== 'POST') return reply({ status: 405, body: 'only GET and POST' });
    if (!hostAllowed(req.headers.host, port)) return reply({ status: 403, body: 'forbidden: unexpected Host header' });
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    } catch {
      return reply({ status: 400, body: 'bad request' });
    }
    // A token or a one-time code in the URL is traded for a session cookie, and the browser sent on without it.
    const given: ['t' | 'code', string] | null = url.searchParams.has('code')
      ? ['code', url.searchParams.get('code') ?? '']
      : url.searchParams.has('t')
        ? ['t', url.searchParams.get('t') ?? '']
        : null;
    if (given && req.method !== 'POST') {
      const r = auth.redeem(given[0], given[1]);
      if ('refused' in r) return reply({ status: 403, body: r.refused });
      return reply({ status: 303, location: withoutSecret(url), cookie: auth.cookie(r.session) });
    }
    const session = auth.sessionOf(req.headers.cookie);
    if (!session) return reply({ status: 403, body: 'forbidden: this page needs the URL printed by `recall view`' });
    const ctx: PageCtx = { nonce, csrf: auth.csrfOf(session), now: new Date() };
    if (req.method === 'POST') {
      if (url.pathname !== '/action') return reply({ status: 405, body: 'only /action takes a POST' });
      if (!sameOrigin(req.headers, port))
        return reply({ status: 403, body: 'forbidden: a note action must come from a page of this view' });
      postAction(req, session, auth, opts, ctx).then(reply, (err: unknown) => reply({ status: 500, body: `error: ${errorMessage(err)}` }));
      return;
    }
    route(url, opts, ctx).then(reply, (err: unknown) => reply({ status: 500, body: `error: ${esc(errorMessage(err))}` }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const ready = createViewAuth(port, opts.token);
  auth = ready;
  return {
    url: `http://127.0.0.1:${port}/?t=${ready.token}`,
    port,
    token: ready.token,
    openUrl: () => `http://127.0.0.1:${port}/?code=${ready.issueCode()}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
