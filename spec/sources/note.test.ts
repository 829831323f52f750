import { describe, it, expect } from '@jest/globals';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  confidenceNum,
  confidenceTier,
  howToApply,
  normaliseProject,
  parseNote,
  parseTags,
  proofCount,
  str,
} from '../../core/note.js';
import { FrontmatterError, parseYamlMapping, splitFrontmatter } from '../../core/frontmatter.js';
import { parseLooseDate, toNaiveIso } from '../../core/dates.js';

/** A note file with the given frontmatter lines and body. */
const md = (fm: string, body = 'Body text.\n'): string => `---\n${fm}\n---\n${body}`;
const parse = (text: string) => parseNote(text, 'documents/n.md', 'documents');
/** Text that is not a KB file (an engine's chunk): identity falls back to the reference's hash. */
const chunk = (text: string) => parseNote(text, 'reflect:0', 'documents');
const sha1_12 = (s: string): string => createHash('sha1').update(s).digest('hex').slice(0, 12);
const local = (y: number, m: number, d: number, hh = 0, mi = 0, ss = 0, ms = 0): number =>
  new Date(y, m - 1, d, hh, mi, ss, ms).getTime();

function expectFrontmatterError(fn: () => unknown, message: RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(FrontmatterError);
  expect((caught as FrontmatterError).code).toBe('E_FRONTMATTER');
  expect((caught as FrontmatterError).message).toMatch(message);
}

describe('parseNote identity', () => {
  it('keys a note by id, then name', () => {
    const both = parse(md('id: lrn-1\nname: named'));
    expect([both.key, both.displayId]).toEqual(['lrn-1', 'lrn-1']);
    const named = parse(md('name: named'));
    expect([named.key, named.displayId]).toEqual(['named', 'named']);
  });

  it('gives a KB file without id or name one id from its path, shown and keyed alike, stable across edits', () => {
    const text = '\n\n# A memory file\nno frontmatter here\n\n';
    const note = parseNote(text, 'documents/deploy/rollback.md', 'documents');
    expect([note.key, note.displayId]).toEqual(['deploy/rollback', 'deploy/rollback']);
    expect(parseNote('# edited', 'documents/deploy/rollback.md', 'documents').key).toBe('deploy/rollback');
    // The same id wherever the note sits: a flat KB, archived/, documents/.forgotten/ (with a collision suffix).
    expect(parseNote(text, 'deploy/rollback.md', 'documents').key).toBe('deploy/rollback');
    expect(parseNote(text, 'archived/deploy/rollback.md', 'archived').key).toBe('deploy/rollback');
    expect(parseNote(text, 'documents/.forgotten/plain.2.md', 'forgotten').key).toBe('plain');
    expect(parseNote(text, 'documents/v1.2.md', 'documents').key).toBe('v1.2');
    // Title: the first heading, else the file name.
    expect(note.title).toBe('A memory file');
    expect(parseNote('no heading', 'documents/plain.md', 'documents').title).toBe('plain');
  });

  it('falls back to sha1 of the first 256 characters of the stripped text for engine chunks', () => {
    const text = '\n\n# A memory file\nno frontmatter here\n\n';
    const note = chunk(text);
    expect(note.key).toMatch(/^[0-9a-f]{12}$/);
    expect(note.key).toBe(sha1_12(text.trim()));
    expect(note.displayId).toBe(note.key);
    expect(chunk('# Another memory').key).not.toBe(note.key);
  });

  it("reads a Claude Code memory file (name, description, metadata.type)", () => {
    const note = parseNote(md('name: db-tests-hit-real-db\ndescription: Integration tests must hit a real database, not mocks\nmetadata:\n  type: feedback', 'Use the docker postgres.\n\n**Why:** mocks hid a broken migration.\n**How to apply:** run `make db` before the suite.\n'), 'feedback_db_tests.md', 'documents');
    expect(note.key).toBe('db-tests-hit-real-db');
    expect(note.keyInsight).toBe('Integration tests must hit a real database, not mocks');
    expect(note.title).toBe('Integration tests must hit a real database, not mocks');
    expect(note.howToApply).toBe('run `make db` before the suite.');
  });

  it('hashes only the first 256 characters', () => {
    const head = 'h'.repeat(256);
    const a = chunk(`${head} tail one`);
    const b = chunk(`${head} tail two`);
    expect(a.key).toBe(b.key);
    expect(a.key).toBe(sha1_12(head));
  });

  // The reference slices chunk_text[:256] by code points, not UTF-16 units.
  it('hashes the first 256 code points, as the reference does (astral characters)', () => {
    const text = '\u{1F600}'.repeat(300);
    expect(chunk(text).key).toBe(sha1_12([...text].slice(0, 256).join('')));
  });

  it('uses the path id when frontmatter has neither id nor name', () => {
    const note = parse(md('title: Untitled'));
    expect([note.key, note.displayId]).toEqual(['n', 'n']);
  });

  it('records path, location, body, chunk text and content hash', () => {
    const text = md('id: lrn-1', '\n\nHello body\n');
    const note = parseNote(text, 'archived/lrn-1.md', 'archived');
    expect(note.path).toBe('archived/lrn-1.md');
    expect(note.location).toBe('archived');
    expect(note.body).toBe('Hello body\n');
    expect(note.chunkText).toBe(text.trim());
    expect(note.contentHash).toBe(createHash('sha256').update(text).digest('hex'));
  });
});

