/** The lexical arm's term rules, the date-window rules and the WordNet expansion. */
import { describe, it, expect, afterEach } from '@jest/globals';
import { lastValueFrom } from 'rxjs';
import { bm25Arm, EXPANSION_WEIGHT } from '../../sources/arms/bm25.js';
import { ftsQuery } from '../../sources/index/fts-query.js';
import { datePhraseWords, inKbYears } from '../../pipeline/recall/recall.js';
import { extractTemporal } from '../../sources/query/temporal-grammar.js';
import { expandQuery, morphy, relatedToPair, relatedWords } from '../../sources/query/word-expansion.js';
import { fileTable, sortedTable } from '../../sources/query/sorted-table.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { queryTerms } from '../../core/stems.js';
import { openIndex, refreshIndex, closeIndex } from '../../sources/index/index.js';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';
import { recallIn, ids } from '../helpers/run.js';

let kb: TempKb | undefined;
afterEach(() => kb?.cleanup());

describe('ftsQuery', () => {
  it('keeps two-character technical words', () => {
    expect(ftsQuery('s3 upload fails on CI')).toBe('"s3" OR "upload" OR "fails" OR "ci"');
  });

  it('matches a hyphenated term as its phrase and as each of its parts', () => {
    expect(ftsQuery('transgender-specific events')).toBe('"transgender-specific" OR "transgender" OR "specific" OR "events"');
  });
});

describe('bm25Arm with expansions', () => {
  it("adds related words at EXPANSION_WEIGHT of their score; a note found only by them ranks below the user's own words", async () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('own', 'martial arts class', 'we talked about martial arts'));
    kb.write('documents/b.md', noteText('kind', 'off to taekwondo', 'taekwondo practice tonight'));
    kb.write('documents/c.md', noteText('none', 'grocery list', 'milk and eggs'));
    const h = openIndex(kb.root, kb.state);
    try {
      refreshIndex(h);
      const plain = await lastValueFrom(bm25Arm('martial arts', 10, h));
      expect(plain.map((x) => x.note.key)).toEqual(['own']);
      const expanded = await lastValueFrom(bm25Arm('martial arts', 10, h, { expansions: ['taekwondo', 'karate'] }));
      expect(expanded.map((x) => x.note.key)).toEqual(['own', 'kind']);
      const alone = await lastValueFrom(bm25Arm('taekwondo', 10, h));
      expect(expanded[1]!.score).toBeCloseTo(EXPANSION_WEIGHT * alone[0]!.score, 9);
    } finally {
      closeIndex(h);
    }
  });
});

describe('date phrases', () => {
  const ref = new Date(2026, 11, 1);

  it('reads "3 June, 2023" and "june 3rd 2023" as that day, not the month', () => {
    for (const q of ['what did Maria share on 3 June, 2023?', 'what happened on june 3rd 2023']) {
      const t = extractTemporal(q, ref)!;
      expect([t.start.getFullYear(), t.start.getMonth(), t.start.getDate()]).toEqual([2023, 5, 3]);
      expect(t.end.getDate()).toBe(3);
      expect(t.impliedYear).toBeUndefined();
    }
  });

  it('marks a month without a year as an implied year', () => {
    const t = extractTemporal('when did we go camping in july', ref)!;
    expect([t.start.getFullYear(), t.start.getMonth()]).toEqual([2026, 6]);
    expect(t.impliedYear).toBe(true);
    expect(extractTemporal('notes from july 2023', ref)!.impliedYear).toBeUndefined();
  });

  it('moves a year-less window back to the latest year that has notes in it, and leaves others alone', () => {
    const july = extractTemporal('camping in july', ref)!;
    const notes2023 = (s: number, e: number): boolean => s <= new Date(2023, 6, 20).getTime() && new Date(2023, 6, 20).getTime() <= e;
    const moved = inKbYears(july, notes2023)!;
    expect([moved.start.getFullYear(), moved.start.getMonth(), moved.end.getFullYear()]).toEqual([2023, 6, 2023]);
    expect(inKbYears(july, () => false)).toBe(july);
    const explicit = extractTemporal('camping in july 2026', ref)!;
    expect(inKbYears(explicit, notes2023)).toBe(explicit);
  });

  it('keeps the date phrase as lower-weighted lexical words', () => {
    expect(datePhraseWords(extractTemporal('camping in july', ref))).toEqual(['july']);
    expect(datePhraseWords(extractTemporal('since march 2024', ref))).toEqual(['march', '2024']);
    expect(datePhraseWords(null)).toEqual([]);
  });

  it('finds a KB from another year by month name (end to end)', async () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('camp', 'Melanie camping trip', 'we went camping at the lake', { created: '2023-07-20' }));
    kb.write('documents/b.md', noteText('other', 'Melanie painting', 'a sunrise painting', { created: '2023-03-02' }));
    const r = await recallIn(kb, 'When did Melanie go camping in July?');
    expect(r.outcome!.temporal!.start.getFullYear()).toBe(2023);
    expect(r.outcome!.arms.find((a) => a.arm === 'temporal')).toMatchObject({ status: 'ok' });
    expect(ids(r)[0]).toBe('camp');
  });
});

describe('WordNet expansion', () => {
  it('reduces inflected words to dictionary forms', () => {
    expect(morphy('arts')).toContain('art');
    expect(morphy('studios')).toContain('studio');
    expect(morphy('loved')).toContain('love');
  });

  it('relates a word to its synonyms and kinds, and a two-word lemma as one', () => {
    expect(relatedWords('child')).toContain('kid');
    expect(relatedToPair('martial', 'arts')).toEqual(expect.arrayContaining(['judo', 'karate', 'taekwondo']));
  });

  it("expands specific words and word pairs, never names, very common words or the query's own words", () => {
    const info = (stem: string): number => (stem === 'do' ? 0.2 : 0.7);
    const q = 'What martial arts has John done';
    const raw = ['martial', 'arts', 'john', 'done'];
    const out = expandQuery(queryTerms(q), raw, info);
    expect(out).toEqual(expect.arrayContaining(['judo', 'taekwondo']));
    expect(out).not.toContain('toilet'); // WordNet's "john", but John is a name here
    expect(out).not.toContain('martial');
  });
});

describe('sortedTable', () => {
  it('finds keys by binary search and nothing else', () => {
    const t = sortedTable('a\t1\nab\t2\nb\t3\nzz\t4\n');
    expect(['a', 'ab', 'b', 'zz', 'c', '', 'aa'].map((k) => t.get(k))).toEqual(['1', '2', '3', '4', null, null, null]);
  });
});

describe('fileTable', () => {
  it('finds what sortedTable finds in the same text, reading the file in chunks', () => {
    // Long values put keys and lines across the 4 KB chunks the table reads.
    const keys = Array.from({ length: 400 }, (_, i) => `k${String(i).padStart(4, '0')}`).sort();
    const text = keys.map((k, i) => `${k}\t${'v'.repeat(i % 97)}${i}\n`).join('');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-table-'));
    const file = path.join(dir, 't.tsv');
    fs.writeFileSync(file, text);
    try {
      const [inFile, inText] = [fileTable(file)!, sortedTable(text)];
      for (const k of [...keys, 'k', 'k0000x', 'zz', '', 'a']) expect(inFile.get(k)).toBe(inText.get(k));
      expect(fileTable(path.join(dir, 'missing.tsv'))).toBeNull();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
