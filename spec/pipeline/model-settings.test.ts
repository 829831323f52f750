/**
 * The model settings every caller (the recall's model client, the daemon, `recall models`, `recall
 * status`) takes from the configuration, built in one place: the daemon a recall starts and the one
 * `recall daemon status` looks for are at the same socket only if they see the same settings.
 */
import { describe, expect, it } from '@jest/globals';
import { loadConfig, modelSettings } from '../../pipeline/config/index.js';
import { daemonSocketPath } from '../../sources/daemon-protocol.js';

describe('modelSettings', () => {
  it('carries the model ids, folder and token budgets of the configuration', () => {
    const config = loadConfig({
      HOME: '/h',
      REFLECT_STATE_DIR: '/h/state',
      REFLECT_CE_MODEL: 'org/ce',
      REFLECT_EMBED_MODEL: 'org/embed',
      RECALL_CE_MAX_TOKENS: '128',
      RECALL_EMBED_MAX_TOKENS: '64',
    });
    expect(modelSettings(config)).toEqual({
      modelsDir: '/h/state/models',
      ceModel: 'org/ce',
      embedModel: 'org/embed',
      ceMaxTokens: 128,
      embedMaxTokens: 64,
    });
  });

  it('gives a daemon socket that changes with every model setting', () => {
    const base = { HOME: '/h', REFLECT_STATE_DIR: '/h/state' };
    const socketOf = (env: Record<string, string>): string => {
      const c = loadConfig({ ...base, ...env });
      return daemonSocketPath(c.stateDir, modelSettings(c));
    };
    const sockets = [
      socketOf({}),
      socketOf({ REFLECT_CE_MODEL: 'org/ce' }),
      socketOf({ REFLECT_EMBED_MODEL: 'org/embed' }),
      socketOf({ REFLECT_MODELS_DIR: '/elsewhere' }),
      socketOf({ RECALL_CE_MAX_TOKENS: '128' }),
      socketOf({ RECALL_EMBED_MAX_TOKENS: '64' }),
    ];
    expect(new Set(sockets).size).toBe(sockets.length);
  });
});
