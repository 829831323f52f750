/**
 * A note's provenance names the harness and session, and never carries a secret through either; a
 * note's text keeps no secret pasted into it.
 */
import { describe, it, expect } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { checkLearning, cleanNote, provenanceOf } from '../../pipeline/learnings/index.js';

describe('provenanceOf', () => {
  it('names the harness from the environment or the MCP client', () => {
    expect(provenanceOf({ CLAUDECODE: '1', CLAUDE_CODE_SESSION_ID: 'sess-1' }, 'recall mcp')).toEqual({
      tool: 'recall mcp',
      harness: 'claude',
      sessionId: 'sess-1',
    });
    expect(provenanceOf({}, 'recall mcp', { client: 'my-editor' }).harness).toBe('my-editor');
  });

  it('scrubs a token in the client name before cutting it, and skips a session id that is a secret', () => {
    const token = ['ghp_', '1234567890abcdefghijABCDEFGHIJ0123456789'].join('');
    const p = provenanceOf({ CLAUDE_CODE_SESSION_ID: token }, 'recall mcp', { client: `evilinjected${token}`, fallbackSession: 'mcp-7' });
    expect(JSON.stringify(p)).not.toContain('ghp_');
    expect(JSON.stringify(p)).not.toContain('1234567890abcdefghij');
    expect(p.sessionId).toBe('mcp-7');
  });
});

describe('cleanNote: what MCP save and `recall add` write', () => {
  it('keeps no piece of a private key pasted without its END line, nor a random base64 secret cut by "/"', () => {
    const key = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const cut = key.replace(/-----END [^\n]*-----\n?$/, '');
    const b64 = ['Zq8vR2mK/x7Lp4Nw9Bt3', 'Hj6Ys/Qe1Uc5Df0aWk'].join('');
    const note = cleanNote(
      checkLearning({ title: 'deploy key for CI', insight: `signing with ${b64} fails`, body: `the key:\n${cut}\nloads nowhere` }),
    );
    const written = JSON.stringify(note);
    for (const line of cut.split('\n').filter((l) => l.length > 12 && !l.startsWith('-----')))
      expect(written).not.toContain(line.slice(0, 16));
    expect(written).not.toContain(b64.slice(0, 12));
    expect(note.body).toContain('-----BEGIN PRIVATE KEY-----');
  });
});