describe('parseNote title', () => {
  it('strips quotes from the title', () => {
    expect(parse(md(`title: "'Quoted title'"`)).title).toBe('Quoted title');
    expect(parse(md(`title: '"Double"'`)).title).toBe('Double');
  });

  it('falls back to name, then the first heading, then the file name, then "(no title)"', () => {
    expect(parse(md('name: the-name')).title).toBe('the-name');
    expect(parse(md('id: x', '# Heading here\ntext')).title).toBe('Heading here');
    expect(parse(md('id: x')).title).toBe('n');
    expect(chunk(md('id: x\ntitle: ""')).title).toBe('(no title)');
  });
});

describe('confidence', () => {
  it.each<[string, string, number]>([
    ['confidence: high', 'HIGH', 0.9],
    ['confidence: Medium', 'MEDIUM', 0.6],
    ['confidence: low', 'LOW', 0.3],
    ['confidence: med', 'MED', 0.6],
    ['confidence: 0.85', 'HIGH', 0.85],
    ['confidence: 0.6', 'MEDIUM', 0.6],
    ['confidence: 0.2', 'LOW', 0.2],
    ['id: x', 'MEDIUM', 0.6],
    ['confidence: true', 'TRUE', 0.6],
    ['confidence: weird', 'WEIRD', 0.6],
  ])('%s → tier %s, num %p', (fm, tier, num) => {
    const note = parse(md(fm));
    expect(note.confidence).toBe(tier);
    expect(note.confidenceNum).toBeCloseTo(num, 12);
  });

  it('maps tiers with confidenceTier', () => {
    expect(confidenceTier(undefined)).toBe('MEDIUM');
    expect(confidenceTier(null)).toBe('MEDIUM');
    expect(confidenceTier('')).toBe('MEDIUM');
    expect(confidenceTier(' high ')).toBe('HIGH');
    expect(confidenceTier(0.8)).toBe('HIGH');
    expect(confidenceTier(0.5)).toBe('MEDIUM');
    expect(confidenceTier(0.49)).toBe('LOW');
    expect(confidenceTier(true)).toBe('TRUE');
    expect(confidenceTier(false)).toBe('FALSE');
  });

  it('prefers confidence_num, then numeric confidence, then the tier midpoint', () => {
    expect(confidenceNum({ confidence_num: 0.42, confidence: 0.95 }, 'HIGH')).toBe(0.42);
    expect(confidenceNum({ confidence: 0.95 }, 'HIGH')).toBe(0.95);
    expect(confidenceNum({ confidence: '0.7' }, '0.7')).toBe(0.7);
    expect(confidenceNum({ confidence_num: '0.75' }, 'LOW')).toBe(0.75);
    expect(confidenceNum({}, 'HIGH')).toBe(0.9);
    expect(confidenceNum({}, 'MEDIUM')).toBe(0.6);
    expect(confidenceNum({}, 'MED')).toBe(0.6);
    expect(confidenceNum({}, 'LOW')).toBe(0.3);
    expect(confidenceNum({}, 'TRUE')).toBe(0.6);
  });

  it('clamps to 0..1 and ignores NaN, bools and junk', () => {
    expect(confidenceNum({ confidence_num: 1.7 }, 'LOW')).toBe(1);
    expect(confidenceNum({ confidence_num: -0.4 }, 'HIGH')).toBe(0);
    expect(confidenceNum({ confidence_num: NaN }, 'LOW')).toBe(0.3);
    expect(confidenceNum({ confidence_num: NaN, confidence: 0.7 }, 'MEDIUM')).toBe(0.7);
    expect(confidenceNum({ confidence_num: true }, 'LOW')).toBe(0.3);
    expect(confidenceNum({ confidence_num: 'lots' }, 'HIGH')).toBe(0.9);
    expect(confidenceNum({ confidence_num: '' }, 'HIGH')).toBe(0.9);
    expect(parse(md('confidence: high\nconfidence_num: .nan')).confidenceNum).toBe(0.9);
    expect(parse(md('confidence_num: 3')).confidenceNum).toBe(1);
  });
});

