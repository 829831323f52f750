import { describe, it, expect } from '@jest/globals';
import { extractTemporal, mayContainDate, temporalToJson, type TemporalConstraint } from '../../sources/query/temporal-grammar.js';

/** Wednesday 2026-06-10 12:00 local time. */
const REF = new Date(2026, 5, 10, 12, 0, 0);

const dayStart = (y: number, m: number, d: number): Date => new Date(y, m - 1, d, 0, 0, 0, 0);
const dayEnd = (y: number, m: number, d: number): Date => new Date(y, m - 1, d, 23, 59, 59, 999);
const EPOCH = dayStart(1970, 1, 1);

function extract(text: string): TemporalConstraint {
  const c = extractTemporal(text, REF);
  if (!c) throw new Error(`expected a window for ${JSON.stringify(text)}`);
  return c;
}

function expectWindow(text: string, start: Date, end: Date): TemporalConstraint {
  const c = extract(text);
  expect({ text, start: c.start, end: c.end }).toEqual({ text, start, end });
  return c;
}

type Ymd = [number, number, number];
/** [query, first day, last day] — day-aligned windows. */
const POSITIVE: Array<[string, Ymd, Ymd]> = [
  ['yesterday', [2026, 6, 9], [2026, 6, 9]],
  ['today', [2026, 6, 10], [2026, 6, 10]],
  ['last week', [2026, 6, 1], [2026, 6, 7]],
  ['last month', [2026, 5, 1], [2026, 5, 31]],
  ['last year', [2025, 1, 1], [2025, 12, 31]],
  ['in march', [2026, 3, 1], [2026, 3, 31]],
  ['march 2024', [2024, 3, 1], [2024, 3, 31]],
  ['3 days ago', [2026, 6, 7], [2026, 6, 7]],
  ['between 2026-01-05 and 2026-01-12', [2026, 1, 5], [2026, 1, 12]],
  ['between 2026-01-12 and 2026-01-05', [2026, 1, 5], [2026, 1, 12]],
  ['last sprint', [2026, 5, 13], [2026, 5, 27]],
  ['in 2024', [2024, 1, 1], [2024, 12, 31]],
  ['last weekend', [2026, 6, 6], [2026, 6, 7]],
  ['a couple of days ago', [2026, 6, 7], [2026, 6, 9]],
  ['last 7 days', [2026, 6, 3], [2026, 6, 10]],
  ['last friday', [2026, 6, 5], [2026, 6, 5]],
  ['this sprint', [2026, 5, 27], [2026, 6, 10]],
  ['in november', [2025, 11, 1], [2025, 11, 30]],
  ['two days ago', [2026, 6, 8], [2026, 6, 8]],
];

/** Modifier cases: [query, start, end] with exact instants. */
const MODIFIED: Array<[string, Date, Date]> = [
  ['since 2026-06-01', dayStart(2026, 6, 1), dayEnd(2026, 6, 10)],
  ['before march 2024', EPOCH, dayEnd(2024, 2, 29)],
  ['since last week', dayStart(2026, 6, 1), dayEnd(2026, 6, 10)],
  ['after 2026-06-01', dayStart(2026, 6, 2), dayEnd(2026, 6, 10)],
  ['until march 2024', EPOCH, dayEnd(2024, 3, 31)],
];

const NEGATIVE = [
  'fix the auth bug in the login flow',
  'before the rewrite',
  'before the auth commit landed',
  'may I see the logs',
  'march the troops forward',
  'tmux kill-server destroyed all my sessions',
  'how do we deploy services now',
  'what is our current auth convention',
  '',
  '   ',
];

describe('extractTemporal: grammar windows', () => {
  it.each(POSITIVE)('%s', (text, [y1, m1, d1], [y2, m2, d2]) => {
    expectWindow(text, dayStart(y1, m1, d1), dayEnd(y2, m2, d2));
  });

  it('finds the phrase inside a longer query, case-insensitively', () => {
    const c = expectWindow('What did we decide about caching LAST WEEK?', dayStart(2026, 6, 1), dayEnd(2026, 6, 7));
    expect(c.matchedText).toBe('last week');
  });

  it('the first pass that matches wins, not the leftmost phrase', () => {
    // "in march" (pass 5) comes first in the text, but "yesterday" (pass 2) wins.
    expectWindow('in march we broke what yesterday fixed', dayStart(2026, 6, 9), dayEnd(2026, 6, 9));
  });

  it('matchedText for bare month and year is the month/year token', () => {
    expect(extract('errors during march').matchedText).toBe('march');
    expect(extract('refactor in 2024').matchedText).toBe('2024');
  });

  it('skips invalid ISO lookalikes and uses the next valid date', () => {
    expectWindow('from 2026-02-30 to 2026-03-05', dayStart(2026, 3, 5), dayEnd(2026, 3, 5));
    expect(extractTemporal('on 2026-02-30', REF)).toBeNull();
  });

  it('word boundaries: "yesterday" inside another word does not count', () => {
    expect(extractTemporal('the yesterdays table migration', REF)).toBeNull();
  });
});

