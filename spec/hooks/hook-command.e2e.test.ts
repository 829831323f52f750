/**
 * The hook commands the harnesses run (hooks/install/harness-config.ts hookCommand), by the hook
 * table's keeper column: the burst hooks with short deadlines (subagent-start, pre-tool-use) start
 * the shell keeper scripts/hook.sh; the session-start and prompt hooks, one at a time with 20 s,
 * run node on launch.mjs directly, no shell keeper, timer or temp file. Both start node without
 * the user's CA bundle (node reads the file NODE_EXTRA_CA_CERTS names as it starts, and a hook
 * makes no TLS connection) and keep it for the recall server the thin client may start.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HOOK_TABLE } from '../../hooks/hook-table.js';
import { hookCommand } from '../../hooks/install/harness-config.js';
import { serverEnv } from '../../client/start-server.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const launch = path.join(repo, 'scripts', 'launch.mjs');

let dir = '';
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = '';
});

describe('which hooks start through the keeper (the hook table keeper column)', () => {
  it('the burst hooks with short deadlines; the session-start and prompt hooks run node directly', () => {
    expect(HOOK_TABLE.filter((h) => h.keeper).map((h) => h.name)).toEqual(['subagent-start', 'pre-tool-use']);
    for (const harness of ['claude', 'codex', 'copilot'] as const)
      for (const h of HOOK_TABLE) {
        const codex = harness === 'codex' ? 'env REFLECT_HARNESS=codex ' : '';
        expect(hookCommand(h.name, '/opt/recall', harness)).toBe(
          h.keeper
            ? `${codex}sh /opt/recall/scripts/hook.sh /opt/recall/scripts/launch.mjs hook ${h.name}`
            : harness === 'codex'
              ? `${codex}node /opt/recall/scripts/launch.mjs hook ${h.name}`
              : `RECALL_EXTRA_CA_CERTS="$NODE_EXTRA_CA_CERTS" NODE_EXTRA_CA_CERTS= node /opt/recall/scripts/launch.mjs hook ${h.name}`,
        );
      }
  });
});

describe("the hook's node and the CA bundle, without the keeper", () => {
  it.each(['claude', 'copilot'] as const)(
    '%s: the command moves it to RECALL_EXTRA_CA_CERTS, and leaves both empty when the user has none',
    (harness) => {
      dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-hook-command-')));
      // `node` on the PATH is a stand-in that prints what it was started with and exits.
      const bin = path.join(dir, 'bin');
      fs.mkdirSync(bin);
      fs.writeFileSync(
        path.join(bin, 'node'),
        '#!/bin/sh\ncat >/dev/null\nprintf \'{"args":"%s","node":"%s","set":"%s","kept":"%s","harness":"%s"}\\n\' ' +
          '"$*" "$NODE_EXTRA_CA_CERTS" "${NODE_EXTRA_CA_CERTS+set}" "$RECALL_EXTRA_CA_CERTS" "$REFLECT_HARNESS"\n',
        { mode: 0o755 },
      );
      const env = { PATH: `${bin}:${process.env['PATH'] ?? ''}`, HOME: dir };
      // A path a shell would split or expand, were the command to leave it unquoted.
      const ca = path.join(dir, 'corp $HOME ca.pem');
      const asHarness = (command: string, extra: Record<string, string>) =>
        spawnSync('sh', ['-c', command], { env: { ...env, ...extra }, input: '{"prompt":"x"}', encoding: 'utf8', timeout: 30_000 });
      for (const h of HOOK_TABLE.filter((row) => !row.keeper)) {
        const command = hookCommand(h.name, repo, harness);
        const args = `${launch} hook ${h.name}`;
        const withCa = asHarness(command, { NODE_EXTRA_CA_CERTS: ca });
        expect({ code: withCa.status, out: JSON.parse(withCa.stdout) as unknown }).toEqual({
          code: 0,
          out: { args, node: '', set: 'set', kept: ca, harness: '' },
        });
        const without = asHarness(command, {});
        expect(JSON.parse(without.stdout)).toEqual({ args, node: '', set: 'set', kept: '', harness: '' });
      }
    },
  );

  it("codex: a command any login shell reads, even with `set -u`: node gets the user's bundle as it is", () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-hook-command-')));
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(
      path.join(bin, 'node'),
      '#!/bin/sh\ncat >/dev/null\nprintf \'{"args":"%s","node":"%s","harness":"%s"}\\n\' "$*" "${NODE_EXTRA_CA_CERTS-}" "$REFLECT_HARNESS"\n',
      { mode: 0o755 },
    );
    const env = { PATH: `${bin}:${process.env['PATH'] ?? ''}`, HOME: dir };
    for (const h of HOOK_TABLE.filter((row) => !row.keeper)) {
      const command = hookCommand(h.name, repo, 'codex');
      const args = `${launch} hook ${h.name}`;
      // `sh -uc`: as a login profile that sets `set -u` leaves Codex's `$SHELL -lc`.
      const run = (extra: Record<string, string>) =>
        spawnSync('sh', ['-uc', command], { env: { ...env, ...extra }, input: '{"prompt":"x"}', encoding: 'utf8', timeout: 30_000 });
      const withCa = run({ NODE_EXTRA_CA_CERTS: '/etc/corp-ca.pem' });
      expect({ code: withCa.status, out: JSON.parse(withCa.stdout) as unknown }).toEqual({
        code: 0,
        out: { args, node: '/etc/corp-ca.pem', harness: 'codex' },
      });
      const without = run({});
      expect({ code: without.status, out: JSON.parse(without.stdout) as unknown }).toEqual({
        code: 0,
        out: { args, node: '', harness: 'codex' },
      });
    }
  });

  it('the thin client gives the bundle back to a recall server it starts, and drops the empty variables', () => {
    const ca = '/etc/corp-ca.pem';
    expect(serverEnv({ PATH: '/bin', NODE_EXTRA_CA_CERTS: '', RECALL_EXTRA_CA_CERTS: ca })).toEqual({
      PATH: '/bin',
      NODE_EXTRA_CA_CERTS: ca,
    });
    expect(serverEnv({ PATH: '/bin', NODE_EXTRA_CA_CERTS: '', RECALL_EXTRA_CA_CERTS: '' })).toEqual({ PATH: '/bin' });
    // A bundle the caller's node was started with stays as it is.
    expect(serverEnv({ PATH: '/bin', NODE_EXTRA_CA_CERTS: 'own.pem', RECALL_EXTRA_CA_CERTS: ca })).toEqual({
      PATH: '/bin',
      NODE_EXTRA_CA_CERTS: 'own.pem',
    });
  });
});