describe('tags', () => {
  it('reads a YAML list, lower-cased, trimmed, deduped in order', () => {
    expect(parse(md('tags: [Tmux, shell, tmux, " Ops "]')).tags).toEqual(['tmux', 'shell', 'ops']);
    expect(parse(md('tags:\n  - a\n  - b')).tags).toEqual(['a', 'b']);
  });

  it('reads "[a, b]" and "a, b" strings', () => {
    expect(parse(md(`tags: "[a, b]"`)).tags).toEqual(['a', 'b']);
    expect(parse(md('tags: a, b')).tags).toEqual(['a', 'b']);
    expect(parseTags('[x,y,,z]')).toEqual(['x', 'y', 'z']);
  });

  it('yields [] for junk', () => {
    expect(parse(md('tags: 5')).tags).toEqual([]);
    expect(parse(md('tags: {a: 1}')).tags).toEqual([]);
    expect(parse(md('id: x')).tags).toEqual([]);
    expect(parseTags(null)).toEqual([]);
    expect(parseTags(true)).toEqual([]);
  });

  it('drops non-scalar list entries and stringifies numbers', () => {
    expect(parseTags([{ a: 1 }, ['n'], 7, 'x', ''])).toEqual(['7', 'x']);
  });
});

describe('proof count', () => {
  it('reads top-level proof_count, then provenance.proof_count', () => {
    expect(parse(md('proof_count: 3')).proofCount).toBe(3);
    expect(parse(md('provenance:\n  proof_count: 4')).proofCount).toBe(4);
    expect(parse(md('proof_count: 2\nprovenance:\n  proof_count: 9')).proofCount).toBe(2);
    expect(proofCount({ proof_count: '5' })).toBe(5);
    expect(proofCount({ proof_count: 0 })).toBe(0);
  });

  it('yields null for bools, negatives, fractions and junk', () => {
    expect(parse(md('proof_count: true')).proofCount).toBeNull();
    expect(parse(md('proof_count: many')).proofCount).toBeNull();
    expect(parse(md('id: x')).proofCount).toBeNull();
    expect(proofCount({ proof_count: -2 })).toBeNull();
    expect(proofCount({ proof_count: 2.5 })).toBeNull();
    expect(proofCount({ provenance: { proof_count: false } })).toBeNull();
    expect(proofCount({ provenance: 'x' })).toBeNull();
  });
});

