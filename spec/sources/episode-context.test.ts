/**
 * Episode context in the lexical search: notes archived at the same moment (one session's notes)
 * lend each other their best match, so a half-matching turn of the session that matches the query
 * ranks above an equally half-matching note elsewhere; without shared moments, or for a bulk import
 * larger than MAX_EPISODE_NOTES, the order and scores are plain BM25's.
 */
import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import path from 'node:path';
import { lastValueFrom } from 'rxjs';
import { bm25Arm } from '../../sources/arms/bm25.js';
import { ftsQuery } from '../../sources/index/fts-query.js';
import { closeIndex, openIndex, refreshIndex, searchFts, type IndexHandle } from '../../sources/index/index.js';
import { EPISODE_RANKED_SQL, MAX_EPISODE_NOTES } from '../../sources/index/lookups.js';
import { episodeOf } from '../../sources/index/schema.js';
import { tempKb, noteText, type TempKb } from '../helpers/kb.js';

let kb: TempKb | undefined;
let h: IndexHandle | undefined;
afterEach(() => {
  if (h) closeIndex(h);
  kb?.cleanup();
  h = undefined;
  kb = undefined;
});

const SESSION_A = '2023-08-21T10:00:00';
const SESSION_B = '2023-09-02T18:30:00';
/** A note archived at `at` (the `<!-- archived -->` header an ingest writes), or undated. */
const turn = (id: string, title: string, body: string, at: string | null): string => {
  const text = noteText(id, title, body);
  return at === null ? text : text.replace('---\n## Learning', `---\n<!-- archived: ${at} -->\n\n## Learning`);
};

/**
 * Session A talks about fantasy films (its "fav" turn only says "movie"); session B has a turn that
 * says "movie" more plainly and would win on its own words.
 */
function sessions(at: (session: string) => string | null): TempKb {
  const k = tempKb();
  k.write('documents/a1.md', turn('a1', 'fantasy films with Tim', 'Tim loves fantasy films, the longer the better', at(SESSION_A)));
  k.write(
    'documents/a2.md',
    turn('a2', 'favourite pick', 'Definitely Star Wars, my favourite movie of all, it never gets old', at(SESSION_A)),
  );
  k.write('documents/b1.md', turn('b1', 'movie night', 'movie night, a movie', at(SESSION_B)));
  k.write('documents/b2.md', turn('b2', 'groceries', 'milk and eggs for the week', at(SESSION_B)));
  return k;
}

const keys = (rows: { note: { key: string } }[]): string[] => rows.map((r) => r.note.key);
const match = ftsQuery('fantasy movies')!;

