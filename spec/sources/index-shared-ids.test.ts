/**
 * Two live files that declare exactly the same id: the first keeps the id, the second is indexed
 * under a key of its own (the id and a hash of its place) with a one-line warning naming both
 * files, so neither hides the other. Its retired copies follow it; keys stay put across edits and
 * re-indexing.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import { tempKb, noteText, touchLater, type TempKb } from '../helpers/kb.js';
import { recallIn, ids } from '../helpers/run.js';
import { openIndex, refreshIndex, notesNamed, closeIndex, type IndexHandle } from '../../sources/index/index.js';
import { distinctKey } from '../../core/note/index.js';

let kb: TempKb | null = null;
afterEach(() => {
  kb?.cleanup();
  kb = null;
});

const ID = 'lrn-shared-id';
const B_KEY = distinctKey(ID, 'b');
const A_TEXT = noteText(ID, 'Kafka consumer rebalancing storms', 'Consumers rebalance constantly when max.poll.interval.ms is too low.');
const B_TEXT = noteText(ID, 'Kafka producer idempotence', 'Enable enable.idempotence to avoid duplicate kafka messages on retry.');

function sharedKb(): TempKb {
  const k = tempKb();
  k.write('documents/a.md', A_TEXT);
  k.write('documents/b.md', B_TEXT);
  return k;
}

function withIndex<T>(k: TempKb, fn: (h: IndexHandle) => T): T {
  const h = openIndex(k.root, k.state);
  try {
    return fn(h);
  } finally {
    closeIndex(h);
  }
}

/** Path → key of every stored note. */
const keys = (h: IndexHandle): Record<string, string> =>
  Object.fromEntries(
    (h.db.prepare(`SELECT path, key FROM notes ORDER BY path`).all() as { path: string; key: string }[]).map((r) => [r.path, r.key]),
  );

describe('two live files declaring one id', () => {
  it('both are found: the first by path keeps the id, the second gets the id and 6 hex of its place', async () => {
    kb = sharedKb();
    const got = ids(await recallIn(kb, 'kafka', { limit: 10 }));
    expect(got.sort()).toEqual([ID, B_KEY].sort());
    expect(B_KEY).toMatch(/^lrn-shared-id-[0-9a-f]{6}$/);
  });

  it('gives every one of many files whose paths read alike a key of its own', () => {
    kb = tempKb();
    const names = ['Kafka Lag', 'Kafka-Lag', 'Kafka  Lag', 'Kafka,Lag', 'Kafka;Lag', 'Kafka(Lag'];
    for (const n of names) kb.write(`documents/${n}.md`, `---\ntitle: "${n}"\n---\nconsumer lag notes of ${n}\n`);
    withIndex(kb, (h) => {
      refreshIndex(h);
      expect(new Set(Object.values(keys(h))).size).toBe(names.length);
    });
  });

  it('the declared id opens the first file, the new key the second', () => {
    kb = sharedKb();
    withIndex(kb, (h) => {
      refreshIndex(h);
      expect(notesNamed(h, ID).map((n) => n.path)).toEqual(['documents/a.md']);
      const b = notesNamed(h, B_KEY);
      expect(b.map((n) => [n.path, n.key, n.displayId])).toEqual([['documents/b.md', B_KEY, B_KEY]]);
    });
  });

  it('says so in one line naming both files, and keeps saying it until the file changes', () => {
    kb = sharedKb();
    withIndex(kb, (h) => {
      const first = refreshIndex(h);
      expect(first.problems).toEqual([]);
      expect(first.warnings).toEqual([
        {
          rel: 'documents/b.md',
          message: `id ${ID} is already the id of documents/a.md; this note is indexed as ${B_KEY} (give one of them another id)`,
        },
      ]);
      expect(refreshIndex(h, { force: true }).warnings).toEqual(first.warnings);
      expect(refreshIndex(h).warnings).toEqual(first.warnings);
    });
  });

  it('a retired copy shares the key of its live note, the first holder and the second alike', () => {
    kb = sharedKb();
    kb.write('archived/a.md', A_TEXT);
    kb.write('archived/b.md', B_TEXT);
    withIndex(kb, (h) => {
      refreshIndex(h);
      expect(keys(h)).toEqual({ 'archived/a.md': ID, 'archived/b.md': B_KEY, 'documents/a.md': ID, 'documents/b.md': B_KEY });
      // A copy retired after its note was indexed follows it as well.
      kb!.write('documents/.forgotten/b.md', B_TEXT);
      refreshIndex(h);
      expect(keys(h)['documents/.forgotten/b.md']).toBe(B_KEY);
    });
  });

  it('keeps every key when a.md, then b.md, is edited, and when the KB is indexed again', () => {
    kb = sharedKb();
    withIndex(kb, (h) => {
      refreshIndex(h);
      const before = keys(h);
      expect(before).toEqual({ 'documents/a.md': ID, 'documents/b.md': B_KEY });
      touchLater(kb!.write('documents/a.md', A_TEXT.replace('too low', 'far too low')), 5);
      refreshIndex(h);
      expect(keys(h)).toEqual(before);
      touchLater(kb!.write('documents/b.md', B_TEXT.replace('on retry', 'on every retry')), 10);
      refreshIndex(h);
      expect(keys(h)).toEqual(before);
      refreshIndex(h, { force: true });
      expect(keys(h)).toEqual(before);
    });
  });

  it('a later file never takes the id of the note that holds it, even one earlier by path', () => {
    kb = tempKb();
    kb.write('documents/b.md', B_TEXT);
    withIndex(kb, (h) => {
      refreshIndex(h);
      kb!.write('documents/a.md', A_TEXT);
      refreshIndex(h);
      expect(keys(h)).toEqual({ 'documents/a.md': distinctKey(ID, 'a'), 'documents/b.md': ID });
      refreshIndex(h, { force: true });
      expect(keys(h)).toEqual({ 'documents/a.md': distinctKey(ID, 'a'), 'documents/b.md': ID });
    });
  });

  it('a renamed holder keeps its id; once the holder is gone the other file (and its copy) gets the id back', () => {
    kb = sharedKb();
    kb.write('archived/b.md', B_TEXT);
    withIndex(kb, (h) => {
      refreshIndex(h);
      kb!.remove('documents/a.md');
      kb!.write('documents/a2.md', A_TEXT);
      refreshIndex(h);
      expect(keys(h)).toEqual({ 'archived/b.md': B_KEY, 'documents/a2.md': ID, 'documents/b.md': B_KEY });
      kb!.remove('documents/a2.md');
      const r = refreshIndex(h);
      expect(keys(h)).toEqual({ 'archived/b.md': ID, 'documents/b.md': ID });
      expect(notesNamed(h, ID).map((n) => [n.path, n.key, n.displayId])).toEqual([
        ['documents/b.md', ID, ID],
        ['archived/b.md', ID, ID],
      ]);
      expect(r.warnings).toEqual([]);
    });
  });
});
