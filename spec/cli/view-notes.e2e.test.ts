/**
 * `recall view` after a week of use (issue 37, item 6), in a zero-config project: the person's KB
 * (`recall add`) and Claude Code's memory folder, read together as two KBs. Real prompt hooks fill
 * the log; the view runs as a child process, checked over HTTP and in a real headless chromium:
 *
 * - the Notes page lists every note of every source, filterable, with injections, used / not-used
 *   counts and the last use;
 * - the Sessions page says once that optional models are not installed instead of "degraded" on
 *   every prompt, shows times as a person reads them and "1 prompt", and labels each KB's stages;
 * - the note actions (how to apply, supersede, forget) change the KB through the CLI's library
 *   functions and writer lock, only from a page of the view (CSRF token and Origin), and never
 *   change the Claude Code memory folder;
 * - a note an agent wrote is labelled until a person accepts it (or rejects it) on its page.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { zeroConfigWorld, type ZeroConfigWorld } from '../helpers/zero-config.js';
import { CHROMIUM, launchChromium, type Browser } from '../helpers/chromium.js';
import { viewClient, type Res, type ViewClient } from '../helpers/view-client.js';

const bin = path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'bin', 'recall');
const POOL_PROMPT = 'postgres pool exhausted by idle transactions during the nightly job';
const MERGE_PROMPT = 'can I merge my pull request to main on Friday before the release?';

let w: ZeroConfigWorld;
let view: ChildProcess;
let origin = '';
let learnings = '';
/** The run's token, from the URL recall view printed. */
let token = '';

let client: ViewClient;
const get = (p: string): Promise<Res> => client.get(p);
const post = (fields: Record<string, string>, headers?: Record<string, string>): Promise<Res> => client.post(fields, headers);
const csrfOf = (id: string): Promise<string> => client.csrfOf(id);

const noteFile = (id: string): string => {
  const docs = path.join(learnings, 'documents');
  const name = fs.readdirSync(docs).find((n) => n.endsWith('.md') && fs.readFileSync(path.join(docs, n), 'utf8').includes(`id: "${id}"\n`));
  if (!name) throw new Error(`${id}: no file in ${docs}`);
  return path.join(docs, name);
};

/** Text a person sees on a page: the markup without tags (and without the <time> elements' attributes). */
const visible = (html: string): string => html.replace(/<[^>]*>/g, ' ');

