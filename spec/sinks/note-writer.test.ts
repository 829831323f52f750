import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createExclusive, moveToForgotten, noteText, slugify, withFrontmatter, writeNewNote } from '../../sinks/note-writer.js';
import { parseNote } from '../../core/note/note.js';
import { splitFrontmatter } from '../../core/frontmatter.js';

let dir = '';
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = '';
});
const tmp = (): string => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-writer-')));

describe('noteText', () => {
  it('writes a note recall reads back field for field', () => {
    const { id, slug, text } = noteText(
      {
        title: 'Size the pool: per worker',
        keyInsight: 'pool_size × workers < max_connections',
        howToApply: 'Divide max_connections\nby the worker count',
        tags: ['Postgres', 'pool', 'postgres'],
        confidence: 'high',
        learningType: 'bug-fix',
        body: '## Problem\nToo many connections.',
      },
      new Date(2026, 10, 30, 12, 0, 0),
    );
    expect(slug).toBe('size-the-pool-per-worker');
    expect(id).toMatch(/^lrn-size-the-pool-per-worker-[0-9a-f]{6}$/);
    const n = parseNote(text, `documents/${slug}.md`, 'documents');
    expect(n).toMatchObject({
      key: id,
      title: 'Size the pool: per worker',
      keyInsight: 'pool_size × workers < max_connections',
      howToApply: 'Divide max_connections by the worker count',
      tags: ['postgres', 'pool'],
      confidence: 'HIGH',
      confidenceNum: 0.9,
      learningType: 'bug-fix',
      supersededBy: null,
    });
    expect(n.frontmatter).toMatchObject({ type: 'learning', created: '2026-11-30', updated: '2026-11-30' });
    expect(n.body).toContain('## Problem');
  });

  it('keeps hostile text inside YAML strings: no key can be smuggled into the header', () => {
    const { text } = noteText({ title: 'x"\nsuperseded_by: evil\n---', keyInsight: 'y' }, new Date());
    const { frontmatter } = splitFrontmatter(text);
    expect(frontmatter['superseded_by']).toBeNull();
    expect(frontmatter['title']).toBe('x"\nsuperseded_by: evil\n---');
  });

  it('slugs are ascii, bounded and never empty', () => {
    expect(slugify('Ünïcode — Title!')).toBe('unicode-title');
    expect(slugify('???')).toBe('note');
    expect(slugify('a'.repeat(200)).length).toBeLessThanOrEqual(60);
  });
});

describe('createExclusive / writeNewNote', () => {
  it('never overwrites: a taken name gets -2, and no temp file is left behind', () => {
    const d = tmp();
    expect(createExclusive(path.join(d, 'a.md'), 'one')).toBe(true);
    expect(createExclusive(path.join(d, 'a.md'), 'two')).toBe(false);
    expect(fs.readFileSync(path.join(d, 'a.md'), 'utf8')).toBe('one');
    expect(writeNewNote(d, 'a', 'three')).toBe(path.join(d, 'a-2.md'));
    expect(fs.readdirSync(d).sort()).toEqual(['a-2.md', 'a.md']);
  });
});

describe('withFrontmatter', () => {
  it('sets keys and keeps comments, order and quoting of the others', () => {
    const text = '---\n# owner: payments\nid: lrn-x   # stable\ntitle: "Quoted: title"\ntags: [a, b]\n---\nBody\n';
    const out = withFrontmatter(text, { superseded_by: 'lrn-y' });
    expect(out).toBe(
      '---\n# owner: payments\nid: lrn-x # stable\ntitle: "Quoted: title"\ntags: [ a, b ]\nsuperseded_by: lrn-y\n---\nBody\n',
    );
    expect(parseNote(out, 'documents/x.md', 'documents').supersededBy).toBe('lrn-y');
  });

  it('replaces an existing value and gives a plain note a header', () => {
    expect(withFrontmatter('---\nid: a\nsuperseded_by: null\n---\nB\n', { superseded_by: 'b' })).toBe(
      '---\nid: a\nsuperseded_by: b\n---\nB\n',
    );
    const plain = withFrontmatter('# Title\n\ntext\n', { superseded_by: 'b' });
    expect(splitFrontmatter(plain)).toMatchObject({ frontmatter: { superseded_by: 'b' }, body: '# Title\n\ntext\n' });
  });

  it('refuses a header that does not parse', () => {
    expect(() => withFrontmatter('---\ntitle: [oops\n---\n', { a: 1 })).toThrow(/invalid YAML frontmatter/);
    expect(() => withFrontmatter('---\n- a\n---\n', { a: 1 })).toThrow(/not a mapping/);
  });
});

describe('moveToForgotten', () => {
  it('moves the note and its sidecar, keeps the sub-path, and suffixes a taken name', () => {
    const d = tmp();
    const docs = path.join(d, 'documents');
    fs.mkdirSync(path.join(docs, 'deploy'), { recursive: true });
    fs.writeFileSync(path.join(docs, 'deploy/x.md'), 'one');
    fs.writeFileSync(path.join(docs, 'deploy/x.entities.yaml'), 'entities: []');
    const to = moveToForgotten(path.join(docs, 'deploy/x.md'), docs, path.join(docs, '.forgotten'));
    expect(to).toBe(path.join(docs, '.forgotten/deploy/x.md'));
    expect(fs.existsSync(path.join(docs, '.forgotten/deploy/x.entities.yaml'))).toBe(true);
    expect(fs.existsSync(path.join(docs, 'deploy/x.md'))).toBe(false);
    fs.writeFileSync(path.join(docs, 'deploy/x.md'), 'two');
    expect(moveToForgotten(path.join(docs, 'deploy/x.md'), docs, path.join(docs, '.forgotten'))).toBe(
      path.join(docs, '.forgotten/deploy/x.1.md'),
    );
    // Both forgotten copies keep the note's path id.
    expect(parseNote('two', 'documents/.forgotten/deploy/x.1.md', 'forgotten').key).toBe('deploy/x');
  });
});
