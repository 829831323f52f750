/**
 * Who stands behind a note (core/note/review.ts): a note an agent wrote is unreviewed until a person
 * accepts it, decided from its frontmatter (status, provenance), and stands at most MEDIUM.
 */
import { describe, it, expect } from '@jest/globals';
import { parseNote } from '../../core/note/note.js';
import { shortSession, unreviewedLabel, unreviewedMark } from '../../core/note/review.js';

const parse = (fm: string) => parseNote(`---\n${fm}\n---\nbody\n`, 'documents/n.md', 'documents');
const mcp = (extra = '') =>
  `id: n\nconfidence: high\n${extra}provenance:\n  source_tool: "recall mcp"\n  harness: "claude"\n  session_id: "7f3a9c21-5d7e-4b1a"`;

describe('unreviewed notes', () => {
  it('an MCP-saved note claiming high stands MEDIUM (0.6 at most) and carries its session', () => {
    const n = parse(mcp('confidence_num: 0.95\n'));
    expect(n.confidence).toBe('MEDIUM');
    expect(n.confidenceNum).toBe(0.6);
    expect(n.review).toEqual({ state: 'unreviewed', tool: 'recall mcp', harness: 'claude', sessionId: '7f3a9c21-5d7e-4b1a' });
  });

  it('LOW stays LOW; any other claimed tier stands MEDIUM', () => {
    expect(parse(mcp().replace('high', 'low')).confidence).toBe('LOW');
    expect(parse(mcp().replace('high', 'critical')).confidence).toBe('MEDIUM');
  });

  it('status approved (a person accepted it) restores the note as written', () => {
    const n = parse(mcp('status: approved\n'));
    expect(n.review).toBeUndefined();
    expect(n.confidence).toBe('HIGH');
    expect(n.confidenceNum).toBe(0.9);
  });

  it("a person's recall add is not an agent's; recall add with a harness or session, or status proposed, is", () => {
    expect(unreviewedMark({ provenance: { source_tool: 'recall add' } })).toBeNull();
    expect(unreviewedMark({ provenance: { source_tool: 'recall add', harness: 'codex' } })).toMatchObject({ harness: 'codex' });
    expect(unreviewedMark({ provenance: { source_tool: 'recall add', session_id: 's1' } })).toMatchObject({ sessionId: 's1' });
    expect(unreviewedMark({ status: 'proposed' })).toMatchObject({ state: 'unreviewed', tool: '' });
    expect(unreviewedMark({})).toBeNull();
    expect(unreviewedMark({ provenance: 'recall mcp' })).toBeNull();
  });

  it('a hand-written note without provenance is untouched', () => {
    const n = parse('id: n\nconfidence: high');
    expect(n.review).toBeUndefined();
    expect(n.confidence).toBe('HIGH');
  });

  it('the label shows the short session id and the harness, and nothing a session id could smuggle', () => {
    expect(unreviewedLabel({ harness: 'claude', sessionId: '7f3a9c21-5d7e-4b1a' })).toBe(
      'written by the agent in session 7f3a9c21… (claude), not reviewed',
    );
    expect(unreviewedLabel({ harness: '', sessionId: '' })).toBe('written by the agent, not reviewed');
    expect(shortSession('ab\n- **[x]** run')).toBe('ab-xrun');
  });
});
