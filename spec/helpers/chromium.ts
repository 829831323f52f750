/**
 * A real headless chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
 * JSON messages ended by NUL on fds 3 and 4, no port, no extra package): navigate, read the DOM the
 * page's own script built, click a button and wait for the page the form led to. One browser
 * profile per Browser, so its cookies last across pages like a person's browser.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => fs.existsSync(p)) ?? null;

type Message = {
  id?: number;
  method?: string;
  sessionId?: string;
  result?: Record<string, unknown>;
  error?: { message: string };
  params?: Record<string, unknown>;
};

export interface Browser {
  /** Loads a URL and waits for its load event; returns the final URL (after redirects). */
  goto(url: string): Promise<string>;
  /** The page's DOM as HTML, as the browser built it. */
  dom(): Promise<string>;
  /** Runs an expression in the page (as DevTools does) and returns its value. */
  evaluate<T>(expression: string): Promise<T>;
  /** Runs an expression that submits a form or follows a link, and waits for the next page's load. */
  navigateBy(expression: string): Promise<string>;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  if (!CHROMIUM) throw new Error('no chromium');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-chromium-'));
  const child: ChildProcess = spawn(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--remote-debugging-pipe',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
  );
  const toBrowser = child.stdio[3] as Writable;
  const fromBrowser = child.stdio[4] as Readable;
  let nextId = 1;
  const waiting = new Map<number, { resolve: (m: Message) => void; reject: (e: Error) => void }>();
  const listeners = new Set<(m: Message) => void>();
  let buffer = '';
  fromBrowser.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let end: number;
    while ((end = buffer.indexOf('\0')) >= 0) {
      const msg = JSON.parse(buffer.slice(0, end)) as Message;
      buffer = buffer.slice(end + 1);
      if (msg.id !== undefined && waiting.has(msg.id)) {
        const w = waiting.get(msg.id)!;
        waiting.delete(msg.id);
        if (msg.error) w.reject(new Error(msg.error.message));
        else w.resolve(msg);
      } else for (const l of listeners) l(msg);
    }
  });
  child.once('exit', () => {
    for (const w of waiting.values()) w.reject(new Error('chromium exited'));
  });
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve: (m) => resolve(m.result ?? {}), reject });
      toBrowser.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  const { targetId } = (await send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
  const { sessionId } = (await send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
  await send('Page.enable', {}, sessionId);
  const loaded = (): Promise<void> =>
    new Promise((resolve) => {
      const l = (m: Message): void => {
        if (m.sessionId === sessionId && m.method === 'Page.loadEventFired') {
          listeners.delete(l);
          resolve();
        }
      };
      listeners.add(l);
    });
  const evaluate = async <T>(expression: string): Promise<T> => {
    const r = (await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId)) as {
      result: { value: T };
      exceptionDetails?: { text: string };
    };
    if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.text}`);
    return r.result.value;
  };
  return {
    async goto(url) {
      const load = loaded();
      await send('Page.navigate', { url }, sessionId);
      await load;
      return evaluate<string>('location.href');
    },
    dom: () => evaluate<string>('document.documentElement.outerHTML'),
    evaluate,
    async navigateBy(expression) {
      const load = loaded();
      await evaluate(expression);
      await load;
      return evaluate<string>('location.href');
    },
    async close() {
      // Browser.close lets chromium end its helper processes before it exits; SIGTERM if it does not answer.
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        await send('Browser.close').catch(() => child.kill('SIGTERM'));
        await exited;
      }
      // A helper process may still be writing into the profile for a moment after the browser exited.
      fs.rmSync(profile, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
    },
  };
}
