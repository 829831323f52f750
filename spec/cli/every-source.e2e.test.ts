/**
 * Every command that reads notes reads what a hook in the same folder reads, and says which (issue
 * 37, item 1). The world: a git project with only Claude Code's memory folder and one note added with
 * `recall add` (so the pooled KB exists too): the prompt hook reads both together, and so must list,
 * show, explain, trace, stages and the MCP tools; a write on a memory says the folder is Claude Code's.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { zeroConfigWorld, type ZeroConfigWorld } from '../helpers/zero-config.js';

let w: ZeroConfigWorld;
const FRIDAY = 'can I merge this on Friday?';

beforeAll(() => {
  w = zeroConfigWorld();
  const added = w.recall([
    'add',
    '--title',
    'redis eviction',
    '--insight',
    'redis maxmemory-policy must be allkeys-lru for the cache cluster',
  ]);
  expect(added.code).toBe(0);
}, 60_000);

afterAll(() => w?.cleanup());

describe('the commands read the sources a hook reads', () => {
  it('the prompt hook injects the memory (what the commands must agree with)', () => {
    expect(w.promptHook(FRIDAY, 'src-1')).toContain('**[merge-freeze]**');
  }, 60_000);

  it('list shows the notes of every source, marks the memory, and names the sources on stderr', () => {
    const text = w.recall(['list']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/lrn-redis-eviction-\w+ +redis eviction\n/);
    expect(text.stdout).toMatch(/merge-freeze .*\(Claude Code memory\)\n/);
    expect(text.stderr).toContain(`recall: reading 2 sources: ${w.home}/.learnings`);
    expect(text.stderr).toContain(`${w.memory} (Claude Code memory of ${w.project}; read-only)`);
    const rows = JSON.parse(w.recall(['list', '--json']).stdout) as { id: string; kb: string; source: string }[];
    expect(rows.map((r) => [r.id.replace(/^(lrn-.*)-\w+$/, '$1'), r.source])).toEqual(
      expect.arrayContaining([
        ['lrn-redis-eviction', 'pooled'],
        ['merge-freeze', 'claude-memory'],
      ]),
    );
    expect(rows.find((r) => r.id === 'merge-freeze')!.kb).toBe(w.memory);
  }, 60_000);

  it('explain says the memory was included, as the recall returned it', () => {
    expect(w.recall([FRIDAY]).stdout).toContain('**[merge-freeze]**');
    const r = w.recall(['explain', FRIDAY, '--id', 'merge-freeze', '--json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { verdict: string }).verdict).toBe('included');
    expect(r.stderr).toContain(`recall: reading 2 sources: ${w.home}/.learnings`);
  }, 60_000);

  it('trace labels the block of each KB and the fused result', () => {
    const r = w.recall(['trace', FRIDAY]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/── KB 1 of 2: \.learnings {2}\S+\.learnings\n/);
    expect(r.stdout).toContain(`── KB 2 of 2: claude-memory  ${w.memory}\n`);
    expect(r.stdout).toMatch(/── the 2 KBs fused\n.*result +1 notes .*merge-freeze/);
    const events = w
      .recall(['trace', FRIDAY, '--format', 'jsonl'])
      .stdout.trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { stage: string; kb?: number; root?: string });
    expect(events.filter((e) => e.stage === 'kb').map((e) => [e.kb, e.root])).toEqual([
      [1, `${w.home}/.learnings`],
      [2, w.memory],
      [0, ''],
    ]);
  }, 60_000);

  it('stages timeline (by query) and hydrate find a note in any source', () => {
    const t = JSON.parse(w.recall(['stages', 'timeline', 'merge', 'friday', 'release']).stdout) as { anchor?: string; error?: string };
    expect(t).toMatchObject({ anchor: 'merge-freeze' });
    expect(w.recall(['stages', 'index', 'merge', 'friday']).stderr).toContain(`recall: reading 2 sources: ${w.home}/.learnings`);
    const redis = (JSON.parse(w.recall(['list', '--json']).stdout) as { id: string }[]).find((r) => r.id.startsWith('lrn-redis'))!.id;
    const h = JSON.parse(w.recall(['stages', 'hydrate', redis, 'merge-freeze']).stdout) as { results: { id: string; found: boolean }[] };
    expect(h.results.map((r) => [r.id, r.found])).toEqual([
      [redis, true],
      ['merge-freeze', true],
    ]);
  }, 120_000);

  it('forget and supersede on a memory say the note is in Claude Code memory, which recall never changes', () => {
    const r = w.recall(['forget', 'merge-freeze']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `recall: error: merge-freeze: this note is in Claude Code's memory folder (${w.memory}/merge_freeze.md), which recall reads but never changes; edit or delete it there\n`,
    );
    const redis = (JSON.parse(w.recall(['list', '--json']).stdout) as { id: string }[]).find((x) => x.id.startsWith('lrn-redis'))!.id;
    expect(w.recall(['supersede', 'merge-freeze', redis]).stderr).toContain("this note is in Claude Code's memory folder");
    // An id no source holds is still "no note".
    expect(w.recall(['forget', 'no-such-note']).stderr).toMatch(/no-such-note: no note with this id/);
  }, 60_000);
});
