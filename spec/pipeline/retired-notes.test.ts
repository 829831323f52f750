/**
 * A session lists the notes a successor retired apart from those it gives (NoteSet.retired), so
 * the tool-call hook can give the successor to a call that does what the retired note said: read
 * from a real index, for a memory another says it replaces ("Replaces [[name]]") and for a learning
 * whose `superseded_by` names its successor.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';
import { openSession } from '../../pipeline/run.js';
import { readToolCall } from '../../operators/action/index.js';
import { actionMatches } from '../../hooks/action-recall.js';

const kbs: TempKb[] = [];
afterEach(() => {
  for (const k of kbs.splice(0)) k.cleanup();
});

const HEROKU = `---
name: heroku-deploys
description: Production deploys are a git push of main to the heroku remote
metadata:
  type: project
---
Deploy with \`git push heroku main\` after CI is green.
`;
const FLY = `---
name: fly-deploys
description: Production runs on Fly.io since September; deploys go out from CI with fly deploy, never by hand
metadata:
  type: project
---
Replaces [[heroku-deploys]]. CI runs \`fly deploy --remote-only\` on every merge to main.
`;

async function sessionOn(k: TempKb) {
  const env = { PATH: process.env['PATH'] ?? '', HOME: k.state, REFLECT_STATE_DIR: k.state, ...driverEnv(), RECALL_CROSS_ENCODER: '0' };
  return openSession({ kb: k.root, global: false, allBranches: false, verbose: false }, { env, cwd: k.root, warn: () => undefined });
}

describe('notes retired by a successor', () => {
  it('are listed apart with their successor, and a call in their words gets the successor', async () => {
    const k = tempKb();
    kbs.push(k);
    k.write('documents/project_heroku.md', HEROKU);
    k.write('documents/project_fly.md', FLY);
    const session = await sessionOn(k);
    try {
      const [set] = session.noteSets();
      const gives = set!.notes().map((n) => n.title);
      expect(gives).toHaveLength(1);
      expect(gives[0]).toMatch(/Fly\.io/);
      const retired = set!.retired!();
      expect(retired.map((r) => r.note.title)).toEqual([expect.stringMatching(/heroku remote/)]);
      expect(retired[0]!.by).toBe(set!.notes()[0]!.key);
      const push = readToolCall({ tool_name: 'Bash', tool_input: { command: 'git push heroku main' } })!;
      const given = await actionMatches(session, push, k.root, { info: () => 1, prompt: '' });
      expect(given.map((m) => m.note.title)).toEqual([expect.stringMatching(/Fly\.io/)]);
    } finally {
      session.close();
    }
  });

  it('takes, of two successors, the one the KB gives, whatever order the files come in', async () => {
    const k = tempKb();
    kbs.push(k);
    k.write('documents/project_heroku.md', HEROKU);
    // An archived successor first by path, a live one after it.
    k.write('documents/a_fly.md', FLY.replace('metadata:\n  type: project', 'status: archived\nmetadata:\n  type: project'));
    k.write('documents/r_render.md', FLY.replace('name: fly-deploys', 'name: render-deploys').replace(/Fly\.io/g, 'Render'));
    const session = await sessionOn(k);
    try {
      const [set] = session.noteSets();
      const render = set!.notes().find((n) => /Render/.test(n.title))!;
      expect(set!.retired!().map((r) => r.by)).toEqual([render.key]);
    } finally {
      session.close();
    }
  });

  it("reads a learning's superseded_by, and leaves out one whose successor is not in the KB", async () => {
    const k = tempKb();
    kbs.push(k);
    const retiredBy = (id: string, by: string, title: string) =>
      noteText(id, title, 'run it before every release').replace(/^---\n/, `---\nsuperseded_by: ${by}\n`);
    k.write('documents/old.md', retiredBy('lrn-old', 'lrn-new', 'release checklist v1'));
    k.write('documents/orphan.md', retiredBy('lrn-orphan', 'lrn-missing', 'release checklist v0'));
    k.write('documents/new.md', noteText('lrn-new', 'release checklist v2', 'run it before every release'));
    const session = await sessionOn(k);
    try {
      const [set] = session.noteSets();
      expect(set!.notes().map((n) => n.displayId)).toEqual(['lrn-new']);
      expect(set!.retired!().map((r) => [r.note.displayId, r.by])).toEqual([['lrn-old', set!.notes()[0]!.key]]);
    } finally {
      session.close();
    }
  });
});
