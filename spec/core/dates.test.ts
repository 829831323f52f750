import { describe, it, expect } from '@jest/globals';
import fc from 'fast-check';
import { parseNote } from '../../core/note/note.js';
import { parseLooseDate, toNaiveIso } from '../../core/dates.js';

/** A note file with the given frontmatter lines and body. */
const md = (fm: string, body = 'Body text.\n'): string => `---\n${fm}\n---\n${body}`;
const parse = (text: string) => parseNote(text, 'documents/n.md', 'documents');
const local = (y: number, m: number, d: number, hh = 0, mi = 0, ss = 0, ms = 0): number => new Date(y, m - 1, d, hh, mi, ss, ms).getTime();

describe('dates', () => {
  const fields = {
    archived: ['2026-05-01', local(2026, 5, 1)],
    updated_at: ['2026-04-01', local(2026, 4, 1)],
    updated: ['2026-03-01', local(2026, 3, 1)],
    created: ['2026-02-01', local(2026, 2, 1)],
    date: ['2026-01-01', local(2026, 1, 1)],
  } as const;
  const order = ['archived', 'updated_at', 'updated', 'created', 'date'] as const;
  const header = '<!-- archived: 2025-12-01T10:00:00Z -->';
  const headerMs = Date.UTC(2025, 11, 1, 10);

  it('takes dateMs from archived > updated_at > updated > created > date, then the body header', () => {
    order.forEach((field, i) => {
      const present = order.slice(i);
      const fm = present.map((f) => `${f}: ${fields[f][0]}`).join('\n');
      expect({ field, dateMs: parse(md(fm, `${header}\n`)).dateMs }).toEqual({ field, dateMs: fields[field][1] });
    });
    expect(parse(md('id: x', `${header}\n`)).dateMs).toBe(headerMs);
    expect(parse(md('id: x')).dateMs).toBeNull();
  });

  it('skips unparsable frontmatter dates', () => {
    expect(parse(md('updated_at: soon\ncreated: 2026-02-01')).dateMs).toBe(local(2026, 2, 1));
  });

  it('finds the archived header anywhere in the body', () => {
    const note = parse(md('id: x', '# Title\n\nSome text.\n<!-- archived: 2026-01-05T10:00:00+00:00 -->\nMore.\n'));
    expect(note.archivedAt).toBe('2026-01-05T10:00:00+00:00');
    expect(note.recencyMs).toBe(Date.UTC(2026, 0, 5, 10));
  });

  it('prefers the header for recency, and falls back to dateMs', () => {
    const withHeader = parse(md('updated: 2026-03-01', `${header}\n`));
    expect(withHeader.dateMs).toBe(local(2026, 3, 1));
    expect(withHeader.recencyMs).toBe(headerMs);
    const without = parse(md('updated: 2026-03-01'));
    expect(without.archivedAt).toBeNull();
    expect(without.recencyMs).toBe(local(2026, 3, 1));
  });
});

describe('parseLooseDate', () => {
  it('reads a bare date as local midnight', () => {
    expect(parseLooseDate('2026-03-10')?.getTime()).toBe(local(2026, 3, 10));
    expect(parseLooseDate('2026-3-5')?.getTime()).toBe(local(2026, 3, 5));
  });

  it('reads a naive datetime as local time, with fractions to the millisecond', () => {
    expect(parseLooseDate('2026-03-10T10:20:30')?.getTime()).toBe(local(2026, 3, 10, 10, 20, 30));
    expect(parseLooseDate('2026-03-10 10:20')?.getTime()).toBe(local(2026, 3, 10, 10, 20));
    expect(parseLooseDate('2026-03-10T10:20:30.123456')?.getTime()).toBe(local(2026, 3, 10, 10, 20, 30, 123));
  });

  it('reads Z as the exact UTC instant', () => {
    expect(parseLooseDate('2026-03-10T10:00:00Z')?.getTime()).toBe(Date.UTC(2026, 2, 10, 10));
  });

  it('applies numeric offsets', () => {
    expect(parseLooseDate('2026-03-10T10:00:00+05:30')?.getTime()).toBe(Date.UTC(2026, 2, 10, 4, 30));
    expect(parseLooseDate('2026-03-10T10:00:00+0530')?.getTime()).toBe(Date.UTC(2026, 2, 10, 4, 30));
    expect(parseLooseDate('2026-03-10T10:00:00-08:00')?.getTime()).toBe(Date.UTC(2026, 2, 10, 18));
  });

  it('rejects impossible dates and times', () => {
    for (const s of ['2026-02-30', '2026-02-30T10:00:00Z', '2026-13-01', '2026-00-10', '2026-03-10T24:00', '2026-03-10T10:60']) {
      expect({ s, d: parseLooseDate(s) }).toEqual({ s, d: null });
    }
  });

  it('rejects junk and non-strings', () => {
    for (const v of ['yesterday', '', '2026/03/10', '10-03-2026', '2026-03-10T', 20260310, null, undefined, {}, true]) {
      expect({ v, d: parseLooseDate(v) }).toEqual({ v, d: null });
    }
  });

  it('passes valid Date objects through and rejects invalid ones', () => {
    const d = new Date(2026, 2, 10);
    expect(parseLooseDate(d)).toBe(d);
    expect(parseLooseDate(new Date(NaN))).toBeNull();
  });

  it('round-trips any naive local datetime through toNaiveIso', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date(1971, 0, 1), max: new Date(2100, 0, 1), noInvalidDate: true }), (d) => {
        // Compared as wall-clock text: in a DST fold the same text names two instants.
        const iso = toNaiveIso(d);
        const back = parseLooseDate(iso);
        expect(back).not.toBeNull();
        expect(toNaiveIso(back!)).toBe(iso);
        expect(back!.getMilliseconds()).toBe(d.getMilliseconds());
      }),
    );
  });
});

describe('toNaiveIso', () => {
  it('omits the fraction when milliseconds are 0', () => {
    expect(toNaiveIso(new Date(2026, 2, 10, 9, 5, 7))).toBe('2026-03-10T09:05:07');
  });

  it('prints microseconds when milliseconds are non-zero', () => {
    expect(toNaiveIso(new Date(2026, 2, 10, 9, 5, 7, 5))).toBe('2026-03-10T09:05:07.005000');
    expect(toNaiveIso(new Date(2026, 2, 10, 9, 5, 7, 500))).toBe('2026-03-10T09:05:07.500000');
  });

  it('prints end-of-day 999 ms as .999999', () => {
    expect(toNaiveIso(new Date(2026, 2, 10, 23, 59, 59, 999))).toBe('2026-03-10T23:59:59.999999');
  });
});