describe('project', () => {
  it.each<[unknown, string]>([
    ['My-App', 'my-app'],
    ['/Users/x/dev/My-App/', 'my-app'],
    ['/Users/x/dev/My-App', 'my-app'],
    ['C:\\dev\\My-App\\', 'my-app'],
    ['  My-App  ', 'my-app'],
    ['', ''],
    ['/', ''],
    [null, ''],
    [undefined, ''],
    [true, ''],
  ])('normaliseProject(%p) = %p', (value, expected) => {
    expect(normaliseProject(value)).toBe(expected);
  });

  it('prefers project_id and falls back to project', () => {
    expect(parse(md('project_id: /Users/x/dev/My-App/')).projectId).toBe('my-app');
    expect(parse(md('project: Other')).projectId).toBe('other');
    expect(parse(md('project_id: Main\nproject: Other')).projectId).toBe('main');
    expect(parse(md('project_id: ""\nproject: Other')).projectId).toBe('other');
    expect(parse(md('id: x')).projectId).toBe('');
  });
});

describe('other fields', () => {
  it.each<[string, boolean]>([
    ['quarantine: true', true],
    ['quarantine: "yes"', true],
    ['quarantine: yes', true],
    ['quarantine: "1"', true],
    ['quarantine: 1', true],
    ['quarantine: false', false],
    ['quarantine: no', false],
    ['id: x', false],
  ])('%s → quarantine %p', (fm, expected) => {
    expect(parse(md(fm)).quarantine).toBe(expected);
  });

  it('lower-cases domain, authority, status and learning type', () => {
    const n = parse(md('domain: Infra\nauthority: LAW\nstatus: Active\nlearning_type: Gotcha'));
    expect([n.domain, n.authority, n.status, n.learningType]).toEqual(['infra', 'law', 'active', 'gotcha']);
  });

  it('reads discovery_tokens only as a non-negative integer', () => {
    expect(parse(md('discovery_tokens: 1200')).discoveryTokens).toBe(1200);
    expect(parse(md('discovery_tokens: -1')).discoveryTokens).toBeNull();
    expect(parse(md('discovery_tokens: "1200"')).discoveryTokens).toBeNull();
  });

  it('treats superseded_by "null" (any case) and YAML null as not superseded', () => {
    expect(parse(md('superseded_by: "null"')).supersededBy).toBeNull();
    expect(parse(md('superseded_by: "NULL"')).supersededBy).toBeNull();
    expect(parse(md('superseded_by: null')).supersededBy).toBeNull();
    expect(parse(md('superseded_by: lrn-2')).supersededBy).toBe('lrn-2');
  });

  it('takes the declared hash from provenance.content_hash, then content_hash', () => {
    expect(parse(md('provenance:\n  content_hash: abc\ncontent_hash: def')).declaredHash).toBe('abc');
    expect(parse(md('content_hash: def')).declaredHash).toBe('def');
    expect(parse(md('id: x')).declaredHash).toBeNull();
  });

  it('strips quotes from key_insight', () => {
    expect(parse(md(`key_insight: "'Detach first'"`)).keyInsight).toBe('Detach first');
  });

  it('keeps the frontmatter as JSON-safe data', () => {
    const n = parse(md('id: x\nnums: [1, .inf, .nan]\nnested:\n  a: b\ncreated: 2026-03-10'));
    expect(n.frontmatter).toEqual({ id: 'x', nums: [1, null, null], nested: { a: 'b' }, created: '2026-03-10' });
  });

  it('scalar str() trims strings, prints finite numbers and bools, and blanks the rest', () => {
    expect([str('  a '), str(3), str(true), str(false), str(NaN), str([1]), str({}), str(null)]).toEqual([
      'a',
      '3',
      'true',
      'false',
      '',
      '',
      '',
      '',
    ]);
  });
});

describe('how to apply', () => {
  it('keeps the first line only', () => {
    expect(howToApply('**How to apply:** Detach first.\nThen kill the server.\n')).toBe('Detach first.');
  });

  it('accepts the text on the next line', () => {
    expect(howToApply('Intro\n\n**How to apply:**\nDetach first.\n')).toBe('Detach first.');
  });

  it('stops at a blank line', () => {
    expect(howToApply('**How to apply:** Detach first.\n\nUnrelated paragraph.')).toBe('Detach first.');
  });

  it('stops at a ** line', () => {
    expect(howToApply('**How to apply:**\nDetach first.\n**Why:** because')).toBe('Detach first.');
  });

  it('caps the line at 280 characters', () => {
    const long = 'x'.repeat(400);
    expect(howToApply(`**How to apply:** ${long}\n`)).toBe('x'.repeat(280));
  });

  it('is empty without the marker', () => {
    expect(howToApply('No marker here.')).toBe('');
    expect(parse(md('id: x', '**How to apply:** Use it.\n')).howToApply).toBe('Use it.');
  });
});

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

