/**
 * Notes whose declared ids (or Claude Code memory `name`s) read alike each keep an id of their own:
 * every one is ranked and every one opens, whatever order the files are walked in.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import { tempKb, type TempKb } from '../helpers/kb.js';
import { recallIn, ids } from '../helpers/run.js';
import { openIndex, refreshIndex, notesNamed, closeIndex } from '../../sources/index/index.js';

let kb: TempKb | null = null;
afterEach(() => {
  kb?.cleanup();
  kb = null;
});

const memory = (name: string, what: string): string =>
  `---\nname: ${JSON.stringify(name)}\ndescription: database pool sizing ${what}\n---\nSet the database pool size per worker: ${what}.\n`;

/** The memory folder of the repro: five notes, two of them with one Cyrillic name, three that slug alike. */
function poolKb(): TempKb {
  const k = tempKb();
  k.write('documents/a.md', memory('Pool size per worker', 'ten per worker on web'));
  k.write('documents/c.md', memory('Pool-size-per-worker', 'four per worker on jobs'));
  k.write('documents/d.md', memory('Pool   size per worker!', 'two per worker on cron'));
  k.write('documents/e.md', memory('заметка о пуле', 'twenty on the reporting box'));
  k.write('documents/f.md', memory('заметка о пуле', 'one on the migration runner'));
  k.write('documents/long-1.md', memory(`${'pool sizing '.repeat(40)}for web`, 'the long one for web'));
  k.write('documents/long-2.md', memory(`${'pool sizing '.repeat(40)}for jobs`, 'the long one for jobs'));
  return k;
}

describe('declared ids that read alike', () => {
  it('ranks every note: no two declarations share an id', async () => {
    kb = poolKb();
    const got = ids(await recallIn(kb, 'database pool sizing', { limit: 50 }));
    expect(got).toHaveLength(7);
    expect(new Set(got).size).toBe(7);
    // An id declared exactly as a readable id keeps it; the others are their readable form and a hash.
    expect(got).toContain('Pool-size-per-worker');
    for (const id of got.filter((i) => i !== 'Pool-size-per-worker'))
      expect(id).toMatch(/^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}-[0-9a-f]{6}$/);
  });

  it('opens each note by the name it declared', () => {
    kb = poolKb();
    const h = openIndex(kb.root, kb.state);
    try {
      refreshIndex(h);
      const opened = (id: string) => notesNamed(h, id).map((n) => n.path);
      expect(opened('Pool-size-per-worker')).toEqual(['documents/c.md']);
      expect(opened('Pool size per worker')).toEqual(['documents/a.md']);
      expect(opened('Pool   size per worker!')).toEqual(['documents/d.md']);
      expect(opened('заметка о пуле')).toEqual(['documents/e.md', 'documents/f.md']);
      for (const n of notesNamed(h, 'заметка о пуле'))
        expect(notesNamed(h, n.key).map((m) => m.frontmatter['name'])).toEqual(['заметка о пуле']);
    } finally {
      closeIndex(h);
    }
  });

  it('gives the same ids on every run, in any walk order', async () => {
    kb = poolKb();
    const first = ids(await recallIn(kb, 'database pool sizing', { limit: 50 })).sort();
    kb.cleanup();
    // The same files written in the other order, into a fresh KB and state dir.
    const again = tempKb();
    kb = again;
    const files: [string, string][] = [
      ['documents/long-2.md', memory(`${'pool sizing '.repeat(40)}for jobs`, 'the long one for jobs')],
      ['documents/long-1.md', memory(`${'pool sizing '.repeat(40)}for web`, 'the long one for web')],
      ['documents/f.md', memory('заметка о пуле', 'one on the migration runner')],
      ['documents/e.md', memory('заметка о пуле', 'twenty on the reporting box')],
      ['documents/d.md', memory('Pool   size per worker!', 'two per worker on cron')],
      ['documents/c.md', memory('Pool-size-per-worker', 'four per worker on jobs')],
      ['documents/a.md', memory('Pool size per worker', 'ten per worker on web')],
    ];
    for (const [rel, text] of files) again.write(rel, text);
    expect(ids(await recallIn(again, 'database pool sizing', { limit: 50 })).sort()).toEqual(first);
  });

  it('keeps a plain declared id as it is, and a retired copy of a note under its id', () => {
    kb = tempKb();
    kb.write('documents/deploy.md', memory('deploy/rollback', 'plain'));
    kb.write('documents/x.md', memory('Deploy roll back', 'live'));
    kb.write('archived/x.md', memory('Deploy roll back', 'retired'));
    const h = openIndex(kb.root, kb.state);
    try {
      refreshIndex(h);
      expect(notesNamed(h, 'deploy/rollback').map((n) => n.key)).toEqual(['deploy/rollback']);
      const copies = notesNamed(h, 'Deploy roll back');
      expect(copies.map((n) => n.path)).toEqual(['documents/x.md', 'archived/x.md']);
      expect(new Set(copies.map((n) => n.key)).size).toBe(1);
    } finally {
      closeIndex(h);
    }
  });
});
