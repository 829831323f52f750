/**
 * A hook call reads its settings once: the config file once, where the call is put together (for
 * its deadline, the stdin wait and the run), and the settings object once, passed down to the
 * recall session. Both readers are wrapped with a counter before the hook modules are loaded.
 */
import { describe, it, expect, afterEach, jest } from '@jest/globals';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';

const calls = { loadConfig: 0, withConfigFile: 0 };
const realConfig = await import('../../pipeline/config/config.js');
const realFile = await import('../../pipeline/config/file.js');
jest.unstable_mockModule('../../pipeline/config/config.js', () => ({
  ...realConfig,
  loadConfig: (...args: Parameters<typeof realConfig.loadConfig>) => {
    calls.loadConfig += 1;
    return realConfig.loadConfig(...args);
  },
}));
jest.unstable_mockModule('../../pipeline/config/file.js', () => ({
  ...realFile,
  withConfigFile: (...args: Parameters<typeof realFile.withConfigFile>) => {
    calls.withConfigFile += 1;
    return realFile.withConfigFile(...args);
  },
}));
const { hookCall } = await import('../../client/hook-call.js');
const { answerHook } = await import('../../hooks/answer.js');

const kbs: TempKb[] = [];
afterEach(() => {
  for (const k of kbs.splice(0)) k.cleanup();
});

function kb(): TempKb {
  const k = tempKb();
  kbs.push(k);
  k.write('documents/pool.md', noteText('lrn-pool', 'postgres connection pool exhausted in tests', 'release every client in afterEach'));
  k.write('documents/idle.md', noteText('lrn-idle', 'postgres idle transactions hold the pool', 'close transactions before slow work'));
  // A config file, so that reading it is real work that must happen once.
  k.write('../state/recall.toml', 'limit = 5\n');
  return k;
}

const envOf = (k: TempKb): Record<string, string> => ({
  PATH: process.env['PATH'] ?? '',
  HOME: k.state,
  REFLECT_STATE_DIR: k.state,
  GLOBAL_LEARNINGS_PATH: k.root,
  ...driverEnv(),
});

async function callHook(name: 'user-prompt-submit' | 'session-start', payload: Record<string, unknown>, k: TempKb): Promise<string> {
  calls.loadConfig = 0;
  calls.withConfigFile = 0;
  return answerHook(hookCall(name, JSON.stringify(payload), { env: envOf(k), cwd: k.root, startedMs: Date.now() }));
}

describe('settings per hook call', () => {
  it('the prompt hook reads the config file and the settings once', async () => {
    const k = kb();
    const out = await callHook('user-prompt-submit', { session_id: 's1', prompt: 'the postgres connection pool is exhausted in tests' }, k);
    expect(out).toContain('lrn-pool');
    expect(calls).toEqual({ loadConfig: 1, withConfigFile: 1 });
  });

  it('the session-start hook reads them once too (its branch is set on the settings already read)', async () => {
    const k = kb();
    const out = await callHook('session-start', { session_id: 's2', source: 'startup', cwd: k.root }, k);
    expect(JSON.parse(out)).toHaveProperty('hookSpecificOutput');
    expect(calls).toEqual({ loadConfig: 1, withConfigFile: 1 });
  });
});
