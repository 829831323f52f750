/**
 * The review library that `recall review/accept/reject` and `recall view` call
 * (pipeline/notes/review.ts), in-process on a temp KB: what it lists, what accept writes, what
 * reject moves, and which notes the agent-facing guard on forget and supersede lets through.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { tempKb, type TempKb } from '../helpers/kb.js';
import { ids, recallIn } from '../helpers/run.js';
import { PersonsNoteError, acceptNote, agentShell, forget, listUnreviewed, rejectNote, supersede } from '../../pipeline/notes/index.js';
import { formatList, formatShown, listNotes, showNote } from '../../pipeline/notes/notes.js';

let kb: TempKb;
afterEach(() => kb?.cleanup());

const io = () => ({ env: { HOME: kb.state, REFLECT_STATE_DIR: kb.state }, cwd: kb.root, warn: () => undefined });
const opts = () => ({ kb: kb.root, global: false, allBranches: false });
const agentNote = (id: string, extra = '') =>
  `---\nid: ${id}\ntitle: "agent ${id}"\nconfidence: high\nkey_insight: "insight ${id}"\n${extra}provenance:\n  source_tool: "recall mcp"\n  session_id: "sess-1"\n---\nbody\n`;
const personNote = (id: string) => `---\nid: ${id}\ntitle: "person ${id}"\nconfidence: high\nkey_insight: "insight ${id}"\n---\nbody\n`;

describe('review library', () => {
  it('lists only live notes agents wrote and no person accepted', () => {
    kb = tempKb();
    kb.write('documents/a.md', agentNote('a'));
    kb.write('documents/b.md', agentNote('b', 'status: approved\n'));
    kb.write('documents/p.md', personNote('p'));
    const rows = listUnreviewed(opts(), io());
    expect(rows.map((r) => r.id)).toEqual(['a']);
    expect(rows[0]).toMatchObject({ confidence: 'MEDIUM', claimed_confidence: 'HIGH', source_tool: 'recall mcp', session_id: 'sess-1' });
  });

  it('accept writes status approved (keeping the rest of the header), then lists it no more; twice is refused', () => {
    kb = tempKb();
    const file = kb.write('documents/a.md', agentNote('a'));
    const now = new Date('2026-12-05T10:00:00Z');
    expect(acceptNote('a', opts(), io(), { now })).toMatchObject({ id: 'a', confidence: 'HIGH' });
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('status: approved\napproved_at: 2026-12-05T10:00:00.000Z\n');
    expect(text).toContain('provenance:\n  source_tool: "recall mcp"');
    expect(listUnreviewed(opts(), io())).toEqual([]);
    expect(() => acceptNote('a', opts(), io())).toThrow(/not awaiting review/);
  });

  it("reject moves an agent's note to the forgotten folder marked rejected; a person's note is refused", () => {
    kb = tempKb();
    kb.write('documents/a.md', agentNote('a'));
    kb.write('documents/p.md', personNote('p'));
    const r = rejectNote('a', opts(), io());
    expect(r.to).toBe(path.join(kb.root, 'documents', '.forgotten', 'a.md'));
    expect(fs.readFileSync(r.to, 'utf8')).toContain('status: rejected');
    expect(() => rejectNote('p', opts(), io())).toThrow(/recall forget p/);
    expect(fs.existsSync(path.join(kb.root, 'documents', 'p.md'))).toBe(true);
  });

  it("the unreviewed guard refuses a person's note, and an agent's note once a person accepted it", () => {
    kb = tempKb();
    kb.write('documents/a.md', agentNote('a'));
    kb.write('documents/b.md', agentNote('b'));
    kb.write('documents/p.md', personNote('p'));
    expect(() => forget('p', opts(), io(), 'unreviewed')).toThrow(PersonsNoteError);
    expect(() => supersede('a', 'p', opts(), io(), 'unreviewed')).toThrow(PersonsNoteError);
    acceptNote('b', opts(), io());
    expect(() => forget('b', opts(), io(), 'unreviewed')).toThrow(PersonsNoteError);
    expect(forget('a', opts(), io(), 'unreviewed').id).toBe('a');
  });

  it("knows an agent's shell by its harness's environment", () => {
    expect(agentShell({ CLAUDECODE: '1' })).toMatch(/Claude Code/);
    expect(agentShell({ CODEX_THREAD_ID: 't' })).toMatch(/Codex/);
    expect(agentShell({ HOME: '/h' })).toBeNull();
  });

  it("an unreviewed note's supersedes list retires nothing until a person accepts it", async () => {
    kb = tempKb();
    kb.write('documents/p.md', personNote('p').replace('insight p', 'postgres pool sizing per worker'));
    kb.write('documents/a.md', agentNote('a', 'supersedes: [p]\n').replace('insight a', 'postgres pool sizing, the agent says'));
    expect(ids(await recallIn(kb, 'postgres pool sizing'))).toContain('p');
    acceptNote('a', opts(), io());
    expect(ids(await recallIn(kb, 'postgres pool sizing'))).not.toContain('p');
  });

  it('show and list mark an unreviewed note, and only it', () => {
    kb = tempKb();
    kb.write('documents/a.md', agentNote('a'));
    kb.write('documents/p.md', personNote('p'));
    expect(formatShown(showNote('a', opts(), io())).split('\n')[2]).toBe(
      'UNREVIEWED: written by the agent in session sess-1, not reviewed (recall accept a / recall reject a)',
    );
    expect(formatShown(showNote('p', opts(), io())).split('\n')[2]).not.toMatch(/UNREVIEWED/);
    const rows = listNotes(opts(), io());
    expect(rows.find((r) => r.id === 'a')!.review).toBe('written by the agent in session sess-1, not reviewed');
    expect('review' in rows.find((r) => r.id === 'p')!).toBe(false);
    expect(formatList(rows)).toMatch(/ a {2}agent a {2}\[unreviewed\]\n/);
  });
});
