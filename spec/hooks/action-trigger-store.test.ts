/**
 * The tool-call hook's triggers kept on disk next to the KB's index (hooks/action-trigger-store.ts):
 * a process that starts cold reads what an earlier process derived, for the same build of recall
 * only, and anything it cannot read is derived again, with a line saying why.
 */
import { describe, it, expect, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { types } from 'node:util';
import { parseNote, type Note } from '../../core/note/index.js';
import { matchAction, noteTriggers, readToolCall } from '../../operators/action/index.js';
import { readStoredTriggers, triggerFileOf, writeStoredTriggers } from '../../hooks/action-trigger-store.js';
import { kbTriggers, TriggersLate } from '../../hooks/action-triggers.js';
import type { NoteSet } from '../../pipeline/run.js';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-trigger-store-'));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
let n = 0;
const indexFile = (): string => path.join(base, `kb-${(n += 1)}.sqlite`);

const note = (name: string, body: string): Note =>
  parseNote(`---\nname: ${name}\ndescription: ${name}\ntype: feedback\n---\n${body}\n`, `memory/${name}.md`, 'documents');
const PNPM = note('use-pnpm', 'Use `pnpm install`, never `npm install` (a second lockfile breaks CI).');
const HELM = note('helm-atomic', 'Always `helm upgrade --atomic` so a failed release rolls back.');
/** A note no other case derives (this process keeps derived triggers by note, whatever file they came from). */
const YARN = note('no-yarn', 'Never `yarn add`; the repo is on pnpm.');

const setOf = (notes: Note[], file: string, version: string): NoteSet => ({ root: '/kb', version, indexFile: file, notes: () => notes });
const call = (command: string) => readToolCall({ tool_name: 'Bash', tool_input: { command } })!;
const matched = (kb: Awaited<ReturnType<typeof kbTriggers>>, command: string): string[] =>
  matchAction(kb.index, call(command), '/home/dev/shop', { info: () => 1 }).map((m) => m.id);

describe('trigger file', () => {
  it('reads back what it wrote, Sets and regular expressions included, for the same build only', () => {
    const file = triggerFileOf(indexFile());
    const scoped = parseNote(
      '---\nname: api-zod\napplies_when: ["apps/api/**"]\n---\nValidate with zod.\n',
      'memory/api-zod.md',
      'documents',
    );
    const t = noteTriggers(scoped, 'api-zod');
    expect(t.globs).toHaveLength(1);
    expect(writeStoredTriggers(file, 'build-a', [['k\0h', t]])).toBeNull();
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    const back = readStoredTriggers(file, 'build-a');
    expect(back.problem).toBeUndefined();
    expect(back.entries.get('k\0h')).toEqual(t);
    expect(types.isSet(back.entries.get('k\0h')!.stems) && types.isRegExp(back.entries.get('k\0h')!.globs[0])).toBe(true);
    expect(readStoredTriggers(file, 'build-b')).toEqual({ entries: new Map() });
  });

  it('reads a missing file as none, and a torn or foreign one as none with the reason', () => {
    expect(readStoredTriggers(path.join(base, 'absent.triggers'), 'b')).toEqual({ entries: new Map() });
    const torn = triggerFileOf(indexFile());
    expect(writeStoredTriggers(torn, 'b', [['k\0h', noteTriggers(PNPM, 'use-pnpm')]])).toBeNull();
    fs.truncateSync(torn, 40);
    expect(readStoredTriggers(torn, 'b').problem).toMatch(/unreadable .*derived again/);
    const foreign = triggerFileOf(indexFile());
    fs.writeFileSync(foreign, JSON.stringify({ format: 1 }));
    expect(readStoredTriggers(foreign, 'b')).toMatchObject({ entries: new Map(), problem: expect.stringContaining(foreign) });
  });

  it('never blocks on a FIFO planted at its name', () => {
    const fifo = triggerFileOf(indexFile());
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(readStoredTriggers(fifo, 'b')).toEqual({ entries: new Map() });
  });
});

describe('kbTriggers with a trigger file', () => {
  it('writes the triggers it derived, and a cold build reads them instead of deriving', async () => {
    const file = indexFile();
    const kb = await kbTriggers(setOf([PNPM, HELM], file, `${file}#1`), { stamp: 'build-a' });
    expect(matched(kb, 'npm install zod')).toEqual(['use-pnpm']);
    const stored = readStoredTriggers(triggerFileOf(file), 'build-a').entries;
    expect([...stored.values()].map((t) => t.id).sort()).toEqual(['helm-atomic', 'use-pnpm']);

    // What the file holds is what a build that has not derived them uses: here a note's
    // entry is swapped for the Helm note's triggers, so the yarn note now matches `helm upgrade`.
    const other = indexFile();
    const yarnKey = `${YARN.key}\0${YARN.contentHash}`;
    expect(writeStoredTriggers(triggerFileOf(other), 'build-a', [[yarnKey, noteTriggers(HELM, 'no-yarn')]])).toBeNull();
    const fromFile = await kbTriggers(setOf([YARN], other, `${other}#1`), { stamp: 'build-a' });
    expect(matched(fromFile, 'helm upgrade api ./chart')).toEqual(['no-yarn']);
    expect(matched(fromFile, 'yarn add zod')).toEqual([]);
  });

  it('derives again, and says why, when the file cannot be read; and keeps nothing without a build', async () => {
    const file = indexFile();
    fs.writeFileSync(triggerFileOf(file), 'not a trigger file');
    const lines: string[] = [];
    const kb = await kbTriggers(setOf([PNPM], file, `${file}#1`), { warn: (l) => lines.push(l), stamp: 'build-a' });
    expect(matched(kb, 'npm install zod')).toEqual(['use-pnpm']);
    expect(lines).toEqual([expect.stringContaining(triggerFileOf(file))]);
    expect(readStoredTriggers(triggerFileOf(file), 'build-a').entries.size).toBe(1);

    const unbuilt = indexFile();
    await kbTriggers(setOf([HELM], unbuilt, `${unbuilt}#1`), { stamp: null });
    expect(fs.existsSync(triggerFileOf(unbuilt))).toBe(false);
  });
});

describe('a build with a stop time (a process that ends with its call)', () => {
  /** Notes no other case derives (this process keeps derived triggers by note). */
  const many = (prefix: string, count: number): Note[] =>
    Array.from({ length: count }, (_, i) => note(`${prefix}-${i}`, `Run \`${prefix}ctl sync --shard ${i}\` before deploys.`));
  /** A clock that reads `start` plus one for each time it is read, and runs `at(reads)` on each read. */
  const ticking = (at: (reads: number) => void = () => {}) => {
    let reads = 0;
    return () => {
      reads += 1;
      at(reads);
      return reads;
    };
  };

  it('stops at the stop time, keeps what it derived for the next process, and is not shared', async () => {
    const file = indexFile();
    const notes = many('stopa', 12);
    const set = setOf(notes, file, `${file}#1`);
    await expect(kbTriggers(set, { stamp: 'build-a', stop: { at: 6, now: ticking() } })).rejects.toThrow(TriggersLate);
    await expect(kbTriggers(set, { stamp: 'build-a', stop: { at: 6, now: ticking() } })).rejects.toThrow(
      /of 12 notes ready by the deadline/,
    );
    const partial = readStoredTriggers(triggerFileOf(file), 'build-a').entries;
    expect(partial.size).toBeGreaterThan(0);
    expect(partial.size).toBeLessThan(12);
    // A build without a stop time (the recall server's) goes on to the end and writes the whole KB.
    const kb = await kbTriggers(set, { stamp: 'build-a' });
    expect(kb.notes.size).toBe(12);
    expect(matched(kb, 'stopactl sync --shard 3')).not.toEqual([]);
    expect(readStoredTriggers(triggerFileOf(file), 'build-a').entries.size).toBe(12);
  });

  it('gives up before the first note when the stop time already passed, writing nothing', async () => {
    const file = indexFile();
    const set = setOf(many('stopb', 3), file, `${file}#1`);
    await expect(kbTriggers(set, { stamp: 'build-a', stop: { at: 0, now: ticking() } })).rejects.toThrow(/^triggers of 0 of 3 notes/);
    expect(fs.existsSync(triggerFileOf(file))).toBe(false);
  });

  it('never writes its part over a file another process wrote meanwhile', async () => {
    const file = indexFile();
    const notes = many('stopc', 10);
    const whole: [string, ReturnType<typeof noteTriggers>][] = notes.map((x) => [`${x.key}\0${x.contentHash}`, noteTriggers(x, x.key)]);
    // On the clock's fourth read (some notes derived), the recall server writes the whole KB.
    const clock = ticking((reads) => {
      if (reads === 4) expect(writeStoredTriggers(triggerFileOf(file), 'build-a', whole)).toBeNull();
    });
    await expect(kbTriggers(setOf(notes, file, `${file}#1`), { stamp: 'build-a', stop: { at: 7, now: clock } })).rejects.toThrow(
      TriggersLate,
    );
    expect(readStoredTriggers(triggerFileOf(file), 'build-a').entries.size).toBe(10);
  });
});
