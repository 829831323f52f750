/**
 * A recall session as its callers use it: the index comes through the opener it is given (the
 * recall server's pool), and `outcome$` is lazy and cancellable: nothing runs before subscribe, and
 * unsubscribing tears down the model call the recall waits on.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import { Observable } from 'rxjs';
import { DEFAULT_COMMAND, openSession, type IndexOpener } from '../../pipeline/run.js';
import { openAndRefresh } from '../../pipeline/session/session-index.js';
import { unavailable, type ModelClient, type RerankResult } from '../../core/ports.js';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';

const kbs: TempKb[] = [];
afterEach(() => {
  for (const k of kbs.splice(0)) k.cleanup();
});

function kb(): TempKb {
  const k = tempKb();
  kbs.push(k);
  k.write('documents/pool.md', noteText('lrn-pool', 'postgres connection pool exhausted in tests', 'release every client in afterEach'));
  k.write('documents/idle.md', noteText('lrn-idle', 'postgres idle transactions hold the pool', 'close transactions before slow work'));
  return k;
}

const envOf = (k: TempKb): Record<string, string> => ({
  PATH: process.env['PATH'] ?? '',
  HOME: k.state,
  REFLECT_STATE_DIR: k.state,
  ...driverEnv(),
});
const OPTS = { global: false, allBranches: false, verbose: false };
const CMD = { ...DEFAULT_COMMAND, query: 'postgres connection pool exhausted', cache: false };

describe('recall session', () => {
  it('opens its index through the opener it is given', async () => {
    const k = kb();
    let opened = 0;
    const openIndex: IndexOpener = (...args) => {
      opened += 1;
      return openAndRefresh(...args);
    };
    const session = await openSession({ ...OPTS, kb: k.root }, { env: envOf(k), cwd: k.root, warn: () => undefined, openIndex });
    try {
      const res = await session.run(CMD, { noLog: true });
      expect(res.outcome?.results.map((r) => r.note.displayId)).toContain('lrn-pool');
    } finally {
      session.close();
    }
    expect(opened).toBe(1);
  });

  it('outcome$ runs nothing before subscribe, and unsubscribing tears down the model call it waits on', async () => {
    const k = kb();
    let asks = 0;
    let torn = false;
    let asked: () => void = () => undefined;
    const askedP = new Promise<void>((resolve) => (asked = resolve));
    const models: ModelClient = {
      models: { ce: 'fake-ce', embed: null },
      rerank: () =>
        new Observable<RerankResult>(() => {
          asks += 1;
          asked();
          return () => void (torn = true);
        }),
      embed: () => unavailable('none'),
      embedTexts: () => unavailable('none'),
      knn: () => unavailable('none'),
    };
    const session = await openSession({ ...OPTS, kb: k.root }, { env: envOf(k), cwd: k.root, warn: () => undefined, models });
    try {
      const outcome$ = session.outcome$(CMD, { noLog: true });
      expect(asks).toBe(0);
      const sub = outcome$.subscribe();
      await askedP;
      expect(torn).toBe(false);
      sub.unsubscribe();
      expect(torn).toBe(true);
    } finally {
      session.close();
    }
  });
});
