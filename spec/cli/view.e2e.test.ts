/**
 * `recall view` end to end: real prompt hook calls (the built entry, hook JSON on stdin) in two
 * sessions whose transcripts are fixtures, one where the assistant quotes an injected note and one
 * where it ignores it; then the view server as a child process, checked over HTTP (token, Host,
 * CSP) and rendered by a real headless chromium (DOM checks). Without chromium the browser checks
 * are skipped and say why.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { noteText, tempKb, type TempKb } from '../helpers/kb.js';
import { RECALL_BIN, context, env as hookEnv, repo, runHook } from '../hooks/helpers.js';
import { sessionKey } from '../../core/session-key.js';

const FIXTURES = path.join(repo, 'spec', 'fixtures', 'transcripts');
const ON_TOPIC = 'postgres connection pool exhausted during the nightly job';
const OFF_TOPIC = 'what is a good recipe for banana bread';
const HOSTILE_TITLE = `postgres connection pool exhausted <img src=x onerror="document.title='PWNED'"><script>document.body.innerHTML='PWNED'</script>`;

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => fs.existsSync(p)) ?? null;
if (!CHROMIUM) console.warn('recall view browser checks SKIPPED: no chromium at /usr/bin/chromium (apt-get install chromium)');
const browser = CHROMIUM ? describe : describe.skip;

let kb: TempKb;
let view: ChildProcess;
let url: URL;

function prompt(session: string, transcript: string, text: string): string {
  const stdin = JSON.stringify({
    session_id: session,
    transcript_path: transcript,
    cwd: kb.root,
    hook_event_name: 'UserPromptSubmit',
    prompt: text,
  });
  return context(runHook('user-prompt-submit', stdin, hookEnv(kb, { RECALL_NO_SERVER: '1' }), kb.root));
}

/** A session: an on-topic prompt, the fixture's turns appended to the transcript, then the off-topic prompt (which judges the first). */
function session(id: string, fixture: string): string {
  const transcript = path.join(kb.state, `${id}.jsonl`);
  fs.mkdirSync(kb.state, { recursive: true });
  fs.writeFileSync(transcript, `${JSON.stringify({ type: 'user', message: { role: 'user', content: ON_TOPIC } })}\n`);
  const injected = prompt(id, transcript, ON_TOPIC);
  fs.appendFileSync(transcript, fs.readFileSync(path.join(FIXTURES, fixture)));
  expect(prompt(id, transcript, OFF_TOPIC)).toBe('');
  return injected;
}