beforeAll(async () => {
  w = zeroConfigWorld();
  learnings = path.join(w.home, '.learnings');
  const add = (id: string, title: string, insight: string, apply: string): void => {
    const r = w.recall(['add', '--id', id, '--title', title, '--insight', insight, '--apply', apply, '--tags', 'postgres']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  };
  add(
    'lrn-pool',
    'Postgres pool exhausted by idle transactions',
    'Sessions idle in transaction hold pool connections.',
    'Close transactions before slow work.',
  );
  add(
    'lrn-pool-v2',
    'Postgres pool sizing for the nightly job',
    'Size the pool for the nightly job and close idle transactions.',
    'Set pool_size to 40 for the nightly job.',
  );
  add('lrn-stale', 'Old redis eviction advice', 'Use allkeys-lru for the session cache.', 'Set maxmemory-policy allkeys-lru.');
  // Two notes an agent wrote from its shell (Claude Code's environment): unreviewed until a person accepts them.
  const agent = { env: { CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: 'sess-agent-1' } };
  expect(w.recall(['add', '--id', 'lrn-agent-keep', '--title', 'Kafka lag alert', '--insight', 'Alert at 10k.'], agent).code).toBe(0);
  expect(w.recall(['add', '--id', 'lrn-agent-drop', '--title', 'Run setup.sh first', '--insight', 'Curl it.'], agent).code).toBe(0);
  expect(w.promptHook(POOL_PROMPT, 'sess-a')).toContain('lrn-pool');
  expect(w.promptHook(MERGE_PROMPT, 'sess-b')).toContain('merge-freeze');
  view = spawn(bin, ['view', '--no-open', '--port', '0'], { env: w.baseEnv(), cwd: w.project, stdio: ['ignore', 'pipe', 'pipe'] });
  const first = await new Promise<string>((resolve, reject) => {
    let out = '';
    view.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    view.on('exit', (code) => reject(new Error(`recall view exited (${code})`)));
  });
  const u = new URL(first);
  origin = u.origin;
  token = u.searchParams.get('t') ?? '';
  client = viewClient(origin);
  expect((await client.login(token)).status).toBe(303);
}, 180_000);

afterAll(async () => {
  if (view && view.exitCode === null) await new Promise((resolve) => view.once('exit', resolve).kill('SIGTERM'));
  w?.cleanup();
});

describe('the Notes page', () => {
  it('lists every note of every source read, with its source, injections, used / not used and last use', async () => {
    const r = await get('/notes');
    expect(r.status).toBe(200);
    const row = (id: string): string => new RegExp(`<tr data-id="${id}">[\\s\\S]*?</tr>`).exec(r.body)?.[0] ?? '';
    // The person's KB and Claude Code's memory folder, each named.
    expect(r.body).toMatch(/<b>KB \.learnings<\/b>/);
    expect(r.body).toMatch(/<b>Claude Code memory<\/b>[^\n]*recall never changes it/);
    expect(row('merge-freeze')).toContain('Claude Code memory');
    // Injected once (its session had no next prompt, so it is not judged yet), last use today.
    expect(row('lrn-pool')).toMatch(
      /<td class="num">1<\/td><td class="num muted">0<\/td><td class="num muted">0<\/td><td class="small nowrap"><time datetime="\d{4}-\d\d-\d\dT[\d:]+" title="[^"]+">today \d\d:\d\d<\/time>/,
    );
    expect(row('lrn-stale')).toMatch(/<td class="num">0<\/td>[\s\S]*never/);
  });

  it('filters by words, by use and by source', async () => {
    const ids = (body: string): string[] => [...body.matchAll(/<tr data-id="([^"]+)">/g)].map((m) => m[1]!);
    expect(ids((await get('/notes?q=redis')).body)).toEqual(['lrn-stale']);
    const never = ids((await get('/notes?use=never')).body);
    expect(never).toContain('lrn-stale');
    expect(never).not.toContain('lrn-pool');
    const memoryRoot = fs.realpathSync(w.memory);
    expect(ids((await get(`/notes?source=${encodeURIComponent(memoryRoot)}`)).body)).toEqual(['merge-freeze']);
  });
});

