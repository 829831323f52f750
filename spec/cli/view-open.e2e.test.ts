/**
 * `recall view` hands the browser no long-lived secret (issue 36, item 7). The command line of the
 * opener (`xdg-open URL`) is world-readable in /proc/PID/cmdline while it runs, so another local
 * user can read it: the URL there must be a one-time code that grants nothing after its first use.
 * The spec runs the real CLI with a stand-in `xdg-open` first on PATH that records its argv.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { noteText, tempKb, type TempKb } from '../helpers/kb.js';
import { RECALL_BIN, env as hookEnv } from '../hooks/helpers.js';

let kb: TempKb;
let view: ChildProcess;
let printed: URL;
let openerArgv: string[];

type Res = { status: number; headers: http.IncomingHttpHeaders; body: string };

function get(pathAndQuery: string, headers: Record<string, string> = {}): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port: printed.port, path: pathAndQuery, headers: { host: printed.host, ...headers } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
  });
}

/** The cookie a response sets, as a request header value (name=value). */
const cookieOf = (r: Res): string => (r.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]!).join('; ');

/** Resolves when `file` exists and is not empty (the stand-in opener has written it). */
function whenWritten(file: string, child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      if (!text.endsWith('\n')) return false;
      clearInterval(timer);
      resolve(text);
      return true;
    };
    const timer = setInterval(check, 50);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`recall view exited (${code}) before opening the browser`));
    });
  });
}

beforeAll(async () => {
  kb = tempKb();
  kb.write('documents/a.md', noteText('lrn-a', 'Postgres pool exhausted', 'Close transactions before slow work.'));
  const bin = path.join(kb.state, 'bin');
  const argvFile = path.join(kb.state, 'opener-argv.json');
  fs.mkdirSync(bin, { recursive: true });
  // The stand-in opener records its arguments (one JSON line) and exits, as xdg-open does once the browser started.
  fs.writeFileSync(
    path.join(bin, 'xdg-open'),
    `#!${process.execPath}\nrequire('fs').writeFileSync(${JSON.stringify(argvFile)}, JSON.stringify(process.argv.slice(2)) + '\\n');\n`,
    { mode: 0o755 },
  );
  const e = hookEnv(kb, { PATH: `${bin}${path.delimiter}${process.env['PATH'] ?? ''}` });
  view = spawn(process.execPath, [RECALL_BIN, 'view', '--port', '0', '--kb', kb.root], { env: e, stdio: ['ignore', 'pipe', 'pipe'] });
  const written = whenWritten(argvFile, view);
  printed = new URL(
    await new Promise<string>((resolve, reject) => {
      let out = '';
      view.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      view.on('exit', (code) => reject(new Error(`recall view exited (${code})`)));
    }),
  );
  openerArgv = JSON.parse(await written) as string[];
}, 120_000);

afterAll(async () => {
  if (view && view.exitCode === null) await new Promise((resolve) => view.once('exit', resolve).kill('SIGTERM'));
  kb?.cleanup();
});

describe('the URL recall view gives the browser', () => {
  it('is the one argument of the opener and does not hold the long-lived token printed on stdout', () => {
    expect(process.platform).toBe('linux');
    expect(openerArgv).toHaveLength(1);
    const token = printed.searchParams.get('t');
    expect(token).toBeTruthy();
    expect(openerArgv.join(' ')).not.toContain(token!);
  });

  it('grants access once (a cookie the page keeps), then nothing: another user who read it from /proc gets a 403', async () => {
    const opened = new URL(openerArgv[0]!);
    expect(opened.host).toBe(printed.host);
    const first = await get(`${opened.pathname}${opened.search}`);
    expect(first.status).toBe(303);
    expect(first.headers['location']).toBe('/');
    const setCookie = (first.headers['set-cookie'] ?? []).join('\n');
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    // The browser follows the redirect with its cookie and sees the page; no secret stays in the address bar.
    expect((await get('/', { cookie: cookieOf(first) })).status).toBe(200);
    // The same URL again (another user racing the browser, or a replay from history) grants nothing.
    const again = await get(`${opened.pathname}${opened.search}`);
    expect(again.status).toBe(403);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect(again.body).toMatch(/already used/);
  });

  it('still lets the person open the printed URL (it trades the token for the cookie and drops it from the address bar)', async () => {
    const r = await get(`/?t=${printed.searchParams.get('t')}`);
    expect(r.status).toBe(303);
    expect(r.headers['location']).toBe('/');
    expect((await get('/', { cookie: cookieOf(r) })).status).toBe(200);
    expect((await get('/', { cookie: cookieOf(r).replace(/=.*/, '=forged') })).status).toBe(403);
  });
});
