/**
 * What the logs keep of a session and of a note:
 * - a session id (whatever a client sends, a token included) names no file under the state dir and
 *   reaches no log as it came: it is written as its hash, the same hash for every hook of one
 *   session, so the session's state (injected ids, pending verdicts, the follow-up record) is found
 *   again;
 * - note ids are recall's own names for notes and are written as they are, even when the prompt's
 *   secret shares words with them; text that came from people (the prompt, titles, the abstention
 *   reason) is still scrubbed.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sessionKey } from '../../core/session-key.js';
import { claimInjected, claimNotice, logGap, readInjected, recordFollowup } from '../../sinks/logs/index.js';
import { addPending, logHookEvent, logUseEvent, takePending, type HookEvent } from '../../sinks/hook-events/index.js';
import { scrub } from '../../sinks/scrub/index.js';
import { LOCK_WAIT_MS, lockOwnerText } from '../../sinks/logs/file-lock.js';
import { sessionFile } from '../../sinks/logs/session-injected.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
const stateDir = (): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-session-ids-'));
  dirs.push(d);
  return d;
};

/** Every file under `dir`: its path below `dir` and its text. */
const everything = (dir: string): string =>
  fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => `${path.relative(dir, path.join(e.parentPath, e.name))}\n${fs.readFileSync(path.join(e.parentPath, e.name), 'utf8')}`)
    .join('\n');

const logLines = (dir: string): Record<string, unknown>[] =>
  fs
    .readFileSync(path.join(dir, 'recall_log.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

// Built from parts so that no whole token sits in the source.
const TOKEN_SESSION = ['ghp_', 'R8mQ2xVt7LpZ4kN9wB3cY6hJ1fD5sA0gE2uK'].join('');

const hookEvent = (over: Partial<HookEvent>): HookEvent => ({
  hook: 'user-prompt-submit',
  harness: 'claude-code',
  session: 'sess-1',
  kb: '/kb',
  query: 'how do I abort a multipart upload',
  injected: [],
  deduped: [],
  over_budget: [],
  abstained: null,
  tokens: 0,
  stages: [],
  recall_ms: 1,
  hook_ms: 2,
  degraded: [],
  ...over,
});

describe('session ids', () => {
  it('are hashed: the same id gives the same name, different ids different names, no piece of the id kept', () => {
    expect(sessionKey(TOKEN_SESSION)).toBe(sessionKey(TOKEN_SESSION));
    expect(sessionKey('a/b')).not.toBe(sessionKey('a_b'));
    expect(sessionKey(TOKEN_SESSION)).toMatch(/^s-[0-9a-f]{16}$/);
    expect(scrub(sessionKey(TOKEN_SESSION))).toBe(sessionKey(TOKEN_SESSION));
  });

  it('a token sent as the session id names no file and reaches no log, and the session state still carries over', () => {
    const dir = stateDir();
    // Injected ids: claimed by one hook, seen by the next hook of the same session.
    expect(claimInjected(dir, TOKEN_SESSION, () => ['lrn-a'])).toEqual(['lrn-a']);
    expect([...readInjected(dir, TOKEN_SESSION)]).toEqual(['lrn-a']);
    expect([...readInjected(dir, 'another-session')]).toEqual([]);
    // The "why recall cannot work" notice: told once per session.
    expect(claimNotice(dir, TOKEN_SESSION)).toBe(true);
    expect(claimNotice(dir, TOKEN_SESSION)).toBe(false);
    // Pending verdicts: added by one hook, taken by the next.
    expect(addPending(dir, TOKEN_SESSION, { ts: 't', event: 'e', transcript: '/t.jsonl', offset: 0, clues: [] })).toBeNull();
    expect(takePending(dir, TOKEN_SESSION).map((p) => p.event)).toEqual(['e']);
    // The logs: gap, follow-up (a second disjoint search in the same session is a follow-up), hook and verdict lines.
    expect(logGap(dir, 'kafka consumer lag', TOKEN_SESSION, Date.now())).toBeNull();
    const metricsPath = path.join(dir, 'metrics.jsonl');
    const opts = { stateDir: dir, metricsPath, sessionId: TOKEN_SESSION, windowSec: 600 };
    expect(recordFollowup(opts, 'kafka lag', ['lrn-a'], Date.now())).toEqual({ followup: false });
    expect(recordFollowup(opts, 'redis eviction', ['lrn-b'], Date.now() + 1000)).toEqual({ followup: true });
    expect('error' in logHookEvent(dir, hookEvent({ session: TOKEN_SESSION }), Date.now())).toBe(false);
    expect(
      logUseEvent(
        dir,
        { session: TOKEN_SESSION, id: 'lrn-a', event: 'e', injected_ts: 't', used: true, evidence: null, by: 'id' },
        Date.now(),
      ),
    ).toBeNull();

    const all = everything(dir);
    expect(all).not.toContain(TOKEN_SESSION);
    expect(all).not.toContain(TOKEN_SESSION.slice(4, 16));
    // Written under the hash, everywhere the session is named.
    const key = sessionKey(TOKEN_SESSION);
    expect(fs.readdirSync(path.join(dir, 'session-injected'))).toContain(`${key}.json`);
    expect(logLines(dir).map((l) => l['session'])).toEqual([key, key]);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'knowledge-gaps.jsonl'), 'utf8'))).toMatchObject({ session_id: key });
  });
});