function logLines(kind: string): Record<string, unknown>[] {
  return fs
    .readFileSync(path.join(kb.state, 'recall_log.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((o) => o['kind'] === kind);
}

/** The session cookie the printed URL's token was traded for (beforeAll). */
let cookie = '';

function get(
  pathAndQuery: string,
  host = url.host,
  withCookie = true,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = { host, ...(withCookie && cookie ? { cookie } : {}) };
    const req = http.get({ host: '127.0.0.1', port: url.port, path: pathAndQuery, headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}

const withToken = (page: string, params: Record<string, string> = {}): string =>
  `${page}?${new URLSearchParams({ ...params, t: url.searchParams.get('t') ?? '' }).toString()}`;

beforeAll(async () => {
  kb = tempKb();
  kb.write(
    'documents/idle.md',
    noteText('lrn-pool-idle', 'Postgres pool exhausted by idle transactions', 'Sessions idle in transaction hold connections.', {
      key_insight: 'Sessions idle in transaction hold pool connections until the server kills them.',
      fix: 'Close transactions before slow work and open a new one to write.',
    }),
  );
  kb.write(
    'documents/hostile.md',
    noteText('lrn-pool-hostile', HOSTILE_TITLE, 'Size the pool for the nightly job.', { key_insight: HOSTILE_TITLE }),
  );
  kb.write('documents/webhook.md', noteText('lrn-webhook', 'Stripe webhook idempotency', 'Store event ids under a unique constraint.'));
  expect(session('sess-quotes', 'quotes-note.jsonl')).toContain('lrn-pool-idle');
  expect(session('sess-ignores', 'ignores-note.jsonl')).toContain('lrn-pool-idle');
  view = spawn(process.execPath, [RECALL_BIN, 'view', '--no-open', '--port', '0', '--kb', kb.root], {
    env: hookEnv(kb),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const first = await new Promise<string>((resolve, reject) => {
    let out = '';
    view.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    view.on('exit', (code) => reject(new Error(`recall view exited (${code})`)));
  });
  url = new URL(first);
  const login = await get(withToken('/'));
  expect(login.status).toBe(303);
  cookie = (login.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]!).join('; ');
}, 120_000);

afterAll(async () => {
  if (view && view.exitCode === null) await new Promise((resolve) => view.once('exit', resolve).kill('SIGTERM'));
  kb?.cleanup();
});

describe('helpfulness verdicts in the recall log', () => {
  it('marks the note used where the assistant quotes it, with the phrase as evidence, and not used where it ignores it', () => {
    const verdicts = logLines('used').filter((v) => v['id'] === 'lrn-pool-idle');
    const bySession = Object.fromEntries(verdicts.map((v) => [v['session'], v]));
    expect(bySession[sessionKey('sess-quotes')]).toMatchObject({ used: true, by: 'phrase', evidence: 'close transactions before slow' });
    expect(bySession[sessionKey('sess-ignores')]).toMatchObject({ used: false, evidence: null });
    // No transcript text is stored: nothing the assistant wrote beyond the note's own phrase.
    const log = fs.readFileSync(path.join(kb.state, 'recall_log.jsonl'), 'utf8');
    expect(log).not.toContain('max_connections');
    expect(log).not.toContain('stay idle in transaction');
  });

  it('records each prompt: what was injected with its tokens, and the abstention with its reason', () => {
    const hooks = logLines('hook').filter((h) => h['session'] === sessionKey('sess-quotes'));
    expect(hooks.map((h) => h['query'])).toEqual([ON_TOPIC, OFF_TOPIC]);
    const injected = hooks[0]!['injected'] as { id: string; tokens: number }[];
    expect(injected.map((n) => n.id)).toContain('lrn-pool-idle');
    expect(injected.every((n) => n.tokens > 0)).toBe(true);
    expect(String(hooks[1]!['abstained'])).toMatch(/^no note mentions "recipe", "banana"/);
  });
});

describe('the view server', () => {
  it('refuses a request without the session cookie, with a wrong token, or with another Host', async () => {
    expect((await get('/', url.host, false)).status).toBe(403);
    expect((await get('/?t=wrong', url.host, false)).status).toBe(403);
    expect((await get('/', `evil.example:${url.port}`)).status).toBe(403);
    expect((await get(withToken('/'), `evil.example:${url.port}`, false)).status).toBe(403);
    expect((await get('/')).status).toBe(200);
  });

  it('sends a CSP that allows only its own nonce-tagged style and script', async () => {
    const r = await get('/');
    const csp = String(r.headers['content-security-policy']);
    expect(csp).toMatch(/default-src 'none'/);
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(r.body).toContain(`<script nonce="${nonce}">`);
    expect(r.body.match(/<script/g)).toHaveLength(1);
  });
});

/** The DOM chromium built from a page of the view (its scripts ran). */
function dumpDom(page: string): Promise<string> {
  const profile = fs.mkdtempSync(path.join(kb.state, 'chromium-'));
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ];
  return new Promise((resolve, reject) => {
    execFile(
      CHROMIUM!,
      [...args, `--user-data-dir=${profile}`, '--dump-dom', `${url.origin}${page}`],
      { timeout: 90_000, maxBuffer: 1 << 24 },
      (err: Error | null, stdout) => (err ? reject(err) : resolve(stdout)),
    );
  });
}

browser('the view in a real browser (headless chromium)', () => {
  it('shows the prompt, the injected note and the abstained prompt with its reason; a hostile note stays text', async () => {
    const dom = await dumpDom(withToken('/'));
    expect(dom).toContain(ON_TOPIC);
    expect(dom).toContain('lrn-pool-idle');
    expect(dom).toMatch(new RegExp(`${OFF_TOPIC}</b></div><div class="abstain">abstained: no note mentions "recipe", "banana"`));
    expect(dom).toMatch(/<span class="used">used<\/span>/);
    expect(dom).toContain('How "used" is decided');
    // The hostile title is shown as text: its script did not replace the page, its image handler did not retitle it.
    expect(dom).toContain('&lt;script&gt;document.body.innerHTML=');
    expect(dom).toContain('<h1>Sessions, newest first</h1>');
    expect(dom).toContain('<title>Sessions · recall view</title>');
    expect(dom).not.toMatch(/<img /);
  }, 120_000);

  it('shows a note’s injections and its used share', async () => {
    const dom = await dumpDom(withToken('/note', { id: 'lrn-pool-idle' }));
    expect(dom).toMatch(/id="inject-count">2</);
    expect(dom).toMatch(/id="used-share">used 1 of 2 judged times \(50%\)/);
  }, 120_000);

  it('searches the KB and draws the stage timeline; totals per day', async () => {
    const search = await dumpDom(withToken('/search', { q: 'postgres pool exhausted by idle transactions' }));
    expect(search).toMatch(/<table id="results">[\s\S]*lrn-pool-idle/);
    expect(search).toMatch(/<div class="timeline" id="timeline"><svg[\s\S]*arm:bm25/);
    const days = await dumpDom(withToken('/days'));
    expect(days).toMatch(/<table id="days">[\s\S]*<td>\d{4}-\d\d-\d\d<\/td><td>4<\/td><td>2<\/td>/);
    expect(days).toContain('<svg');
  }, 240_000);

  it('refuses the page without the token in the browser too', async () => {
    expect(await dumpDom('/')).toContain('forbidden');
  }, 120_000);
});
