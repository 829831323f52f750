import { describe, it, expect } from '@jest/globals';
import fc from 'fast-check';
import { queryTerms, textStems, stemOf } from '../../../core/stems.js';
import {
  FEATURE_NAMES,
  RELEVANCE_MODEL,
  MAX_ABBREVIATION_CHARS,
  MIN_LABEL_NOTES,
  TITLE_LABEL_SHARE,
  containsTerm,
  contributions,
  matchedStem,
  idf,
  lexicalRelevance,
  relevanceFeatures,
  noteTerms,
  type RelevanceFeatures,
  type WeightedTerm,
} from '../../../operators/math/relevance.js';
import { infoOf, wordCounts } from '../../../sources/query/word-info.js';

describe('queryTerms', () => {
  it('keeps two-letter technical words, drops function words and repeats, stems as the index does', () => {
    const t = queryTerms('S3 upload fails on CI: the uploads fail');
    expect(t.map((x) => x.word)).toEqual(['s3', 'upload', 'fails', 'ci']);
    expect(t.map((x) => x.stem)).toEqual(['s3', 'upload', 'fail', 'ci']);
  });

  it('marks capitalised words inside a sentence as names, not the first word of a sentence', () => {
    const t = queryTerms('When did Melanie go camping? Tim went with Maria.');
    const proper = Object.fromEntries(t.map((x) => [x.word, x.proper]));
    expect(proper).toEqual({ melanie: true, go: false, camping: false, tim: false, went: false, maria: true });
  });

  it('ignores capitals as a sign of names in a prompt written in Title Case', () => {
    expect(queryTerms('How Do We Authenticate First-Party Requests Between Our Services').some((t) => t.proper)).toBe(false);
    expect(queryTerms('When did Melanie go camping?').find((t) => t.word === 'melanie')!.proper).toBe(true);
  });

  it('keeps the marks of non-Latin letters, as the index does', () => {
    expect(queryTerms('пайплайн подключений').map((t) => t.word)).toEqual(['пайплайн', 'подключений']);
    expect([...textStems('データベース')]).toEqual(['データベース']);
  });

  it('splits hyphenated and possessive words into their parts ("first-party", "John\'s")', () => {
    expect(queryTerms("John's first-party auth").map((x) => x.word)).toEqual(['john', 'first', 'party', 'auth']);
  });

  it('folds diacritics like the index tokenizer', () => {
    expect(textStems('Café crème')).toEqual(new Set(['cafe', 'creme']));
  });
});

describe('containsTerm', () => {
  const note = noteTerms(textStems('auth sessions replace JWT; configuration of the pool; postgres and javascript'));
  it('matches the same stem, a note abbreviation of the query word, and a short extension of a long query word', () => {
    expect(containsTerm(note, stemOf('sessions'))).toBe(true);
    expect(containsTerm(note, stemOf('authenticate'))).toBe(true); // the note's "auth" abbreviates "authent"
    expect(containsTerm(note, stemOf('config'))).toBe(true); // "configur" extends "config" by 2 characters
    expect(containsTerm(note, stemOf('jw'))).toBe(false); // shorter than four characters: exact only
    expect(containsTerm(note, stemOf('kafka'))).toBe(false);
  });

  it('names the note stem through which it matches (matchedStem)', () => {
    expect(matchedStem(note, stemOf('sessions'))).toBe(stemOf('sessions'));
    expect(matchedStem(note, stemOf('authenticate'))).toBe('auth');
    expect(matchedStem(note, stemOf('config'))).toBe(stemOf('configuration'));
    expect(matchedStem(note, stemOf('kafka'))).toBeUndefined();
  });

  it('lets a note word of at most MAX_ABBREVIATION_CHARS stand for a longer query word (an abbreviation is short)', () => {
    const long = 'a'.repeat(MAX_ABBREVIATION_CHARS + 5);
    expect(matchedStem(noteTerms([long.slice(0, MAX_ABBREVIATION_CHARS)]), long)).toBe(long.slice(0, MAX_ABBREVIATION_CHARS));
    expect(matchedStem(noteTerms([long.slice(0, MAX_ABBREVIATION_CHARS + 1)]), long)).toBeUndefined();
  });

  it('does not take a short word for the start of a longer one ("post" is not "postgres", "java" not "javascript")', () => {
    expect(containsTerm(note, stemOf('post'))).toBe(false);
    expect(containsTerm(note, stemOf('java'))).toBe(false);
  });
});

