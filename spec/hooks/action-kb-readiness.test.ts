/**
 * A KB whose tool-call triggers are not ready gives a call nothing, with a line saying why, and the
 * other KBs of the session are matched all the same; where the process ends with its call, KBs are
 * read within one bound in all; triggers that fail at use are forgotten, file and all.
 */
import { describe, it, expect, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseNote, type Note } from '../../core/note/index.js';
import { noteTriggers, readToolCall, type NoteTriggers } from '../../operators/action/index.js';
import { encodeTriggers, triggerFileOf, writeStoredTriggers } from '../../hooks/action-trigger-store.js';
import { IN_PROCESS_MAX_NOTES, kbTriggers, TriggersLate } from '../../hooks/action-triggers.js';
import { actionMatches } from '../../hooks/action-recall.js';
import type { NoteSet, RecallSession } from '../../pipeline/run.js';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-kb-ready-'));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
const note = (name: string, body: string): Note =>
  parseNote(`---\nname: ${name}\ndescription: ${name}\ntype: feedback\n---\n${body}\n`, `memory/${name}.md`, 'documents');
const PNPM = note('use-pnpm', 'Use `pnpm install`, never `npm install` (a second lockfile breaks CI).');
const HELM = note('helm-atomic', 'Always `helm upgrade --atomic` so a failed release rolls back.');
const call = (command: string) => readToolCall({ tool_name: 'Bash', tool_input: { command } })!;
const memoKey = (x: Note): string => `${x.key}\0${x.contentHash}`;
const setOf = (notes: Note[], file: string, version: string): NoteSet => ({ root: '/kb', version, indexFile: file, notes: () => notes });
const write = async (file: string, build: string, entries: [string, NoteTriggers][]): Promise<void> => {
  expect(writeStoredTriggers(file, await encodeTriggers(build, entries, () => Promise.resolve()))).toBeNull();
};

describe('a KB whose triggers are not ready', () => {
  it('gives nothing, says why, and the other KBs of the session are matched all the same', async () => {
    const lines: string[] = [];
    const broken: NoteSet = {
      root: '/kb/team',
      version: null,
      notes: () => {
        throw new TriggersLate(0, 9000);
      },
    };
    const session = { noteSets: () => [broken, { root: '/kb/own', version: null, notes: () => [PNPM] }] } as unknown as RecallSession;
    const got = await actionMatches(session, call('npm install zod'), '/home/dev/shop', {
      info: () => 1,
      prompt: '',
      warn: (l) => lines.push(l),
    });
    expect(got.map((m) => m.note.key)).toEqual([PNPM.key]);
    expect(lines).toEqual(['/kb/team: triggers of 0 of 9000 notes ready by the deadline; this KB gives the call nothing']);
  });

  it('says why for each KB when none is ready, and gives nothing', async () => {
    const lines: string[] = [];
    const late = (root: string): NoteSet => ({
      root,
      version: null,
      notes: () => {
        throw new TriggersLate(0, 10);
      },
    });
    const session = { noteSets: () => [late('/kb/a'), late('/kb/b')] } as unknown as RecallSession;
    expect(
      await actionMatches(session, call('npm install zod'), '/home/dev/shop', { info: () => 1, prompt: '', warn: (l) => lines.push(l) }),
    ).toEqual([]);
    expect(lines.map((l) => l.split(':')[0])).toEqual(['/kb/a', '/kb/b']);
  });

  it('does not read a KB larger than a hook reads in its own process; the recall server does', async () => {
    const lines: string[] = [];
    const big: NoteSet = { root: '/kb/big', version: null, size: IN_PROCESS_MAX_NOTES + 1, notes: () => [PNPM] };
    const session = { noteSets: () => [big] } as unknown as RecallSession;
    const opts = { info: () => 1, prompt: '', warn: (l: string) => lines.push(l) };
    expect(await actionMatches(session, call('npm install zod'), '/home/dev/shop', { ...opts, stopAt: Date.now() + 60_000 })).toEqual([]);
    expect(lines).toEqual([expect.stringMatching(/^\/kb\/big: .*more than a hook reads in its own process/)]);
    expect((await actionMatches(session, call('npm install zod'), '/home/dev/shop', opts)).map((m) => m.note.key)).toEqual([PNPM.key]);
  });

  it('reads KBs within one bound in all where the process ends with the call, smallest first', async () => {
    const lines: string[] = [];
    const sized = (root: string, notes: Note[], size: number): NoteSet => ({ root, version: null, size, notes: () => notes });
    const session = {
      noteSets: () => [sized('/kb/big', [HELM], IN_PROCESS_MAX_NOTES - 100), sized('/kb/small', [PNPM], 200)],
    } as unknown as RecallSession;
    const opts = { info: () => 1, prompt: '', warn: (l: string) => lines.push(l) };
    const inProcess = await actionMatches(session, call('npm install zod'), '/home/dev/shop', { ...opts, stopAt: Date.now() + 60_000 });
    expect(inProcess.map((m) => m.note.key)).toEqual([PNPM.key]);
    expect(lines).toEqual([expect.stringMatching(/^\/kb\/big: .*more than a hook reads in its own process/)]);
    // The recall server reads them all.
    expect((await actionMatches(session, call('helm upgrade api ./chart'), '/home/dev/shop', opts)).map((m) => m.note.key)).toEqual([
      HELM.key,
    ]);
  });

  it('forgets triggers that fail at use, file and all, and derives them again', async () => {
    const bun = note('no-bun', 'Never `bun install` here; the lockfile is pnpm.');
    const file = path.join(base, 'kb.sqlite');
    const set = setOf([bun], file, `${file}#1`);
    const broken = { ...noteTriggers(bun, 'no-bun'), commands: [5], globs: [{}] } as unknown as NoteTriggers;
    await write(triggerFileOf(file), 'build-a', [[memoKey(bun), broken]]);
    await expect(kbTriggers(set, { stamp: 'build-a' })).rejects.toThrow(/^triggers failed .*derived again next time$/);
    expect(fs.existsSync(triggerFileOf(file))).toBe(false);
    const session = { noteSets: () => [set] } as unknown as RecallSession;
    const opts = { info: () => 1, prompt: '' };
    expect((await actionMatches(session, call('bun install zod'), '/home/dev/shop', opts)).map((m) => m.note.key)).toEqual([bun.key]);
  });
});