describe('extractTemporal: modifiers', () => {
  it.each(MODIFIED)('%s', (text, start, end) => {
    expectWindow(text, start, end);
  });

  it('prefixes matchedText with the modifier word', () => {
    expect(extract('since last week').matchedText).toBe('since last week');
    expect(extract('before march 2024').matchedText).toBe('before march 2024');
    expect(extract('since march').matchedText).toBe('since march');
  });

  it('an inverted modifier keeps the plain anchor', () => {
    const c = expectWindow('after today', dayStart(2026, 6, 10), dayEnd(2026, 6, 10));
    expect(c.matchedText).toBe('today');
  });
});

describe('extractTemporal: null cases', () => {
  it.each(NEGATIVE)('%j → null', (text) => {
    expect(extractTemporal(text, REF)).toBeNull();
  });

  it('never throws on odd input', () => {
    expect(extractTemporal(undefined as unknown as string, REF)).toBeNull();
    expect(extractTemporal('yesterday', new Date(Number.NaN))).toBeNull();
  });
});

describe('extractTemporal: confidence', () => {
  const conf = (text: string): number => extract(text).confidence;

  it('ISO > last week > in march > last sprint', () => {
    expect(conf('2026-06-01')).toBe(1);
    expect(conf('2026-06-01')).toBeGreaterThan(conf('last week'));
    expect(conf('last week')).toBeGreaterThan(conf('in march'));
    expect(conf('in march')).toBeGreaterThan(conf('last sprint'));
  });

  it('"march 2024" > "in march"', () => {
    expect(conf('march 2024')).toBeGreaterThan(conf('in march'));
  });

  it('"a couple of days ago" is below 0.9', () => {
    expect(conf('a couple of days ago')).toBeLessThan(0.9);
  });
});

describe('extractTemporal: chrono fallback', () => {
  it('parses a phrase the grammar does not cover', () => {
    const c = expectWindow('what did we change on March 5, 2026', dayStart(2026, 3, 5), dayEnd(2026, 3, 5));
    expect(c.confidence).toBe(1);
    expect(c.matchedText).toBe('march 5, 2026');
  });

  it('uses 0.8 when the year is implied', () => {
    const c = expectWindow('the outage on june 3', dayStart(2026, 6, 3), dayEnd(2026, 6, 3));
    expect(c.confidence).toBe(0.8);
  });

  it('ignores time-only results and bare fractions', () => {
    expect(extractTemporal('the cron fires at 12:30', REF)).toBeNull();
    expect(extractTemporal('1/2 of the tests are flaky', REF)).toBeNull();
  });
});

describe('temporalToJson', () => {
  it('formats last week like Python isoformat', () => {
    expect(temporalToJson(extract('last week'))).toEqual({
      start: '2026-06-01T00:00:00',
      end: '2026-06-07T23:59:59.999999',
      confidence: 0.9,
      matched_text: 'last week',
    });
  });

  it('prints other milliseconds as .mmm000 and rounds confidence', () => {
    const json = temporalToJson({
      start: new Date(2026, 0, 2, 3, 4, 5, 60),
      end: new Date(2026, 0, 2, 3, 4, 5, 999),
      confidence: 0.666666,
      matchedText: 'x',
    });
    expect(json.start).toBe('2026-01-02T03:04:05.060000');
    expect(json.confidence).toBe(0.67);
  });
});

describe('mayContainDate', () => {
  it('is false for a plain query', () => {
    expect(mayContainDate('postgres connection pool exhausted in tests')).toBe(false);
    expect(mayContainDate('')).toBe(false);
  });

  it.each([...POSITIVE.map(([t]) => t), ...MODIFIED.map(([t]) => t), 'what did we change on March 5, 2026', '2026-06-01'])(
    'is true for %j',
    (text) => {
      expect(mayContainDate(text)).toBe(true);
    },
  );
});
