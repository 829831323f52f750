/**
 * The tool-call hook's triggers kept on disk next to the KB's index (hooks/action-trigger-store.ts):
 * a process that starts cold reads what an earlier process derived, for the same build of recall
 * only; anything it cannot read (torn, oversized, of another shape) is derived again, with a line
 * saying why; and a build bound by a deadline stops there, writing nothing it has not finished.
 */
import { describe, it, expect, afterAll } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { spawnSync } from 'node:child_process';
import { types } from 'node:util';
import { parseNote, type Note } from '../../core/note/index.js';
import { matchAction, noteTriggers, readToolCall, type NoteTriggers } from '../../operators/action/index.js';
import {
  TRIGGER_SHAPE,
  encodeTriggers,
  readStoredTriggers,
  shapeOf,
  triggerFileOf,
  writeStoredTriggers,
} from '../../hooks/action-trigger-store.js';
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
const SHAPE = TRIGGER_SHAPE;
const noPause = (): Promise<void> => Promise.resolve();
const memoKey = (x: Note): string => `${x.key}\0${x.contentHash}`;

const write = async (file: string, build: string, entries: [string, NoteTriggers][]): Promise<void> => {
  expect(writeStoredTriggers(file, await encodeTriggers(build, entries, noPause))).toBeNull();
};
/** A file of frames as the store writes them, from any values (a damaged or foreign file). */
const rawFile = (file: string, values: unknown[]): void => {
  const parts = values.flatMap((v) => {
    const body = v8.serialize(v);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(body.length);
    return [len, body];
  });
  fs.writeFileSync(file, Buffer.concat(parts));
};
const header = (build: string, v8version = process.versions.v8) => ({ format: 3, build, v8: v8version });

const setOf = (notes: Note[], file: string, version: string): NoteSet => ({ root: '/kb', version, indexFile: file, notes: () => notes });
const call = (command: string) => readToolCall({ tool_name: 'Bash', tool_input: { command } })!;
const matched = (kb: Awaited<ReturnType<typeof kbTriggers>>, command: string): string[] =>
  matchAction(kb.index, call(command), '/home/dev/shop', { info: () => 1 }).map((m) => m.id);

