/**
 * A client of a running `recall view` over plain HTTP, as a browser is to it: it trades the token
 * for the session cookie once (login) and sends it with every request; posts the note page's forms
 * with this server's Origin, or with the headers a test gives to play another page.
 */
import http from 'node:http';

export type Res = { status: number; headers: http.IncomingHttpHeaders; body: string };

export interface ViewClient {
  readonly origin: string;
  /** Trades the token for the session cookie (the 303 it answers with is returned). */
  login(token: string): Promise<Res>;
  get(pathAndQuery: string): Promise<Res>;
  /** POST /action with these form fields; headers default to this server's Origin. */
  post(fields: Record<string, string>, headers?: Record<string, string>): Promise<Res>;
  /** The CSRF token the forms of a note's page carry. */
  csrfOf(id: string): Promise<string>;
}

export function viewClient(origin: string): ViewClient {
  const u = new URL(origin);
  let cookie = '';
  const request = (method: string, pathAndQuery: string, headers: Record<string, string> = {}, body?: string): Promise<Res> =>
    new Promise((resolve, reject) => {
      const all = { host: u.host, ...(cookie ? { cookie } : {}), ...headers };
      const req = http.request({ method, host: '127.0.0.1', port: u.port, path: pathAndQuery, headers: all }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  const get = (p: string): Promise<Res> => request('GET', p);
  return {
    origin,
    async login(token) {
      const r = await get(`/?t=${encodeURIComponent(token)}`);
      cookie = (r.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]!).join('; ');
      return r;
    },
    get,
    post: (fields, headers = { origin }) =>
      request(
        'POST',
        '/action',
        { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        new URLSearchParams(fields).toString(),
      ),
    async csrfOf(id) {
      const page = await get(`/note?id=${encodeURIComponent(id)}`);
      const m = /name="csrf" value="([^"]+)"/.exec(page.body);
      if (!m) throw new Error(`no form on the page of ${id}: ${page.body.slice(0, 300)}`);
      return m[1]!;
    },
  };
}
