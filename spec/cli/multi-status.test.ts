import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fuseLists } from '../../pipeline/session/multi-kb.js';
import { STATUS_SECTIONS, collectStatus, formatStatus, recallEvents, type StatusSection } from '../../cli/status-report.js';
import { makeCandidate } from '../sinks/helpers.js';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';

let kb: TempKb | null = null;
const BUILT_IN_SECTIONS = [...STATUS_SECTIONS];
afterEach(() => {
  kb?.cleanup();
  kb = null;
  STATUS_SECTIONS.splice(0, STATUS_SECTIONS.length, ...BUILT_IN_SECTIONS);
});

const cand = (key: string, relevance: number) => ({
  ...makeCandidate({ displayId: key }),
  note: { ...makeCandidate({ displayId: key }).note, key },
  relevance,
});

describe('fuseLists (several KBs)', () => {
  it('keeps each KB its order, compares KBs by relevance, and counts a shared id once (both ranks add up)', () => {
    // b1 is B's best but barely relevant: A's two strong notes come first.
    expect(fuseLists([[cand('a1', 0.95), cand('a2', 0.9)], [cand('b1', 0.3)]]).map((c) => c.note.key)).toEqual(['a1', 'a2', 'b1']);
    // A strong note of B is not buried under A's weaker ones.
    expect(fuseLists([[cand('a1', 0.55), cand('a2', 0.5)], [cand('b1', 0.95)]]).map((c) => c.note.key)).toEqual(['b1', 'a1', 'a2']);
    const fused = fuseLists([
      [cand('a1', 0.95), cand('shared', 0.6)],
      [cand('shared', 0.6), cand('b2', 0.5)],
    ]).map((c) => c.note.key);
    expect(fused.filter((k) => k === 'shared')).toHaveLength(1);
    expect(fused.indexOf('shared')).toBeLessThan(fused.indexOf('b2'));
    expect(fuseLists([])).toEqual([]);
  });
});

describe('recall status', () => {
  it('reports the KB, its notes and skipped files, and brings the index up to date', async () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'alpha', 'body'));
    kb.write('documents/broken.md', '---\ntitle: [oops\n---\n');
    kb.write('archived/old.md', noteText('old', 'old', 'body'));
    const r = await collectStatus(
      { kb: kb.root, global: false, allBranches: false },
      { env: { HOME: kb.state, REFLECT_STATE_DIR: kb.state }, cwd: kb.root },
    );
    expect(r.kb).toMatchObject({ root: kb.root, scope: 'explicit', reason: '--kb', layout: 'reflect', exists: true });
    expect(r.notes).toMatchObject({
      live: 1,
      archived: 1,
      forgotten: 0,
      skipped: [{ path: 'documents/broken.md', reason: expect.stringMatching(/^invalid YAML frontmatter/) }],
    });
    expect(r.index.refreshed.added).toBe(3);
    expect(r.sections).toEqual({});
    const text = formatStatus(r);
    expect(text).toMatch(/^KB {8}/);
    expect(text).toContain('skipped documents/broken.md: invalid YAML frontmatter');
  });

  it('finds recall hooks in a harness file and reports one that does not parse', async () => {
    expect(
      recallEvents({
        hooks: {
          SessionStart: [{ hooks: [{ type: 'command', command: 'node /x/scripts/launch.mjs hook session-start' }] }],
          Stop: [{ hooks: [{ command: 'other' }] }],
        },
      }),
    ).toEqual(['SessionStart']);
    expect(recallEvents({ version: 1, hooks: { sessionStart: [{ type: 'command', bash: '/x/bin/recall hook session-start' }] } })).toEqual([
      'sessionStart',
    ]);
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'alpha', 'body'));
    fs.mkdirSync(path.join(kb.state, '.codex'), { recursive: true });
    fs.writeFileSync(path.join(kb.state, '.codex', 'hooks.json'), '{ nope');
    const r = await collectStatus(
      { kb: kb.root, global: false, allBranches: false },
      { env: { HOME: kb.state, REFLECT_STATE_DIR: kb.state }, cwd: os.tmpdir() },
    );
    expect(r.hooks).toEqual([
      expect.objectContaining({ harness: 'codex', scope: 'user', events: [], problem: expect.stringMatching(/^not valid JSON/) }),
    ]);
  });

  it('takes extra sections through STATUS_SECTIONS (one line adds one), in text and JSON', async () => {
    const demo: StatusSection<{ store: string }> = {
      name: 'demo',
      collect: async (ctx) => ({ store: `store for ${path.basename(ctx.scope.root)}` }),
      render: (d) => [`demo      ${d.store}`],
    };
    STATUS_SECTIONS.push(demo);
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'alpha', 'body'));
    const r = await collectStatus(
      { kb: kb.root, global: false, allBranches: false },
      { env: { HOME: kb.state, REFLECT_STATE_DIR: kb.state }, cwd: kb.root },
    );
    expect(r.sections).toEqual({ demo: { store: 'store for kb' } });
    expect(formatStatus(r)).toMatch(/\ndemo {6}store for kb\n$/);
  });

  it('shows the team store when one is configured (offline, password never shown), and no team section otherwise', async () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'alpha', 'body'));
    const env = { HOME: kb.state, REFLECT_STATE_DIR: kb.state };
    const none = await collectStatus({ kb: kb.root, global: false, allBranches: false }, { env, cwd: kb.root });
    expect(none.sections).toEqual({});
    const r = await collectStatus(
      { kb: kb.root, global: false, allBranches: false },
      { env: { ...env, RECALL_TEAM_URL: 'postgres://alice:s3cret-pw@127.0.0.1:1/team' }, cwd: kb.root },
    );
    expect(r.sections['team']).toMatchObject({ configured: true, store: 'postgres://alice@127.0.0.1:1/team' });
    const text = formatStatus(r);
    expect(text).toMatch(/\nteam {6}postgres:\/\/alice@127\.0\.0\.1:1\/team/);
    expect(JSON.stringify(r) + text).not.toContain('s3cret-pw');
  });
});