describe('trigger file', () => {
  it('checks entries against the shape noteTriggers gives', () => {
    // A note with no commit format and no named work: those two fields are null.
    const plain = parseNote('---\nname: plain\n---\nThe staging database is restored nightly.\n', 'memory/plain.md', 'documents');
    expect(shapeOf(noteTriggers(plain, 'plain'))).toEqual(TRIGGER_SHAPE);
  });

  it('reads back what it wrote, Sets and regular expressions included, for the same build only', async () => {
    const file = triggerFileOf(indexFile());
    const scoped = parseNote(
      '---\nname: api-zod\napplies_when: ["apps/api/**"]\n---\nValidate with zod.\n',
      'memory/api-zod.md',
      'documents',
    );
    const t = noteTriggers(scoped, 'api-zod');
    expect(t.globs).toHaveLength(1);
    await write(file, 'build-a', [['k\0h', t]]);
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    const back = readStoredTriggers(file, 'build-a', SHAPE);
    expect(back.problem).toBeUndefined();
    expect(back.entries.get('k\0h')).toEqual(t);
    expect(types.isSet(back.entries.get('k\0h')!.stems) && types.isRegExp(back.entries.get('k\0h')!.globs[0])).toBe(true);
    expect(readStoredTriggers(file, 'build-b', SHAPE)).toEqual({ entries: new Map() });
  });

  it('reads a missing file as none, and a torn, foreign or other-V8 one as none with the reason', async () => {
    expect(readStoredTriggers(path.join(base, 'absent.triggers'), 'b', SHAPE)).toEqual({ entries: new Map() });
    const torn = triggerFileOf(indexFile());
    await write(torn, 'b', [['k\0h', noteTriggers(PNPM, 'use-pnpm')]]);
    fs.writeFileSync(torn, Buffer.from([0, 0, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8]));
    expect(readStoredTriggers(torn, 'b', SHAPE).problem).toMatch(/unreadable .*derived again/);
    // A last frame cut short (a process killed while adding a part) is passed over; the frames before it stand.
    const cut = triggerFileOf(indexFile());
    await write(cut, 'b', [['k\0h', noteTriggers(PNPM, 'use-pnpm')]]);
    fs.appendFileSync(cut, Buffer.from([0, 0, 1, 0, 9, 9]));
    expect(readStoredTriggers(cut, 'b', SHAPE)).toEqual({ entries: new Map([['k\0h', expect.anything()]]) });
    const foreign = triggerFileOf(indexFile());
    fs.writeFileSync(foreign, JSON.stringify({ format: 1 }));
    expect(readStoredTriggers(foreign, 'b', SHAPE)).toMatchObject({ entries: new Map(), problem: expect.stringContaining(foreign) });
    const otherV8 = triggerFileOf(indexFile());
    rawFile(otherV8, [header('b', '1.0.0'), [['k\0h', noteTriggers(PNPM, 'use-pnpm')]]]);
    expect(readStoredTriggers(otherV8, 'b', SHAPE)).toMatchObject({
      entries: new Map(),
      problem: expect.stringMatching(/not a trigger file/),
    });
  });

  it('never decodes an oversized frame, nor takes entries of another shape', () => {
    const big = triggerFileOf(indexFile());
    rawFile(big, [{ ...header('b'), pad: 'x'.repeat(10_000) }]);
    expect(readStoredTriggers(big, 'b', SHAPE).problem).toMatch(/a frame of \d+ bytes/);
    const wrong = triggerFileOf(indexFile());
    rawFile(wrong, [header('b'), [['k\0h', { ...noteTriggers(PNPM, 'use-pnpm'), phrases: 5 }]]]);
    expect(readStoredTriggers(wrong, 'b', SHAPE)).toMatchObject({
      entries: new Map(),
      problem: expect.stringMatching(/not trigger entries/),
    });
  });

  it('never blocks on a FIFO planted at its name, and says it is no file', () => {
    const fifo = triggerFileOf(indexFile());
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(readStoredTriggers(fifo, 'b', SHAPE)).toMatchObject({
      entries: new Map(),
      problem: expect.stringMatching(/not a regular file/),
    });
  });

  it('removes what a write that never finished left beside it', async () => {
    const file = triggerFileOf(indexFile());
    const left = `${file}.4242.deadbeef.tmp`;
    fs.writeFileSync(left, 'half a file');
    const old = new Date(Date.now() - 3600_000);
    fs.utimesSync(left, old, old);
    const fresh = `${file}.4343.cafebabe.tmp`;
    fs.writeFileSync(fresh, 'a write under way');
    await write(file, 'b', []);
    expect([fs.existsSync(left), fs.existsSync(fresh)]).toEqual([false, true]);
  });
});

describe('kbTriggers with a trigger file', () => {
  it('writes the triggers it derived, and a cold build reads them instead of deriving', async () => {
    const file = indexFile();
    const kb = await kbTriggers(setOf([PNPM, HELM], file, `${file}#1`), { stamp: 'build-a', stop: { at: Infinity } });
    expect(matched(kb, 'npm install zod')).toEqual(['use-pnpm']);
    const stored = readStoredTriggers(triggerFileOf(file), 'build-a', SHAPE).entries;
    expect([...stored.values()].map((t) => t.id).sort()).toEqual(['helm-atomic', 'use-pnpm']);

    // What the file holds is what a build that has not derived them uses: here a note's
    // entry is swapped for the Helm note's triggers, so the yarn note now matches `helm upgrade`.
    const yarn = note('no-yarn', 'Never `yarn add`; the repo is on pnpm.');
    const other = indexFile();
    await write(triggerFileOf(other), 'build-a', [[memoKey(yarn), noteTriggers(HELM, 'no-yarn')]]);
    const fromFile = await kbTriggers(setOf([yarn], other, `${other}#1`), { stamp: 'build-a' });
    expect(matched(fromFile, 'helm upgrade api ./chart')).toEqual(['no-yarn']);
    expect(matched(fromFile, 'yarn add zod')).toEqual([]);
  });

  it('derives a note again when its stored triggers carry another id', async () => {
    const renamed = note('no-npx', 'Never `npx prisma migrate` in CI.');
    const file = indexFile();
    await write(triggerFileOf(file), 'build-a', [[memoKey(renamed), noteTriggers(HELM, 'old-id')]]);
    const kb = await kbTriggers(setOf([renamed], file, `${file}#1`), { stamp: 'build-a' });
    expect(matched(kb, 'helm upgrade api ./chart')).toEqual([]);
    expect(matched(kb, 'npx prisma migrate deploy')).toEqual(['no-npx']);
  });

  it('derives again, and says why, when the file cannot be read; and keeps nothing without a build', async () => {
    const fresh = note('no-pip', 'Never `pip install` into the system python.');
    const file = indexFile();
    fs.writeFileSync(triggerFileOf(file), 'not a trigger file');
    const lines: string[] = [];
    const kb = await kbTriggers(setOf([fresh], file, `${file}#1`), {
      warn: (l) => lines.push(l),
      stamp: 'build-a',
      stop: { at: Infinity },
    });
    expect(matched(kb, 'pip install requests')).toEqual(['no-pip']);
    expect(lines).toEqual([expect.stringContaining(triggerFileOf(file))]);
    expect(readStoredTriggers(triggerFileOf(file), 'build-a', SHAPE).entries.size).toBe(1);

    const unbuilt = indexFile();
    await kbTriggers(setOf([HELM], unbuilt, `${unbuilt}#1`), { stamp: null });
    expect(fs.existsSync(triggerFileOf(unbuilt))).toBe(false);
  });
});

