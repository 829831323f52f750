/**
 * A hook facing a server that does not accept its call (busy or hung) runs in its own process only in
 * one of the few in-process places; with every place taken it waits for the server up to its
 * deadline and then answers one valid, empty envelope (exit 0), saying why in its log, instead of
 * adding one more full pipeline run to a loaded machine.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expectEnvelope, hostileCase, prompt, runHook, type Case } from '../hostile/helpers.js';
import { serverSocketPath } from '../../sources/recall-server/protocol.js';
import { IN_PROCESS_SLOTS } from '../../client/fallback-slots.js';

let c: Case;
let hung: net.Server | null = null;
const conns = new Set<net.Socket>();
afterEach(async () => {
  for (const s of conns) s.destroy();
  if (hung) await new Promise((r) => hung!.close(r));
  hung = null;
  c?.cleanup();
});

describe('a server that does not accept', () => {
  it('with every in-process place taken: an empty envelope by the deadline, the reason logged; with one free: notes', async () => {
    c = hostileCase();
    const env = { ...c.env, REFLECT_RECALL_TIMEOUT: '3' };
    const socket = serverSocketPath(env);
    fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
    // Takes connections and never answers (a server busy in other work, or stopped).
    hung = net.createServer((s) => void conns.add(s));
    await new Promise<void>((r) => hung!.listen(socket, r));
    // Every place held by a live process (this one).
    const places = Array.from({ length: IN_PROCESS_SLOTS }, (_, i) => path.join(path.dirname(socket), `inproc-${i}.lock`));
    for (const f of places) fs.writeFileSync(f, String(process.pid));
    const busy = await runHook('user-prompt-submit', { env, stdin: prompt(undefined, 'busy') });
    expect(expectEnvelope(busy, 3000)).toBe('');
    const log = fs.readFileSync(path.join(c.state, 'logs', 'user-prompt-submit.log'), 'utf8');
    expect(log).toMatch(/server: busy, it did not accept the call before the deadline/);
    expect(log).not.toMatch(/answered in this process/);
    // A place comes free: the next hook runs the call itself, as with a hung server before.
    fs.rmSync(places[0]!);
    const served = await runHook('user-prompt-submit', { env, stdin: prompt(undefined, 'free') });
    expect(expectEnvelope(served, 3000)).toContain('[lrn-pool]');
    // Its place is given back when it exits.
    expect(fs.existsSync(places[0]!)).toBe(false);
  }, 60_000);
});
