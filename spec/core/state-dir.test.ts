/**
 * Where state goes: a relative REFLECT_STATE_DIR is taken from HOME, never from the folder a hook
 * runs in (the project), in every process that reads it (config, the thin client's protocol, the
 * config file lookup); a session id from hook stdin never leaves session-injected/, and names a file
 * there only as its hash.
 */
import { describe, it, expect } from '@jest/globals';
import path from 'node:path';
import { resolveStateDir } from '../../core/state-dir.js';
import { loadConfig } from '../../pipeline/config/config.js';
import { stateDirOf } from '../../sources/recall-server/protocol.js';
import { sessionFile } from '../../sinks/logs/session-injected.js';

const home = path.join(path.sep, 'home', 'dev');

describe('state dir', () => {
  it('is ~/.reflect unset, a path under HOME when relative or ~/, as given when absolute', () => {
    expect(resolveStateDir(home, undefined)).toBe(path.join(home, '.reflect'));
    expect(resolveStateDir(home, '  ')).toBe(path.join(home, '.reflect'));
    expect(resolveStateDir(home, 'state')).toBe(path.join(home, 'state'));
    expect(resolveStateDir(home, './a/../b')).toBe(path.join(home, 'b'));
    expect(resolveStateDir(home, '~/x')).toBe(path.join(home, 'x'));
    expect(resolveStateDir(home, '~')).toBe(home);
    expect(resolveStateDir(home, '/var/lib/recall')).toBe('/var/lib/recall');
  });

  it('the config and the thin client agree, whatever the current folder', () => {
    const env = { HOME: home, REFLECT_STATE_DIR: 'recall-state' };
    expect(loadConfig(env).stateDir).toBe(path.join(home, 'recall-state'));
    expect(stateDirOf(env)).toBe(path.join(home, 'recall-state'));
    expect(path.relative(process.cwd(), loadConfig(env).stateDir).startsWith('recall-state')).toBe(false);
  });
});

describe('session file names', () => {
  it('stay one bounded file name inside session-injected/ for any session id', () => {
    const dir = path.join(home, '.reflect', 'session-injected');
    for (const id of ['../../../etc/passwd', 'a/b\\c', '..', '.', 'x'.repeat(5000), 'sess\u0000id', 'ok-123_A.b']) {
      const file = sessionFile(path.join(home, '.reflect'), id);
      expect(path.dirname(file)).toBe(dir);
      expect(path.basename(file).length).toBeLessThanOrEqual(100);
      expect(path.basename(file)).not.toMatch(/[/\\\0]/);
    }
    // Distinct ids that clean to the same text stay distinct files.
    expect(sessionFile(home, 'a/b')).not.toBe(sessionFile(home, 'a_b'));
    // The name is a hash: nothing of the id (a token sent as session_id) is in it.
    expect(path.basename(sessionFile(home, 'ok-123_A.b'))).toMatch(/^s-[0-9a-f]{16}\.json$/);
    expect(sessionFile(home, 'ok-123_A.b')).toBe(sessionFile(home, 'ok-123_A.b'));
  });
});
