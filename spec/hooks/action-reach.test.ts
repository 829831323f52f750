/**
 * A process that ends with its tool call derives first the triggers of the notes the call may reach
 * (those sharing a word beginning with it, and those with an `applies_when`): when its time runs out
 * after them, the call is matched on them instead of getting nothing; before them, it stops as ever.
 */
import { describe, it, expect } from '@jest/globals';
import { parseNote, type Note } from '../../core/note/index.js';
import { matchAction, readToolCall } from '../../operators/action/index.js';
import { reachableBy } from '../../hooks/action-reach.js';
import { kbTriggers, TriggersLate } from '../../hooks/action-triggers.js';
import type { NoteSet } from '../../pipeline/run.js';
import { afterSuccessions } from '../../hooks/action-successions.js';

let made = 0;
/** A note no other case derived (this process keeps derived triggers by note). */
const note = (name: string, body: string, extra = ''): Note =>
  parseNote(
    `---\nname: ${name}-${(made += 1)}\ndescription: ${name}\ntype: feedback\n${extra}---\n${body}\n`,
    `memory/${name}-${made}.md`,
    'documents',
  );
const setOf = (notes: Note[]): NoteSet => ({ root: '/kb', version: `reach#${(made += 1)}`, notes: () => notes });
const call = (command: string) => readToolCall({ tool_name: 'Bash', tool_input: { command } })!;
/** A clock that reads one more each time it is read. */
const ticking = () => {
  let reads = 0;
  return () => (reads += 1);
};

describe('the notes a call may reach', () => {
  const reach = reachableBy('npm install zod@^3.24.1 --workspace packages/contracts');

  it('are those sharing a word beginning with the call, however the note writes the word', () => {
    expect(reach(note('pnpm', 'Never `npm install`; use pnpm.'))).toBe(true);
    // "contract" and "contracts", "install" and "installation": the first four letters.
    expect(reach(note('schemas', 'The contract schemas are generated.'))).toBe(true);
    expect(reach(note('installs', 'An installation takes minutes.'))).toBe(true);
    // Words split at case changes: "WorkspaceRoot" holds "workspace".
    expect(reach(note('root', 'Read `WorkspaceRoot` first.'))).toBe(true);
  });

  it('are not those sharing only function words or numbers', () => {
    expect(reach(note('helm', 'Always run helm upgrade with --atomic for the 3 charts.'))).toBe(false);
  });

  it('include every note with an applies_when list', () => {
    expect(reach(note('mystery', 'Ask Ines first.', 'applies_when:\n  - "make release"\n'))).toBe(true);
  });
});

describe('a stopped build that derived the notes a call may reach first', () => {
  const helm = (i: number): Note => note(`helm-${i}`, `Always \`helm upgrade --atomic\` for chart ${i}.`);

  it('matches the call on them when the stop time comes after them', async () => {
    const pnpm = note('use-pnpm', 'Use `pnpm install`, never `npm install` (a second lockfile breaks CI).');
    // The pnpm note comes last in the KB; derived first, it is ready when time runs out.
    const set = setOf([...Array.from({ length: 10 }, (_, i) => helm(i)), pnpm]);
    const kb = await kbTriggers(set, { stamp: null, stop: { at: 4, now: ticking() }, first: reachableBy('npm install zod') });
    expect(kb.partial).toEqual({ done: expect.any(Number), total: 11 });
    expect(kb.partial!.done).toBeLessThan(11);
    const got = matchAction(kb.index, call('npm install zod'), '/home/dev/shop', { info: () => 1 }).map((m) => m.id);
    expect(got).toEqual([pnpm.displayId]);
    // A partial index is never kept for the next call: a build with time derives them all.
    expect(kb.index.notes).toHaveLength(kb.partial!.done);
    const whole = await kbTriggers(set, { stamp: null });
    expect(whole.partial).toBeUndefined();
    expect(whole.index.notes).toHaveLength(11);
  });

  it('gives what replaced a note the call reaches, though the call does not reach it', async () => {
    const older = note('restart-workers', 'After deploys, `supervisorctl restart workers`.');
    const newer = note('horizon', 'Run `php artisan horizon:terminate` after each release.');
    const set: NoteSet = {
      ...setOf([...Array.from({ length: 8 }, (_, i) => helm(200 + i)), newer]),
      retired: () => [{ note: older, by: newer.key }],
    };
    const kb = await kbTriggers(set, { stamp: null, stop: { at: 3, now: ticking() }, first: reachableBy('supervisorctl restart workers') });
    expect(kb.partial).toBeDefined();
    const reached = matchAction(kb.index, call('supervisorctl restart workers'), '/home/dev/shop', { info: () => 1, threshold: 0 });
    const given = afterSuccessions(reached, [], kb, set, () => {}).filter((m) => kb.notes.has(m.id));
    expect(given.map((m) => m.id)).toEqual([newer.displayId]);
  });

  it('stops as ever when time runs out before them', async () => {
    const reached = Array.from({ length: 6 }, (_, i) => note(`npm-${i}`, `Never \`npm install\` in package ${i}.`));
    const set = setOf([...reached, helm(99)]);
    await expect(kbTriggers(set, { stamp: null, stop: { at: 3, now: ticking() }, first: reachableBy('npm install zod') })).rejects.toThrow(
      TriggersLate,
    );
  });

  it('stops as ever without notes picked first', async () => {
    const set = setOf(Array.from({ length: 6 }, (_, i) => helm(100 + i)));
    await expect(kbTriggers(set, { stamp: null, stop: { at: 3, now: ticking() }, first: reachableBy('npm install zod') })).rejects.toThrow(
      TriggersLate,
    );
  });
});
