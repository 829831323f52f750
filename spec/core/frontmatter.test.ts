import { describe, it, expect } from '@jest/globals';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { parseNote } from '../../core/note/note.js';
import { FrontmatterError, parseYamlMapping, splitFrontmatter } from '../../core/frontmatter.js';

const parse = (text: string) => parseNote(text, 'documents/n.md', 'documents');
/** Text that is not a KB file (an engine's chunk): identity falls back to the reference's hash. */
const chunk = (text: string) => parseNote(text, 'reflect:0', 'documents');
const sha1_12 = (s: string): string => createHash('sha1').update(s).digest('hex').slice(0, 12);
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
    // (`title: a: b` is read, as Claude Code reads it: see the memory-file case below.)
    expectFrontmatterError(() => parse('---\nid: x\n: a\n---\nbody\n'), /line/);
  });

  it('reports the file line of invalid YAML', () => {
    // Line 3 of the file holds the bad mapping entry.
    expectFrontmatterError(() => splitFrontmatter('---\nid: x\n: a\n---\nbody\n'), /at line 3\b/);
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

describe('values Claude Code memory files write without quotes', () => {
  it('reads a plain value holding ": " or an indicator, as Claude Code does, and still rejects broken YAML', () => {
    const { frontmatter } = splitFrontmatter(
      '---\nname: pnpm\ndescription: User preference: always use pnpm not npm\nnote: ping @here # now\ntags: [a, b]\n---\nbody\n',
    );
    expect(frontmatter['description']).toBe('User preference: always use pnpm not npm');
    expect(frontmatter['note']).toBe('ping @here # now');
    expect(frontmatter['tags']).toEqual(['a', 'b']);
    expect(() => splitFrontmatter('---\nname: x\n  bad: [unclosed\n---\n')).toThrow(/invalid YAML frontmatter/);
  });
});