describe('frontmatter', () => {
  it('keeps a note without frontmatter with {} and a path key', () => {
    const text = 'Just a memory line.\n';
    expect(splitFrontmatter(text)).toEqual({ frontmatter: {}, body: text, hasFrontmatter: false });
    const note = parse(text);
    expect(note.frontmatter).toEqual({});
    expect(note.key).toBe('n');
    expect(chunk(text).key).toBe(sha1_12('Just a memory line.'));
  });

  it('splits header and body, stripping leading newlines from the body', () => {
    expect(splitFrontmatter('---\nid: x\n---  \n\n\nBody\n')).toEqual({
      frontmatter: { id: 'x' },
      body: 'Body\n',
      hasFrontmatter: true,
    });
    expect(splitFrontmatter('---\nid: x\n---')).toEqual({ frontmatter: { id: 'x' }, body: '', hasFrontmatter: true });
  });

  it('treats an empty header as {}', () => {
    expect(splitFrontmatter('---\n---\nBody')).toEqual({ frontmatter: {}, body: 'Body', hasFrontmatter: true });
  });

  it('throws FrontmatterError for a header that never closes', () => {
    expectFrontmatterError(() => splitFrontmatter('---\nid: x\nbody text\n'), /no closing/);
    expectFrontmatterError(() => parse('---\nid: x\nbody text\n'), /no closing/);
  });

  it('throws FrontmatterError naming a line for invalid YAML', () => {
    expectFrontmatterError(() => parse('---\nid: x\ntitle: a: b\n---\nbody\n'), /line/);
  });

  it('reports the file line of invalid YAML', () => {
    // Line 3 of the file holds the bad mapping entry.
    expectFrontmatterError(() => splitFrontmatter('---\nid: x\ntitle: a: b\n---\nbody\n'), /at line 3\b/);
  });

  it('throws "not a mapping" for a list or scalar header', () => {
    expectFrontmatterError(() => splitFrontmatter('---\n- a\n- b\n---\nbody'), /not a mapping/);
    expectFrontmatterError(() => splitFrontmatter('---\njust text\n---\nbody'), /not a mapping/);
  });

  it('tolerates a byte-order mark', () => {
    const note = parse('\uFEFF---\nid: lrn-bom\n---\nBody\n');
    expect(note.key).toBe('lrn-bom');
    expect(note.body).toBe('Body\n');
  });

  it('keeps ISO timestamps as strings (core schema)', () => {
    expect(splitFrontmatter('---\ncreated: 2026-03-10T10:00:00Z\n---\n').frontmatter).toEqual({ created: '2026-03-10T10:00:00Z' });
  });

  it('parseYamlMapping parses mappings and rejects the rest', () => {
    expect(parseYamlMapping('a: 1\nb: [x]')).toEqual({ a: 1, b: ['x'] });
    expect(parseYamlMapping('')).toEqual({});
    expectFrontmatterError(() => parseYamlMapping('- a'), /not a mapping/);
    expectFrontmatterError(() => parseYamlMapping('a: b: c'), /line 1/);
  });

  it('never throws anything but FrontmatterError', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'-\n:ab [] {}"\'#\t'.split('')), maxLength: 40 }), (tail) => {
        try {
          parse(`---${tail}`);
        } catch (err) {
          expect(err).toBeInstanceOf(FrontmatterError);
        }
      }),
    );
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
      fc.property(
        fc.date({ min: new Date(1971, 0, 1), max: new Date(2100, 0, 1), noInvalidDate: true }),
        (d) => {
          // Compared as wall-clock text: in a DST fold the same text names two instants.
          const iso = toNaiveIso(d);
          const back = parseLooseDate(iso);
          expect(back).not.toBeNull();
          expect(toNaiveIso(back!)).toBe(iso);
          expect(back!.getMilliseconds()).toBe(d.getMilliseconds());
        },
      ),
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