describe('word information', () => {
  it('ranks words by how much they say: function words < generic words < technical words < unseen words', () => {
    const c = wordCounts();
    const info = (w: string): number => infoOf(c, stemOf(w));
    expect(info('the')).toBeLessThan(info('waiting'));
    expect(info('waiting')).toBeLessThan(info('kafka'));
    expect(info('kafka')).toBeLessThan(info('pgbouncer'));
    expect(info('pgbouncer')).toBe(1);
    expect(info('the')).toBeGreaterThanOrEqual(0);
  });

  it('knows the words everyday English writes capitalised as names, whatever case they are asked in', () => {
    const c = wordCounts();
    for (const w of ['friday', 'caroline', 'john', 'kafka']) expect([w, c.isName(stemOf(w))]).toEqual([w, true]);
    // Subtitles capitalise what starts a line, so a word mostly said alone ("Freeze!", "Listen") is
    // listed as a name too; the estimate asks the counts only about words no note of the window uses.
    for (const w of ['go', 'will', 'merge', 'pool', 'tests']) expect([w, c.isName(stemOf(w))]).toEqual([w, false]);
    // Nor a word that mostly opens a sentence, one of the most spoken ("Maybe …", "What's …", "Okay, …").
    for (const w of ['maybe', 'whats', 'okay', 'ok', 'thanks', 'come', 'well', 'let']) expect([w, c.isName(stemOf(w))]).toEqual([w, false]);
  });
});

const term = (stem: string, info: number, df: number): WeightedTerm => ({ stem, info, df });

describe('relevanceFeatures', () => {
  it('weighs coverage by KB rarity and by everyday-English information, and names what is missing', () => {
    const terms = [term('kafka', 0.8, 1), term('lag', 0.7, 2), term('keep', 0.3, 50)];
    const f = relevanceFeatures(terms, noteTerms(['kafka', 'keep', 'consum']), new Set(['kafka', 'consum']), 100);
    const k = (df: number): number => idf(df, 100);
    expect(f.kbCoverage).toBeCloseTo((k(1) + k(50)) / (k(1) + k(2) + k(50)), 10);
    expect(f.infoCoverage).toBeCloseTo((0.8 + 0.3) / 1.8, 10);
    expect(f.titleCoverage).toBeCloseTo(0.5, 10);
    expect(f.noteMissing).toBeCloseTo(0.7, 10);
    expect(f.maxCovered).toBeCloseTo(0.8, 10);
    expect(f.coveredInfo).toBeCloseTo(1.1 / 3, 10);
    expect(f.specificCovered).toBe(1); // "kafka", at 0.8, is specific
  });

  it("leaves the KB's label words out of the title coverage, and counts them in titleWithLabels", () => {
    // "john" is in 60 of 100 notes: it heads John's turns, it does not say what this turn is about.
    const terms = [{ ...term('john', 1, 60), proper: true }, term('yoga', 0.69, 3)];
    const title = new Set(['john', 'yoga', 'class', 'weekend']);
    const f = relevanceFeatures(terms, noteTerms(['john', 'yoga', 'class', 'weekend']), title, 100);
    expect(f.titleCoverage).toBeCloseTo(1 / 3, 10); // "yoga" of "yoga class weekend"
    expect(f.titleWithLabels).toBeCloseTo(2 / 4, 10);
    // Under the label share the name is an ordinary title word.
    const rare = [{ ...term('john', 1, Math.floor(TITLE_LABEL_SHARE * 100)), proper: true }, term('yoga', 0.69, 3)];
    expect(relevanceFeatures(rare, noteTerms(['john', 'yoga']), title, 100).titleCoverage).toBeCloseTo(2 / 4, 10);
    // In a small KB a word in a quarter of the notes is a topic, not a label.
    const small = [{ ...term('john', 1, MIN_LABEL_NOTES - 1), proper: true }, term('yoga', 0.69, 1)];
    expect(relevanceFeatures(small, noteTerms(['john', 'yoga']), title, 12).titleCoverage).toBeCloseTo(2 / 4, 10);
    // A title of labels only has no coverage left (not 0 / 0).
    expect(relevanceFeatures(terms, noteTerms(['john']), new Set(['john']), 100).titleCoverage).toBe(0);
  });

  it('never counts a name that is not specific toward a specific pair', () => {
    const john = { ...term('john', 1, 60), proper: true, specific: false };
    const terms = [john, term('support', 0.56, 40), term('group', 0.57, 20)];
    expect(relevanceFeatures(terms, noteTerms(['john', 'support']), new Set(), 100).specificCovered).toBe(0);
    // Two mid words of its own still make the note specific.
    expect(relevanceFeatures(terms, noteTerms(['john', 'support', 'group']), new Set(), 100).specificCovered).toBe(1);
  });

  it('counts two mid-specific words together as specific, everyday coding words never', () => {
    const mid = [term('freez', 0.56, 1), term('friday', 0.56, 1)];
    expect(relevanceFeatures(mid, noteTerms(['freez', 'friday']), new Set(), 10).specificCovered).toBe(1);
    expect(relevanceFeatures(mid, noteTerms(['freez']), new Set(), 10).specificCovered).toBe(0);
    const everyday = [{ ...term('test', 0.5, 1), everyday: true }, { ...term('fail', 0.54, 1), everyday: true }, term('again', 0.4, 1)];
    expect(relevanceFeatures(everyday, noteTerms(['test', 'fail', 'again']), new Set(), 10).specificCovered).toBe(0);
  });

  it('is all zeros for a query without terms', () => {
    expect(relevanceFeatures([], noteTerms(['a']), new Set(), 10)).toEqual({
      kbCoverage: 0,
      infoCoverage: 0,
      titleCoverage: 0,
      titleWithLabels: 0,
      evidence: 0,
      summaryShare: 0,
      phrases: 0,
      standout: 0,
      noteMissing: 0,
      maxCovered: 0,
      coveredInfo: 0,
      specificCovered: 0,
    });
  });
});

