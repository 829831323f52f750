import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import {
  countNotes,
  findRetired,
  indexGeneration,
  openIndex,
  refreshIndex,
  saveVectors,
  searchFts,
  closeIndex,
  type IndexHandle,
} from '../../sources/index/index.js';
import { ftsQuery } from '../../sources/index/fts-query.js';
import { tempKb, noteText, touchLater, type TempKb } from '../helpers/kb.js';

let kb: TempKb;
let h: IndexHandle | null = null;
afterEach(() => {
  if (h) closeIndex(h);
  h = null;
  kb?.cleanup();
});

const search = (index: IndexHandle, q: string): string[] => searchFts(index, ftsQuery(q)!, 50).map((r) => r.note.key);

describe('index refresh', () => {
  it('reflects an added, edited and deleted note in the next refresh, re-reading only changed files', () => {
    kb = tempKb();
    for (let i = 0; i < 5; i += 1) kb.write(`documents/n${i}.md`, noteText(`n${i}`, `note ${i}`, `ordinary body ${i}`));
    h = openIndex(kb.root, kb.state);
    const first = refreshIndex(h);
    expect(first).toMatchObject({ added: 5, updated: 0, removed: 0 });
    // Counts are kept per connection for one generation: read them before each change.
    expect(countNotes(h).live).toBe(5);

    kb.write('documents/new.md', noteText('new', 'zebra crossing', 'a zebra appears'));
    const added = refreshIndex(h);
    expect(added).toMatchObject({ added: 1, updated: 0, removed: 0, unchanged: 5 });
    expect(countNotes(h).live).toBe(6);
    expect(search(h, 'zebra')).toEqual(['new']);

    const abs = kb.write('documents/n2.md', noteText('n2', 'note 2', 'now about giraffes'));
    touchLater(abs);
    const edited = refreshIndex(h);
    expect(edited).toMatchObject({ added: 0, updated: 1, removed: 0, unchanged: 5 });
    expect(search(h, 'giraffes')).toEqual(['n2']);
    expect(search(h, 'ordinary')).not.toContain('n2');

    kb.remove('documents/n3.md');
    const removed = refreshIndex(h);
    expect(removed).toMatchObject({ removed: 1 });
    expect(search(h, 'ordinary')).not.toContain('n3');
    expect(countNotes(h).live).toBe(5);
    // A note moved to archived/ leaves the live count and joins the archived one.
    fs.mkdirSync(path.join(kb.root, 'archived'), { recursive: true });
    fs.renameSync(path.join(kb.root, 'documents', 'n4.md'), path.join(kb.root, 'archived', 'n4.md'));
    refreshIndex(h);
    expect(countNotes(h)).toEqual({ live: 4, archived: 1, forgotten: 0 });
    expect(removed.generation).toBeGreaterThan(edited.generation);
  });

  it('never hands out a generation twice when another writer bumps it between batches (counts stay exact)', () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'alpha', 'alpha body'));
    h = openIndex(kb.root, kb.state);
    refreshIndex(h);
    kb.write('documents/b.md', noteText('b', 'beta', 'beta body'));
    kb.write('documents/c.md', noteText('c', 'gamma', 'gamma body'));
    // Another process's refresh, and vectors saved by a recall while it runs.
    const refresher = openIndex(kb.root, kb.state);
    const embedder = openIndex(kb.root, kb.state);
    const seen: number[] = [indexGeneration(h)];
    let batches = 0;
    try {
      refreshIndex(refresher, {
        batchFiles: 1,
        onBatch: () => {
          batches += 1;
          if (batches === 1) saveVectors(embedder, 'm', [{ path: 'documents/a.md', contentHash: 'x', vector: [1, 2] }]);
          seen.push(indexGeneration(h!));
          // Read (and cache) the counts at every generation this connection sees.
          countNotes(h!);
        },
      });
    } finally {
      closeIndex(refresher);
      closeIndex(embedder);
    }
    // Strictly increasing: every committed batch (and the vector save) got a generation of its own.
    expect(seen.every((g, i) => i === 0 || g > seen[i - 1]!)).toBe(true);
    expect(indexGeneration(h)).toBe(seen[seen.length - 1]);
    expect(countNotes(h).live).toBe(3);
  });

  it('skips all comparison when nothing changed (fingerprint) and keeps the generation', () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'alpha', 'body'));
    h = openIndex(kb.root, kb.state);
    const r1 = refreshIndex(h);
    const r2 = refreshIndex(h);
    expect(r2.skipped).toBe(true);
    expect(r2.generation).toBe(r1.generation);
  });

  it('keeps the index under the state dir and writes nothing into the KB', () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'alpha', 'body'));
    const before = fs.readdirSync(kb.root, { recursive: true }).sort();
    h = openIndex(kb.root, kb.state);
    refreshIndex(h);
    expect(h.file.startsWith(path.join(kb.state, 'index'))).toBe(true);
    expect(fs.readdirSync(kb.root, { recursive: true }).sort()).toEqual(before);
  });

  it('falls back to an in-memory index when the state dir cannot be written', () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'alpha', 'searchable body'));
    fs.mkdirSync(path.dirname(kb.state), { recursive: true });
    fs.writeFileSync(kb.state, 'not a directory');
    h = openIndex(kb.root, kb.state);
    expect(h.file).toBe(':memory:');
    expect(h.fallbackReason).toMatch(/in-memory/);
    refreshIndex(h);
    expect(search(h, 'searchable')).toEqual(['a']);
  });

  it('rebuilds an index file that is not a database', () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'alpha', 'searchable body'));
    const first = openIndex(kb.root, kb.state);
    const file = first.file;
    closeIndex(first);
    fs.writeFileSync(file, 'garbage that is not sqlite'.repeat(100));
    for (const ext of ['-wal', '-shm']) fs.rmSync(`${file}${ext}`, { force: true });
    h = openIndex(kb.root, kb.state);
    expect(h.fallbackReason).toMatch(/rebuilt/);
    refreshIndex(h);
    expect(search(h, 'searchable')).toEqual(['a']);
  });
});