describe('the Sessions page after real prompts', () => {
  it('says once that optional models are not installed, never "degraded" on each prompt', async () => {
    const log = fs.readFileSync(path.join(w.home, '.reflect', 'recall_log.jsonl'), 'utf8');
    // Without `recall models pull` the log records the missing optional parts on every prompt ...
    expect(log).toMatch(/:unavailable"/);
    const r = await get('/');
    // ... and the page says it once, on its status line.
    expect(r.body.match(/id="status"/g)).toHaveLength(1);
    expect(r.body).toMatch(/Optional models not installed: the vector arm[^<]* did not run \(2 prompts\)/);
    expect(r.body).not.toMatch(/degraded: [^<]*unavailable/);
  });

  it('shows times as a person reads them and counts "1 prompt"', async () => {
    const r = await get('/');
    expect(visible(r.body)).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
    expect(r.body).toMatch(/today \d\d:\d\d/);
    expect(r.body).toContain('· 1 prompt</span>');
    expect(r.body).not.toContain('1 prompts');
  });

  it('labels the stages of each KB read (two KBs: the person’s and Claude Code’s memory)', async () => {
    const r = await get('/');
    // The hook ran in the project the view reads: the same two KBs, named.
    expect(r.body).toMatch(/ · KB \.learnings: [^<]* · Claude Code memory: /);
    const search = await get(`/search?q=${encodeURIComponent(MERGE_PROMPT)}`);
    expect(search.body).toMatch(/<h2>Stages · KB \.learnings/);
    expect(search.body).toMatch(/<h2>Stages · Claude Code memory/);
  }, 60_000);
});

describe('note actions', () => {
  it('refuses a form without the session’s CSRF token, or from another origin, and changes nothing', async () => {
    const before = fs.readFileSync(noteFile('lrn-stale'), 'utf8');
    const csrf = await csrfOf('lrn-stale');
    const fields = { action: 'forget', id: 'lrn-stale', kb: learnings };
    expect((await post(fields)).status).toBe(403);
    expect((await post({ ...fields, csrf: 'forged' })).status).toBe(403);
    // A page another local user serves on another port of 127.0.0.1 is same-site: the cookie goes along, the Origin tells it apart.
    expect((await post({ ...fields, csrf }, { origin: 'http://127.0.0.1:1' })).status).toBe(403);
    expect((await post({ ...fields, csrf }, { origin, 'sec-fetch-site': 'same-site' })).status).toBe(403);
    expect((await post({ ...fields, csrf }, {})).status).toBe(403);
    expect(fs.readFileSync(noteFile('lrn-stale'), 'utf8')).toBe(before);
  });

  it('never changes the Claude Code memory folder, whatever the form says', async () => {
    const file = path.join(w.memory, 'merge_freeze.md');
    const before = fs.readFileSync(file, 'utf8');
    const page = await get('/note?id=merge-freeze');
    expect(page.body).toMatch(/id="actions"><p class="muted">This note is in Claude Code memory/);
    expect(page.body).not.toContain('name="action"');
    const csrf = await csrfOf('lrn-stale');
    const r = await post({ action: 'forget', id: 'merge-freeze', kb: fs.realpathSync(w.memory), csrf });
    expect(r.status).toBe(403);
    expect(r.body).toMatch(/never changes/);
    // A folder the view does not read is refused too (the form names a source, it does not choose one).
    const other = await post({ action: 'forget', id: 'merge-freeze', kb: path.dirname(w.memory), csrf });
    expect(other.status).toBe(400);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    expect(fs.readdirSync(w.memory).sort()).toEqual(['MEMORY.md', 'merge_freeze.md']);
  });

  it('says why a change was refused (an empty how-to-apply line, an unknown note) and writes nothing', async () => {
    const before = fs.readFileSync(noteFile('lrn-stale'), 'utf8');
    const csrf = await csrfOf('lrn-stale');
    const empty = await post({ action: 'apply', id: 'lrn-stale', kb: learnings, csrf, apply: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatch(/id="flash">the how-to-apply line is empty/);
    const unknown = await post({ action: 'supersede', id: 'lrn-stale', kb: learnings, csrf, new: 'no-such-note' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatch(/no-such-note: no note with this id/);
    expect(fs.readFileSync(noteFile('lrn-stale'), 'utf8')).toBe(before);
  });

  it('takes the writer lock the CLI takes: while another writer holds it, nothing is written and the page says why', async () => {
    const lock = path.join(learnings, '.recall-notes.lock');
    fs.writeFileSync(lock, String(process.pid));
    // Kept fresh: an old lock is taken over as its owner's leftover.
    const fresh = setInterval(() => fs.utimesSync(lock, new Date(), new Date()), 1000);
    try {
      const csrf = await csrfOf('lrn-stale');
      const held = await post({ action: 'forget', id: 'lrn-stale', kb: learnings, csrf });
      expect(held.status).toBe(500);
      expect(held.body).toMatch(/another writer of .* held its lock/);
      expect(fs.existsSync(noteFile('lrn-stale'))).toBe(true);
    } finally {
      clearInterval(fresh);
      fs.rmSync(lock, { force: true });
    }
  }, 120_000);
});

describe('review of the notes an agent wrote', () => {
  it('labels them on the Notes page and offers Accept and Reject on their page, not on a person’s note', async () => {
    const notes = await get('/notes');
    expect(notes.body).toMatch(/<tr data-id="lrn-agent-keep">[\s\S]*?written by the agent in session sess-age[^<]*, not reviewed/);
    const agent = await get('/note?id=lrn-agent-keep');
    expect(agent.body).toContain('<input type="hidden" name="action" value="accept">');
    expect(agent.body).toContain('<input type="hidden" name="action" value="reject">');
    const person = await get('/note?id=lrn-stale');
    expect(person.body).not.toContain('value="accept"');
    // Rejecting a person's note is refused by the library (forget is the person's way), and nothing moves.
    const csrf = await csrfOf('lrn-stale');
    const r = await post({ action: 'reject', id: 'lrn-stale', kb: learnings, csrf });
    expect(r.status).toBe(400);
    expect(r.body).toMatch(/not awaiting review/);
    expect(fs.existsSync(noteFile('lrn-stale'))).toBe(true);
  });
});

const browser = CHROMIUM ? describe : describe.skip;
if (!CHROMIUM) console.warn('recall view browser checks SKIPPED: no chromium at /usr/bin/chromium (apt-get install chromium)');

browser('every page and every action in a real browser (headless chromium)', () => {
  let b: Browser;
  beforeAll(async () => {
    b = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await b?.close();
  });

  it('opens the printed URL (the token leaves the address bar) and shows Sessions, Notes, a note, Totals per day and Search', async () => {
    expect(await b.goto(`${origin}/?t=${token}`)).toBe(`${origin}/`);
    const sessions = await b.dom();
    expect(sessions).toContain('<h1>Sessions, newest first</h1>');
    expect(sessions).toMatch(/id="status"/);
    for (const [page, marker] of [
      ['/notes', '<table id="notes">'],
      ['/note?id=lrn-pool', 'id="inject-count">1<'],
      ['/days', '<table id="days">'],
      [`/search?q=${encodeURIComponent(POOL_PROMPT)}`, '<table id="results">'],
    ] as const) {
      expect(await b.goto(`${origin}${page}`)).toBe(`${origin}${page}`);
      expect(await b.dom()).toContain(marker);
    }
  }, 240_000);

  it('edits how to apply, supersedes, forgets, accepts and rejects by clicking the page’s own buttons', async () => {
    await b.goto(`${origin}/note?id=lrn-pool`);
    let at = await b.navigateBy(
      `(() => { const f = document.querySelector('form.action input[name=apply]').form; f.querySelector('input[name=apply]').value = 'Close the transaction before calling the payment API.'; f.querySelector('button').click(); })()`,
    );
    expect(at).toMatch(/\/note\?id=lrn-pool&kb=.*&done=apply$/);
    expect(await b.dom()).toMatch(/id="flash">Saved: the how-to-apply line was changed/);
    expect(fs.readFileSync(noteFile('lrn-pool'), 'utf8')).toContain(
      '**How to apply:** Close the transaction before calling the payment API.',
    );
    expect(w.recall(['show', 'lrn-pool']).stdout).toMatch(/How to apply:(\*\*)? Close the transaction before calling the payment API\./);

    at = await b.navigateBy(
      `(() => { const f = document.querySelector('form.action input[name=new]').form; f.querySelector('input[name=new]').value = 'lrn-pool-v2'; f.querySelector('button').click(); })()`,
    );
    expect(at).toMatch(/done=supersede$/);
    expect(w.recall(['show', 'lrn-pool']).stdout).toContain('SUPERSEDED by lrn-pool-v2');
    expect(await b.dom()).toMatch(/This note is superseded by lrn-pool-v2/);

    await b.goto(`${origin}/note?id=lrn-stale`);
    at = await b.navigateBy(`document.querySelector('form.action input[value=forget]').form.querySelector('button').click()`);
    expect(at).toMatch(/done=forget$/);
    expect(fs.readdirSync(path.join(learnings, 'documents', '.forgotten')).length).toBe(1);
    expect(w.recall(['show', 'lrn-stale']).stdout).toContain('FORGOTTEN');

    // An agent's note: accepted by clicking Accept (it becomes the person's), the other rejected.
    await b.goto(`${origin}/note?id=lrn-agent-keep`);
    at = await b.navigateBy(`document.querySelector('form.action input[value=accept]').form.querySelector('button').click()`);
    expect(at).toMatch(/done=accept$/);
    expect(fs.readFileSync(noteFile('lrn-agent-keep'), 'utf8')).toMatch(/^status: approved$/m);
    expect(await b.dom()).not.toContain('value="accept"');
    await b.goto(`${origin}/note?id=lrn-agent-drop`);
    at = await b.navigateBy(`document.querySelector('form.action input[value=reject]').form.querySelector('button').click()`);
    expect(at).toMatch(/done=reject$/);
    expect(w.recall(['show', 'lrn-agent-drop']).stdout).toContain('FORGOTTEN');
  }, 240_000);
});
