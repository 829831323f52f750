/**
 * `recall hook NAME` run through the CLI launcher (bin/recall), as a harness or a script calls it,
 * starts node without NODE_EXTRA_CA_CERTS, which node reads as it starts and a hook never uses; the
 * bundle is kept as RECALL_EXTRA_CA_CERTS for the recall server and a team store. Every other
 * command keeps it as it is.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { repo } from '../helpers/zero-config.js';

let dir = '';
beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-launcher-ca-')));
  // A stand-in for node, first on PATH: it prints what the launcher started it with.
  fs.writeFileSync(
    path.join(dir, 'node'),
    `#!/bin/sh\nprintf '{"node":"%s","set":"%s","kept":"%s"}\\n' "$NODE_EXTRA_CA_CERTS" "\${NODE_EXTRA_CA_CERTS+set}" "$RECALL_EXTRA_CA_CERTS"\n`,
    { mode: 0o755 },
  );
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function started(args: string[], env: Record<string, string>): unknown {
  const r = spawnSync('sh', [path.join(repo, 'bin', 'recall'), ...args], {
    env: { PATH: `${dir}:${process.env['PATH'] ?? ''}`, ...env },
    cwd: dir,
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

describe('bin/recall and the CA bundle', () => {
  it('starts a hook without NODE_EXTRA_CA_CERTS and keeps the bundle as RECALL_EXTRA_CA_CERTS', () => {
    expect(started(['hook', 'user-prompt-submit'], { NODE_EXTRA_CA_CERTS: '/corp/ca.pem' })).toEqual({
      node: '',
      set: '',
      kept: '/corp/ca.pem',
    });
  });

  it('leaves every other command, and a hook without a bundle, as they are', () => {
    expect(started(['models', 'pull'], { NODE_EXTRA_CA_CERTS: '/corp/ca.pem' })).toEqual({ node: '/corp/ca.pem', set: 'set', kept: '' });
    expect(started(['list', 'hook'], { NODE_EXTRA_CA_CERTS: '/corp/ca.pem' })).toEqual({ node: '/corp/ca.pem', set: 'set', kept: '' });
    expect(started(['hook', 'pre-tool-use'], {})).toEqual({ node: '', set: '', kept: '' });
    // A bundle the caller kept itself is not overwritten: both stay as they are.
    expect(started(['hook', 'pre-tool-use'], { NODE_EXTRA_CA_CERTS: '/corp/ca.pem', RECALL_EXTRA_CA_CERTS: '/own.pem' })).toEqual({
      node: '/corp/ca.pem',
      set: 'set',
      kept: '/own.pem',
    });
    // A command that moved it already (the installed hook commands) keeps what it moved.
    expect(started(['hook', 'pre-tool-use'], { NODE_EXTRA_CA_CERTS: '', RECALL_EXTRA_CA_CERTS: '/corp/ca.pem' })).toEqual({
      node: '',
      set: 'set',
      kept: '/corp/ca.pem',
    });
  });
});