describe('episode context (searchFts episodeWeight)', () => {
  it('lifts a half-matching turn of the session that matches best above a better-worded note of another session', () => {
    kb = sessions((s) => s);
    h = openIndex(kb.root, kb.state);
    refreshIndex(h);
    const own = keys(searchFts(h, match, 10));
    expect(own.indexOf('b1')).toBeLessThan(own.indexOf('a2'));
    const withContext = keys(searchFts(h, match, 10, { episodeWeight: 1 }));
    expect(withContext[0]).toBe('a1');
    expect(withContext.indexOf('a2')).toBeLessThan(withContext.indexOf('b1'));
    // What the episode lent is reported: the lifted turn's score minus its own; the best of an episode gets none.
    const lifted = searchFts(h, match, 10, { episodeWeight: 1 });
    const plainA2 = searchFts(h, match, 10).find((r) => r.note.key === 'a2')!;
    const a2 = lifted.find((r) => r.note.key === 'a2')!;
    expect(a2.context).toBeCloseTo(a2.score - plainA2.score, 9);
    expect(lifted.find((r) => r.note.key === 'a1')!.context).toBeUndefined();
  });

  it('keeps the best match of an episode at its own score, and changes nothing on a KB without archived moments', () => {
    kb = sessions(() => null);
    h = openIndex(kb.root, kb.state);
    refreshIndex(h);
    const plain = searchFts(h, match, 10);
    const withContext = searchFts(h, match, 10, { episodeWeight: 1 });
    expect(keys(withContext)).toEqual(keys(plain));
    withContext.forEach((r, i) => expect(r.score).toBeCloseTo(plain[i]!.score, 9));
  });

  it(`gives no context inside a bulk import (more than ${MAX_EPISODE_NOTES} notes archived at one moment)`, () => {
    kb = sessions((s) => s);
    for (let i = 0; i < MAX_EPISODE_NOTES; i += 1)
      kb.write(`documents/bulk-${i}.md`, turn(`bulk-${i}`, `filler ${i}`, 'nothing to see', SESSION_A));
    h = openIndex(kb.root, kb.state);
    refreshIndex(h);
    const withContext = searchFts(h, match, 10, { episodeWeight: 1 });
    const plain = searchFts(h, match, 10);
    // Session A is now a bulk import: its turns keep their own scores; session B (two notes) still counts.
    for (const key of ['a1', 'a2']) {
      expect(withContext.find((r) => r.note.key === key)!.score).toBeCloseTo(plain.find((r) => r.note.key === key)!.score, 9);
    }
    expect(withContext.find((r) => r.note.key === 'b1')!.score).toBeCloseTo(plain.find((r) => r.note.key === 'b1')!.score, 9);
    expect(keys(withContext).indexOf('b1')).toBeLessThan(keys(withContext).indexOf('a2'));
  });

  it(`counts only live notes toward the bulk limit: ${MAX_EPISODE_NOTES} live notes and a retired copy are still one session`, () => {
    kb = sessions((s) => s);
    for (let i = 0; i < MAX_EPISODE_NOTES - 2; i += 1)
      kb.write(`documents/more-${i}.md`, turn(`more-${i}`, `filler ${i}`, 'nothing to see', SESSION_A));
    kb.write('archived/old.md', turn('old', 'retired filler', 'nothing to see', SESSION_A));
    h = openIndex(kb.root, kb.state);
    refreshIndex(h);
    // Session A still lends its best match to its half-matching turn.
    const a2 = searchFts(h, match, 10, { episodeWeight: 1 }).find((r) => r.note.key === 'a2')!;
    expect(a2.context).toBeGreaterThan(0);
  });

  it("reads only the match pool and counts an episode's size on its covering index (the query plan)", () => {
    kb = sessions((s) => s);
    h = openIndex(kb.root, kb.state);
    refreshIndex(h);
    const plan = (h.db.prepare(`EXPLAIN QUERY PLAN ${EPISODE_RANKED_SQL}`).all(match, 200, 101, 100, 1, 2, 10) as { detail: string }[])
      .map((r) => r.detail)
      .join('\n');
    expect(plan).toMatch(/SEARCH x USING COVERING INDEX notes_episode \(episode=\? AND location=\?\)/);
    expect(plan).toMatch(/MATERIALIZE me/);
    expect(plan).not.toMatch(/SCAN (n|x)\b/);
  });

  it('is incremental: a note filed later into a session joins its episode on the next refresh, one removed leaves it', () => {
    kb = sessions((s) => s);
    h = openIndex(kb.root, kb.state);
    refreshIndex(h);
    const late = 'documents/b3.md';
    kb.write(late, turn('b3', 'fantasy fans', 'fantasy fantasy fantasy films, we are fans', SESSION_B));
    refreshIndex(h);
    // b3 now matches best, so its session B lends its turn b1 the context that session A's a2 gets.
    const scoreOf = (rows: { note: { key: string }; score: number }[], key: string): number => rows.find((r) => r.note.key === key)!.score;
    const own = searchFts(h, match, 10);
    const withContext = searchFts(h, match, 10, { episodeWeight: 1 });
    expect(scoreOf(withContext, 'b1')).toBeGreaterThan(scoreOf(own, 'b1'));
    fs.rmSync(path.join(kb.root, late));
    refreshIndex(h);
    const after = searchFts(h, match, 10, { episodeWeight: 1 });
    expect(keys(after)).not.toContain('b3');
    expect(scoreOf(after, 'b1')).toBeCloseTo(scoreOf(searchFts(h, match, 10), 'b1'), 9);
  });

  it("is what the lexical arm uses for the user's own words (episodeWeight option)", async () => {
    kb = sessions((s) => s);
    h = openIndex(kb.root, kb.state);
    refreshIndex(h);
    const arm = keys(await lastValueFrom(bm25Arm('fantasy movies', 10, h, { episodeWeight: 1 })));
    expect(arm.indexOf('a2')).toBeLessThan(arm.indexOf('b1'));
    const off = keys(await lastValueFrom(bm25Arm('fantasy movies', 10, h, { episodeWeight: 0 })));
    expect(off.indexOf('b1')).toBeLessThan(off.indexOf('a2'));
  });
});

describe('episodeOf', () => {
  it('is the archived moment when it names a valid time of day; a date alone, midnight or an invalid date is no episode', () => {
    expect(episodeOf('2023-01-20T16:04:00')).toBe(`local:${Date.UTC(2023, 0, 20, 16, 4, 0)}`);
    expect(episodeOf('2023-01-20T16:04')).toBe(episodeOf('2023-01-20T16:04:00'));
    expect(episodeOf('2023-01-20')).toBeNull();
    expect(episodeOf('2023-01-20T00:00:00')).toBeNull();
    expect(episodeOf('2023-01-20T00:00:00Z')).toBeNull();
    expect(episodeOf('2023-02-30T10:00:00')).toBeNull();
    expect(episodeOf('T12')).toBeNull();
    expect(episodeOf(`2023-01-20T16:04:00${'0'.repeat(600_000)}`)).toBeNull();
    expect(episodeOf(null)).toBeNull();
  });

  it('spells one moment one way: a zone written as Z, +00:00 or with milliseconds is the same episode', () => {
    const z = episodeOf('2025-07-23T15:48:20Z');
    expect(z).toBe(`utc:${Date.UTC(2025, 6, 23, 15, 48, 20)}`);
    expect(episodeOf('2025-07-23T15:48:20+00:00')).toBe(z);
    expect(episodeOf('2025-07-23T15:48:20.000Z')).toBe(z);
    expect(episodeOf('2025-07-23T17:48:20+02:00')).toBe(z);
  });
});
