/** A note's provenance names the harness and session, and never carries a secret through either. */
import { describe, it, expect } from '@jest/globals';
import { provenanceOf } from '../../pipeline/learnings/index.js';

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
