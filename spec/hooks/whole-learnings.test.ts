/**
 * The prompt hook's pick from its floored results (hooks/registry.ts wholeLearnings): whole learnings
 * at or over LIKELY_RELEVANCE within its budget, and the best learning under it as a one-line pointer.
 */
import { describe, it, expect } from '@jest/globals';
import { LIKELY_RELEVANCE, POINTER_SUMMARY_SHARE, pointerBlock, wholeLearnings } from '../../hooks/registry.js';
import { note } from '../helpers/notes.js';
import { scored } from '../operators/states.js';
import type { ScoredCandidate } from '../../core/types.js';

const render = (list: ScoredCandidate[]): string => list.map((c) => `- **[${c.note.key}]** ${c.note.title}`).join('\n');
const ids = (list: ScoredCandidate[]): string[] => list.map((c) => c.note.key);

describe('wholeLearnings', () => {
  const likely = [0.9, 0.7].map((r, i) => scored(note({ id: `likely-${i}` }), 1 - i / 10, r));
  const weaker = [0.45, 0.35, 0.31].map((r, i) => scored(note({ id: `weak-${i}` }), 0.5 - i / 10, r));

  it('gives learnings under LIKELY_RELEVANCE as one pointer at most, never whole', () => {
    expect(weaker.every((c) => c.relevance < LIKELY_RELEVANCE)).toBe(true);
    const alone = wholeLearnings(weaker, render, 0.3);
    expect([ids(alone.kept), alone.pointer?.note.key]).toEqual([[], 'weak-0']);
    const mixed = wholeLearnings([likely[0]!, ...weaker, likely[1]!], render, 0.3);
    expect([ids(mixed.kept), mixed.pointer?.note.key]).toEqual([['likely-0', 'likely-1'], 'weak-0']);
    expect(wholeLearnings(likely, render, 0.3).pointer).toBeNull();
  });

  it('points at the unsure learning with the highest relevance, whatever its rank', () => {
    // Ranked first by recency or confidence, but less likely about the prompt than the one after it.
    const ranked = [scored(note({ id: 'recent' }), 0.9, 0.36), scored(note({ id: 'closer' }), 0.8, 0.39)];
    expect(wholeLearnings(ranked, render, 0.3).pointer?.note.key).toBe('closer');
  });

  it('names no note in the pointer whose summary holds none of the prompt (a mention in passing)', () => {
    const inBody = (id: string, relevance: number, share: number): ScoredCandidate => ({
      ...scored(note({ id }), 0.5, relevance),
      summaryShare: share,
    });
    const passing = inBody('mentions-it', 0.45, POINTER_SUMMARY_SHARE / 2);
    expect(wholeLearnings([passing], render, 0.3).pointer).toBeNull();
    // Nor a weaker one in its place: it is no likelier to be what the prompt is about.
    expect(wholeLearnings([passing, inBody('about-it', 0.35, 0.4)], render, 0.3).pointer).toBeNull();
    expect(wholeLearnings([inBody('about-it', 0.35, 0.4)], render, 0.3).pointer?.note.key).toBe('about-it');
    // A cross-encoder judged the note's meaning, not its words: its estimate stands.
    const judged = { ...passing, relevanceSource: 'cross-encoder' as const };
    expect(wholeLearnings([judged], render, 0.3).pointer?.note.key).toBe('mentions-it');
  });

  it('names no note in the pointer whose text holds no word of an error the prompt pastes', () => {
    const wal = scored(note({ id: 'wal', title: 'SQLite WAL grows unbounded without checkpointing' }, 'Checkpoint the WAL.'), 0.5, 0.4);
    const locked = scored(note({ id: 'locked', title: 'SQLite writers: database is locked' }, 'Set a busy timeout.'), 0.5, 0.4);
    const prompt = 'two python processes keep hitting `sqlite3.OperationalError: database is locked`. reads are fine.';
    expect(wholeLearnings([wal], render, 0.3, new Set(), prompt).pointer).toBeNull();
    expect(wholeLearnings([locked], render, 0.3, new Set(), prompt).pointer?.note.key).toBe('locked');
    // A prompt that pastes no error, or quotes something that is no error, changes nothing.
    expect(wholeLearnings([wal], render, 0.3, new Set(), 'the app.db-wal file is 14GB').pointer?.note.key).toBe('wal');
    expect(wholeLearnings([wal], render, 0.3, new Set(), 'set `journal_mode` to "wal" everywhere').pointer?.note.key).toBe('wal');
  });

  it('gives no learning whole that holds under a third of the words of an error the prompt pastes (another error of the tool)', () => {
    const size = scored(
      note(
        { id: 'grpc-size', title: 'gRPC batch size limits' },
        'Batches fail with `rpc error: code = ResourceExhausted desc = grpc: received message larger than max`.',
      ),
      0.9,
      0.91,
    );
    const quota =
      'clients get `rpc error: code = ResourceExhausted desc = tenant 5521 over ingest quota (12000 events/s)`. where is it enforced?';
    expect(ids(wholeLearnings([size], render, 0.3, new Set(), quota).kept)).toEqual([]);
    // The same error as the note's: given whole.
    const same =
      'batches fail with `rpc error: code = ResourceExhausted desc = grpc: received message larger than max (5242880 vs. 4194304)`';
    expect(ids(wholeLearnings([size], render, 0.3, new Set(), same).kept)).toEqual(['grpc-size']);
    // Fewer than three words of an error say too little to judge by; the floor off holds nothing back.
    expect(ids(wholeLearnings([size], render, 0.3, new Set(), 'it says `ResourceExhausted: quota`').kept)).toEqual(['grpc-size']);
    expect(ids(wholeLearnings([size], render, 0, new Set(), quota).kept)).toEqual(['grpc-size']);
  });

  it('gives no learning, whole or as the pointer, that names none of the names of an error the prompt pastes', () => {
    const prepared = scored(
      note({ id: 'prepared', title: 'PgBouncer transaction mode breaks named prepared statements' }, 'Each client connection is shared.'),
      0.9,
      0.91,
    );
    const limit = scored(note({ id: 'limit', title: 'PgBouncer client limit' }, 'Raise `max_client_conn` with the workers.'), 0.9, 0.91);
    const prompt = 'new connections fail with `FATAL: no more connections allowed (max_client_conn)` from pgbouncer';
    expect(ids(wholeLearnings([prepared, limit], render, 0.3, new Set(), prompt).kept)).toEqual(['limit']);
    const unsure = { ...prepared, relevance: 0.4 };
    expect(wholeLearnings([unsure], render, 0.3, new Set(), prompt).pointer).toBeNull();
    // Without the name the same words are no counter-evidence.
    expect(ids(wholeLearnings([prepared], render, 0.3, new Set(), 'pgbouncer: no more client connections').kept)).toEqual(['prepared']);
  });

  it('gives a learning whose relevance only the entity graph lent it as the pointer at most, after one the prompt reaches', () => {
    // The pool note is what the prompt is about; the gateway note is linked to it (a shared service).
    const pool = scored(note({ id: 'pool', title: 'Redis pool exhaustion' }), 1, 0.95);
    const linked = (relevance: number): ScoredCandidate => ({
      ...scored(note({ id: 'gateway', title: 'API gateway timeouts' }), 0.9, relevance),
      relevanceSource: 'linked',
    });
    const sure = wholeLearnings([pool, linked(0.63)], render, 0.3);
    expect([ids(sure.kept), sure.pointer?.note.key]).toEqual([['pool'], 'gateway']);
    // A weaker note whose own words reach the prompt is the pointer before it.
    const reached = { ...scored(note({ id: 'retries', title: 'Retry storms' }), 0.5, 0.35), summaryShare: 0.3 };
    expect(wholeLearnings([pool, linked(0.63), reached], render, 0.3).pointer?.note.key).toBe('retries');
    // Its own words saying as much: given like any other.
    const own = { ...linked(0.63), relevanceSource: 'lexical' as const };
    expect(ids(wholeLearnings([pool, own], render, 0.3).kept)).toEqual(['pool', 'gateway']);
    // The floor off holds nothing back.
    expect(ids(wholeLearnings([pool, linked(0.63)], render, 0).kept)).toEqual(['pool', 'gateway']);
  });

  it('holds nothing back when the floor is off (0)', () => {
    const out = wholeLearnings(weaker, render, 0);
    expect([ids(out.kept), out.pointer]).toEqual([['weak-0', 'weak-1', 'weak-2'], null]);
  });

  it('the block is the whole learnings, then the pointer line that says it may not apply and how to read it', () => {
    const out = wholeLearnings([...weaker, ...likely], render, 0.3);
    expect(out.block.startsWith(render(out.kept))).toBe(true);
    expect(out.block).toContain('- [weak-0] ');
    expect(out.block).not.toContain('**[weak-0]**');
    expect(out.block).toMatch(/not sure it applies/i);
    expect(out.block).toContain('recall show weak-0');
    // Alone, the pointer says so in a heading of its own.
    const alone = wholeLearnings(weaker, render, 0.3);
    expect(alone.block).toBe(`${pointerBlock(weaker[0]!, true)}\n`);
    expect(alone.block).toMatch(/^## A learning that may be related/);
  });
});

describe('wholeLearnings for a session that was given some of them', () => {
  // A render that costs each learning its title's length: a long one crowds out the others.
  const sized = (id: string, chars: number, relevance = 0.8): ScoredCandidate =>
    scored(note({ id, title: 'x'.repeat(chars) }), relevance, relevance);
  const [long, b, c, d] = [sized('long', 1100), sized('b', 500), sized('c', 500), sized('d', 100)];

  it('keeps the place of a learning already given and gives none of its own beyond the places', () => {
    const first = wholeLearnings([b, c, d, sized('e', 100)], render, 0.3);
    expect(ids(first.kept)).toEqual(['b', 'c', 'd']);
    const given = new Set(ids(first.kept));
    expect(ids(wholeLearnings([b, c, d, sized('e', 100)], render, 0.3, given).kept)).toEqual([]);
  });

  it('does not count the text of a learning already given against the budget (a long one given at session start)', () => {
    // Nothing given: the long learning takes the budget, b and c do not fit beside it.
    expect(ids(wholeLearnings([long, b, c], render, 0.3).kept)).toEqual(['long']);
    // The long one given before: its text is not sent again, so b and c fit.
    expect(ids(wholeLearnings([long, b, c], render, 0.3, new Set(['long'])).kept)).toEqual(['b', 'c']);
  });
});
