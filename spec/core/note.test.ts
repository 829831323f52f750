import { describe, it, expect } from '@jest/globals';
import { createHash } from 'node:crypto';
import { howToApply, parseNote, str } from '../../core/note/note.js';

/** A note file with the given frontmatter lines and body. */
const md = (fm: string, body = 'Body text.\n'): string => `---\n${fm}\n---\n${body}`;
const parse = (text: string) => parseNote(text, 'documents/n.md', 'documents');
/** Text that is not a KB file (an engine's chunk): identity falls back to the reference's hash. */
const chunk = (text: string) => parseNote(text, 'reflect:0', 'documents');
const sha1_12 = (s: string): string => createHash('sha1').update(s).digest('hex').slice(0, 12);

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

  it('reads a Claude Code memory file (name, description, metadata.type)', () => {
    const note = parseNote(
      md(
        'name: db-tests-hit-real-db\ndescription: Integration tests must hit a real database, not mocks\nmetadata:\n  type: feedback',
        'Use the docker postgres.\n\n**Why:** mocks hid a broken migration.\n**How to apply:** run `make db` before the suite.\n',
      ),
      'feedback_db_tests.md',
      'documents',
    );
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

describe('Claude Code memory files', () => {
  it('carry their body as how-to-apply when it has no "How to apply:" line, so the fix reaches the agent', () => {
    const text =
      '---\nname: tf\ndescription: "terraform state lock is stuck"\nmetadata:\n  type: project\n---\nUse force-unlock with the lock id.\n';
    const n = parseNote(text, 'tf.md', 'documents');
    expect(n.title).toBe('terraform state lock is stuck');
    expect(n.howToApply).toBe('Use force-unlock with the lock id.');
    const explicit = parseNote(`${text}\n**How to apply:** check no apply runs first.\n`, 'tf.md', 'documents');
    expect(explicit.howToApply).toBe('check no apply runs first.');
  });
});