describe('lexicalRelevance', () => {
  const unit = (): fc.Arbitrary<number> => fc.double({ min: 0, max: 1, noNaN: true });
  const featureArb = fc.record({
    kbCoverage: unit(),
    infoCoverage: unit(),
    titleCoverage: unit(),
    titleWithLabels: unit(),
    noteMissing: unit(),
    maxCovered: unit(),
    coveredInfo: unit(),
    specificCovered: unit(),
    evidence: fc.double({ min: 0, max: 4, noNaN: true }),
    summaryShare: unit(),
    phrases: unit(),
    standout: fc.double({ min: 0, max: 4, noNaN: true }),
  } satisfies Record<keyof RelevanceFeatures, fc.Arbitrary<number>>);

  it('is a probability, and more coverage never lowers it (the fitted signs are the sensible ones)', () => {
    expect(RELEVANCE_MODEL.weights.kbCoverage).toBeGreaterThan(0);
    expect(RELEVANCE_MODEL.weights.infoCoverage).toBeGreaterThan(0);
    expect(RELEVANCE_MODEL.weights.titleCoverage).toBeGreaterThan(0);
    expect(RELEVANCE_MODEL.weights.noteMissing).toBeLessThan(0);
    for (const f of ['evidence', 'summaryShare', 'phrases', 'standout'] as const) expect(RELEVANCE_MODEL.weights[f]).toBeGreaterThan(0);
    fc.assert(
      fc.property(featureArb, fc.double({ min: 0, max: 1, noNaN: true }), (f, more) => {
        const p = lexicalRelevance(f);
        expect(p).toBeGreaterThanOrEqual(0);
        expect(p).toBeLessThanOrEqual(1);
        const up = lexicalRelevance({ ...f, kbCoverage: Math.max(f.kbCoverage, more) });
        expect(up).toBeGreaterThanOrEqual(p);
        const moreEvidence = lexicalRelevance({ ...f, evidence: f.evidence + more });
        expect(moreEvidence).toBeGreaterThanOrEqual(p);
      }),
    );
  });

  it('says a note covering every specific word is relevant and one sharing a generic word is not', () => {
    const all = lexicalRelevance({
      kbCoverage: 1,
      infoCoverage: 1,
      titleCoverage: 0.5,
      titleWithLabels: 0.5,
      noteMissing: 0,
      maxCovered: 0.9,
      coveredInfo: 0.8,
      specificCovered: 1,
      evidence: 1.5,
      summaryShare: 0.4,
      phrases: 0.6,
      standout: 1.2,
    });
    const generic = lexicalRelevance({
      kbCoverage: 0.1,
      infoCoverage: 0.15,
      titleCoverage: 0,
      titleWithLabels: 0,
      noteMissing: 0.8,
      maxCovered: 0.5,
      coveredInfo: 0.1,
      specificCovered: 0,
      evidence: 0.1,
      summaryShare: 0,
      phrases: 0,
      standout: 0.05,
    });
    expect(all).toBeGreaterThan(0.9);
    expect(generic).toBeLessThan(0.1);
  });

  it('contributions add up to the logit', () => {
    const f = {
      kbCoverage: 0.4,
      infoCoverage: 0.5,
      titleCoverage: 0.2,
      titleWithLabels: 0.2,
      noteMissing: 0.6,
      maxCovered: 0.7,
      coveredInfo: 0.3,
      specificCovered: 1,
      evidence: 0.8,
      summaryShare: 0.2,
      phrases: 0.4,
      standout: 0.5,
    };
    const c = contributions(f);
    const logit = RELEVANCE_MODEL.bias + FEATURE_NAMES.reduce((s, n) => s + c[n], 0);
    expect(lexicalRelevance(f)).toBeCloseTo(1 / (1 + Math.exp(-logit)), 12);
  });
});
