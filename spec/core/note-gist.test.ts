import { describe, it, expect } from '@jest/globals';
import fc from 'fast-check';
import { GIST_MAX_CHARS, declaredKey, firstParagraph, noteGist, readableId } from '../../core/note/gist.js';
import { parseNote } from '../../core/note/note.js';

describe('noteGist', () => {
  it('is the first paragraph under the heading, links and emphasis as plain text', () => {
    const body = '# Kafka lag\n\nWhen a group **rebalances**, lag spikes; see [[Offsets|offset commits]] and [docs](https://x).\n\nMore.';
    expect(noteGist(body)).toBe('When a group rebalances, lag spikes; see offset commits and docs.');
  });

  it('skips code, tables, rules, comments and a how-to-apply line; takes a list or quote first item', () => {
    expect(firstParagraph('<!-- archived: 2024-01-01 -->\n```sh\nnpm ci\n```\n| a | b |\n---\nProse here.')).toBe('Prose here.');
    expect(firstParagraph('# T\n\n**How to apply:** do x\n\nThe point.')).toBe('The point.');
    expect(firstParagraph('# T\n- first item\n- second item')).toBe('first item');
    expect(firstParagraph('# Only a heading\n\n## And another')).toBe('');
  });

  it('keeps whole sentences within the budget, and cuts an overlong first sentence at a word with an ellipsis', () => {
    const s1 = `${'a'.repeat(100)} one.`;
    const s2 = `${'b'.repeat(100)} two.`;
    const s3 = `${'c'.repeat(100)} three.`;
    expect(noteGist(`${s1} ${s2} ${s3}`)).toBe(`${s1} ${s2}`);
    const long = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
    const g = noteGist(long);
    expect(g.endsWith('\u2026')).toBe(true);
    expect(g.length).toBeLessThanOrEqual(GIST_MAX_CHARS);
    expect(long.startsWith(g.slice(0, -1))).toBe(true);
  });

  it('never exceeds the budget (property)', () => {
    fc.assert(fc.property(fc.string({ maxLength: 2000 }), (body) => noteGist(body).length <= GIST_MAX_CHARS));
  });
});

describe('readableId', () => {
  const SHOWN = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/;

  it('leaves ids that can be shown as they are and makes the others readable', () => {
    expect(readableId('deploy/rollback')).toBe('deploy/rollback');
    expect(readableId('lrn-pool-c04e7a')).toBe('lrn-pool-c04e7a');
    expect(readableId('infra/Kafka consumer lag')).toBe('infra/Kafka-consumer-lag');
    expect(readableId('Café notes (draft)')).toBe('Cafe-notes-draft');
  });

  it('keeps ids of other scripts apart with a hash', () => {
    const a = readableId('заметки/кафка');
    const b = readableId('заметки/деплой');
    expect(a).not.toBe(b);
    expect(a).toMatch(SHOWN);
  });

  it('always gives an id that is shown as typed (property)', () => {
    fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 300 }), (id) => SHOWN.test(readableId(id))));
  });
});

describe('declaredKey', () => {
  const memory = (name: string) => `---\nname: ${JSON.stringify(name)}\ndescription: pool\n---\nPool.\n`;

  it('keeps a declared id that is shown as typed; any other gets its readable form and a hash', () => {
    expect(declaredKey('lrn-pool-c04e7a', 'x')).toBe('lrn-pool-c04e7a');
    expect(declaredKey('Pool-size-per-worker', 'c')).toBe('Pool-size-per-worker');
    expect(declaredKey('Pool size per worker', 'a')).toMatch(/^Pool-size-per-worker-[0-9a-f]{6}$/);
    expect(declaredKey('заметка о пуле', 'e')).toMatch(/^note-[0-9a-f]{6}$/);
  });

  it('never gives two declarations that read alike, or one unreadable name in two files, one key', () => {
    const keys = [
      parseNote(memory('Pool size per worker'), 'a.md', 'documents').key,
      parseNote(memory('Pool-size-per-worker'), 'c.md', 'documents').key,
      parseNote(memory('Pool   size per worker!'), 'd.md', 'documents').key,
      parseNote(memory('заметка о пуле'), 'e.md', 'documents').key,
      parseNote(memory('заметка о пуле'), 'f.md', 'documents').key,
      parseNote(memory(`${'pool '.repeat(100)}web`), 'g.md', 'documents').key,
      parseNote(memory(`${'pool '.repeat(100)}jobs`), 'h.md', 'documents').key,
    ];
    expect(new Set(keys).size).toBe(keys.length);
    for (const k of keys) expect(k).toMatch(/^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/);
  });

  it('is the same on every run and for a retired copy of the note', () => {
    const live = parseNote(memory('Pool size per worker'), 'documents/pool.md', 'documents').key;
    expect(parseNote(memory('Pool size per worker'), 'documents/pool.md', 'documents').key).toBe(live);
    expect(parseNote(memory('Pool size per worker'), 'archived/pool.md', 'archived').key).toBe(live);
  });
});

describe('plain markdown notes', () => {
  it('a note in a file name with spaces gets a readable id; one without a heading is titled from its file name', () => {
    expect(parseNote('# Kafka lag\n\nText.', 'infra/Kafka Lag.md', 'documents').key).toBe('infra/Kafka-Lag');
    const bare = parseNote('Drain the load balancer before a restart.', 'ops/drain-before-restart.md', 'documents');
    expect(bare.title).toBe('drain-before-restart');
    expect(bare.key).toBe('ops/drain-before-restart');
  });
});
