/**
 * A note's stems are computed once per recall: the relevance estimate computes them for its window
 * and carries them on the recall state, where the abstention reason and the trace read them (they
 * were computed again by each, three times for the best note of an abstaining, traced recall).
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { driverEnv } from '../helpers/driver.js';

/** How often textStems read each text. */
const reads = new Map<string, number>();
const realStems = await import('../../core/stems.js');
jest.unstable_mockModule('../../core/stems.js', () => ({
  ...realStems,
  textStems: (text: string, maxChars?: number) => {
    reads.set(text, (reads.get(text) ?? 0) + 1);
    return realStems.textStems(text, maxChars);
  },
}));
const { DEFAULT_COMMAND, openSession } = await import('../../pipeline/run.js');

const kbs: TempKb[] = [];
afterEach(() => {
  for (const k of kbs.splice(0)) k.cleanup();
});

describe('note stems per recall', () => {
  it('are computed once per note, even when the recall abstains and is traced', async () => {
    const k = tempKb();
    kbs.push(k);
    k.write('documents/pool.md', noteText('lrn-pool', 'postgres connection pool exhausted in tests', 'release every client in afterEach'));
    k.write('documents/idle.md', noteText('lrn-idle', 'postgres idle transactions hold the pool', 'close transactions before slow work'));
    // No cross-encoder: the relevance is the lexical estimate, whose evidence the abstention reason names.
    const env = { PATH: process.env['PATH'] ?? '', HOME: k.state, REFLECT_STATE_DIR: k.state, ...driverEnv(), RECALL_CROSS_ENCODER: '0' };
    const session = await openSession(
      { kb: k.root, global: false, allBranches: false, verbose: false },
      { env, cwd: k.root, warn: () => undefined },
    );
    const events: { stage: string }[] = [];
    try {
      reads.clear();
      // A floor no note reaches (1): the recall abstains and says why, naming the best note's evidence.
      const cmd = { ...DEFAULT_COMMAND, query: 'postgres connection pool exhausted', cache: false, floor: 1 };
      const res = await session.run(cmd, { noLog: true, trace: (e) => events.push(e) });
      expect(res.outcome?.abstained).toMatch(/best match lrn-/);
    } finally {
      session.close();
    }
    expect(events.map((e) => e.stage)).toContain('relevance');
    const noteReads = [...reads].filter(([text]) => text.includes('postgres'));
    expect(noteReads.length).toBe(2);
    expect(noteReads.map(([, n]) => n)).toEqual([1, 1]);
  });
});