describe('note ids in the recall log', () => {
  it("are kept as they are when the prompt's secret shares words with them, and titles and reasons are still scrubbed", () => {
    const dir = stateDir();
    const id = 'lrn-s3-multipart-upload-needs-abort-rule-4f9a2c';
    // The password's words (abort, rule) are in the note id too.
    const query = 'the staging password is abort-rule-2024x, why does the multipart upload fail?';
    const secretTitle = ['Rotate ', 'ghp_', 'R8mQ2xVt7LpZ4kN9wB3cY6hJ1fD5sA0gE2uK'].join('');
    const ev = hookEvent({
      query,
      injected: [
        { id, title: 'S3 multipart upload needs an abort rule', relevance: 0.9, score: 1, tokens: 80 },
        { id: 'lrn-k8s-liveness-probe-cascade-2d6f48', title: secretTitle, relevance: 0.5, score: 0.5, tokens: 40 },
      ],
      deduped: ['lrn-oauth2-pkce-s256-verifier-length-7c2e1a'],
      over_budget: ['lrn-ec2-imdsv2-hop-limit-docker-9b1d3e'],
      abstained: 'no note mentions "abort-rule-2024x"',
    });
    expect('error' in logHookEvent(dir, ev, Date.now())).toBe(false);
    const [line] = logLines(dir);
    const injected = line!['injected'] as { id: string; title: string }[];
    expect(injected.map((n) => n.id)).toEqual([id, 'lrn-k8s-liveness-probe-cascade-2d6f48']);
    expect(line!['deduped']).toEqual(['lrn-oauth2-pkce-s256-verifier-length-7c2e1a']);
    expect(line!['over_budget']).toEqual(['lrn-ec2-imdsv2-hop-limit-docker-9b1d3e']);
    // People's text: scrubbed.
    expect(JSON.stringify(line)).not.toContain('abort-rule-2024x');
    expect(injected[1]!.title).toBe('Rotate ***REDACTED***');
    expect(String(line!['abstained'])).toContain('***REDACTED***');
    expect(String(line!['query'])).toContain('***REDACTED***');
  });
});

describe('claimInjected under a held lock', () => {
  it('waits no longer than the caller allows (a hook passes what is left of its deadline), then says it could not claim', () => {
    const dir = stateDir();
    const lock = `${sessionFile(dir, 's-held')}.lock`;
    fs.mkdirSync(path.dirname(lock), { recursive: true });
    // This process as the owner: alive, so the lock is waited for, never taken as stale.
    fs.writeFileSync(lock, lockOwnerText());
    const t0 = Date.now();
    expect(claimInjected(dir, 's-held', () => ['lrn-a'], Date.now(), 50)).toBeNull();
    // The lock's own wait is 3 s; the bound given was 50 ms.
    expect(Date.now() - t0).toBeLessThan(LOCK_WAIT_MS);
    fs.rmSync(lock);
    expect(claimInjected(dir, 's-held', () => ['lrn-a'], Date.now(), 50)).toEqual(['lrn-a']);
  });
});