describe('a build with a stop time (a process that ends with its call)', () => {
  /** Notes no other case derives (this process keeps derived triggers by note). */
  const many = (prefix: string, count: number): Note[] =>
    Array.from({ length: count }, (_, i) => note(`${prefix}-${i}`, `Run \`${prefix}ctl sync --shard ${i}\` before deploys.`));
  /** A clock that reads one more each time it is read. */
  const ticking = () => {
    let reads = 0;
    return () => (reads += 1);
  };

  it('stops at the stop time, adding what it derived to the file for the next call', async () => {
    const file = indexFile();
    await expect(
      kbTriggers(setOf(many('stopa', 12), file, `${file}#1`), { stamp: 'build-a', stop: { at: 6, now: ticking() } }),
    ).rejects.toThrow(/^triggers of 5 of 12 notes ready by the deadline/);
    expect(readStoredTriggers(triggerFileOf(file), 'build-a', SHAPE).entries.size).toBe(5);
    // The next stopped build of this file adds its part to the end of it.
    await expect(
      kbTriggers(setOf(many('stope', 12), file, `${file}#2`), { stamp: 'build-a', stop: { at: 4, now: ticking() } }),
    ).rejects.toThrow(TriggersLate);
    expect(readStoredTriggers(triggerFileOf(file), 'build-a', SHAPE).entries.size).toBe(8);
  });

  it('never adds its part to a file another process replaced meanwhile', async () => {
    const file = indexFile();
    const notes = many('stopf', 10);
    const whole: [string, NoteTriggers][] = notes.map((x) => [memoKey(x), noteTriggers(x, x.key)]);
    const bytes = await encodeTriggers('build-a', whole, noPause);
    // On the clock's fourth read (some notes derived), the recall server writes the whole KB.
    let reads = 0;
    const clock = (): number => {
      reads += 1;
      if (reads === 4) expect(writeStoredTriggers(triggerFileOf(file), bytes)).toBeNull();
      return reads;
    };
    await expect(kbTriggers(setOf(notes, file, `${file}#1`), { stamp: 'build-a', stop: { at: 7, now: clock } })).rejects.toThrow(
      TriggersLate,
    );
    expect(readStoredTriggers(triggerFileOf(file), 'build-a', SHAPE).entries.size).toBe(10);
  });

  it('gives up the write, not the triggers, when the stop time passes while writing', async () => {
    const file = indexFile();
    // 12 notes are read at 12 ticks; the write's first frame is the 13th.
    const kb = await kbTriggers(setOf(many('stopb', 12), file, `${file}#1`), { stamp: 'build-a', stop: { at: 13, now: ticking() } });
    expect(kb.notes.size).toBe(12);
    expect(fs.existsSync(triggerFileOf(file))).toBe(false);
  });

  it('is not shared: a build without a stop time of the same version goes on to the end', async () => {
    const file = indexFile();
    const set = setOf(many('stopc', 5), file, `${file}#1`);
    const stopped = kbTriggers(set, { stamp: 'build-a', stop: { at: 0, now: ticking() } });
    const whole = kbTriggers(set, { stamp: 'build-a' });
    await expect(stopped).rejects.toThrow(TriggersLate);
    expect((await whole).notes.size).toBe(5);
  });
});