describe('malformed notes', () => {
  it('skips each broken file with a one-line reason and keeps every good note', () => {
    kb = tempKb();
    kb.write('documents/good.md', noteText('good', 'good note', 'findme text'));
    kb.write('documents/plain.md', '# A memory file without frontmatter\n\nfindme in plain text\n');
    kb.write('documents/bad-yaml.md', '---\nid: bad\ntitle: [unclosed\n---\nfindme\n');
    kb.write('documents/list-header.md', '---\n- a\n- b\n---\nfindme\n');
    kb.write('documents/unterminated.md', '---\nid: x\ntitle: never closed\nfindme\n');
    kb.write('documents/binary.md', Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0x01, 0x02, 0x66]));
    kb.write('documents/huge.md', `---\nid: huge\n---\n${'findme '.repeat(200_000)}`);
    kb.write(
      'documents/wrong-types.md',
      '---\nid: 42\ntitle: 7\ntags: 5\nconfidence: [1, 2]\nproof_count: yes\ncreated: not-a-date\n---\nfindme typed\n',
    );
    fs.symlinkSync(path.join(kb.root, 'documents', 'missing-target.md'), path.join(kb.root, 'documents', 'dangling.md'));
    fs.mkdirSync(path.join(kb.root, 'documents', 'loop'));
    fs.symlinkSync(path.join(kb.root, 'documents'), path.join(kb.root, 'documents', 'loop', 'back'));
    h = openIndex(kb.root, kb.state);
    const r = refreshIndex(h);
    const byFile = Object.fromEntries(r.problems.map((p) => [p.rel, p.message]));
    expect(byFile['documents/bad-yaml.md']).toMatch(/invalid YAML frontmatter at line \d+/);
    expect(byFile['documents/list-header.md']).toMatch(/not a mapping/);
    expect(byFile['documents/unterminated.md']).toMatch(/no closing ---/);
    expect(byFile['documents/binary.md']).toMatch(/binary/);
    expect(byFile['documents/huge.md']).toMatch(/too large/);
    expect(byFile['documents/dangling.md']).toMatch(/broken symlink/);
    for (const msg of Object.values(byFile)) expect(msg).not.toContain('\n');
    // Good, plain (no frontmatter) and oddly typed notes are all searchable; the loop is read once.
    const found = search(h, 'findme');
    expect(found).toEqual(expect.arrayContaining(['good', '42']));
    expect(found).toHaveLength(3);
    expect(countNotes(h).live).toBe(3);
  });

  it('recalls 1000 good notes mixed with 200 malformed ones', () => {
    kb = tempKb();
    const breakers = [
      (i: number) => `---\nid: b${i}\ntitle: [oops\n---\nbody\n`,
      (i: number) => `---\nid: b${i}\nno closing fence ${i}\n`,
      () => Buffer.from([0, 1, 2, 3, 0, 0, 255]),
      (i: number) => `---\n- list ${i}\n---\nbody\n`,
    ];
    for (let i = 0; i < 1000; i += 1) kb.write(`documents/good-${i}.md`, noteText(`good-${i}`, `good ${i}`, `common marker token${i}`));
    for (let i = 0; i < 200; i += 1) kb.write(`documents/bad-${i}.md`, breakers[i % breakers.length]!(i));
    h = openIndex(kb.root, kb.state);
    const r = refreshIndex(h);
    expect(r.problems).toHaveLength(200);
    expect(countNotes(h).live).toBe(1000);
    expect(searchFts(h, ftsQuery('token777')!, 5).map((x) => x.note.key)).toEqual(['good-777']);
    expect(searchFts(h, ftsQuery('common marker')!, 2000)).toHaveLength(1000);
  });
});

describe('retired notes', () => {
  it('keeps archived and forgotten notes out of search but finds them by key or content hash', () => {
    kb = tempKb();
    const text = noteText('old', 'shared topic', 'retired wording');
    kb.write('documents/live.md', noteText('live', 'shared topic', 'live wording'));
    kb.write('archived/old.md', text);
    kb.write('documents/.forgotten/gone.md', noteText('gone', 'shared topic', 'forgotten wording'));
    h = openIndex(kb.root, kb.state);
    refreshIndex(h);
    expect(search(h, 'shared topic')).toEqual(['live']);
    expect(countNotes(h)).toEqual({ live: 1, archived: 1, forgotten: 1 });
    const byKey = findRetired(h, ['old', 'gone', 'live'], []);
    expect(byKey.map((r) => [r.key, r.location]).sort()).toEqual([
      ['gone', 'forgotten'],
      ['old', 'archived'],
    ]);
  });
});
