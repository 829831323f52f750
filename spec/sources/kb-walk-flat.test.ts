import { describe, it, expect, afterEach } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hasMarkdown, kbLayout, walkKb } from '../../sources/kb/walk.js';
import { isMemoryIndex } from '../../core/note/note.js';

let dir = '';
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = '';
});
function tree(files: Record<string, string>): string {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recall-flat-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe('a flat folder of markdown as a KB', () => {
  it('lists every *.md below the root, forgotten ones apart, and skips tool folders', () => {
    const root = tree({
      'a.md': 'a',
      'deploy/rollback.md': 'b',
      'deploy/rollback.entities.yaml': 'entities: []',
      '.forgotten/old.md': 'c',
      '.obsidian/workspace.md': 'x',
      '.trash/deleted.md': 'x',
      'node_modules/pkg/README.md': 'x',
      'deploy/.hidden/x.md': 'x',
      'notes.txt': 'x',
    });
    expect(kbLayout(root)).toBe('flat');
    const files = walkKb(root)
      .files.map((f) => `${f.location}:${f.kind}:${f.rel}`)
      .sort();
    expect(files).toEqual([
      'documents:note:a.md',
      'documents:note:deploy/rollback.md',
      'documents:sidecar:deploy/rollback.entities.yaml',
      'forgotten:note:.forgotten/old.md',
    ]);
  });

  it('a folder with documents/ or archived/ is a reflect KB, read as before', () => {
    const root = tree({ 'README.md': 'about this KB', 'documents/n.md': 'n' });
    expect(kbLayout(root)).toBe('reflect');
    expect(walkKb(root).files.map((f) => f.rel)).toEqual(['documents/n.md']);
  });

  it('hasMarkdown finds a note deep down and stops early on a folder without any', () => {
    expect(hasMarkdown(tree({ 'x/y/z/n.md': 'n' }))).toBe(true);
    fs.rmSync(dir, { recursive: true });
    expect(hasMarkdown(tree({ 'x/y.txt': 'n', '.obsidian/a.md': 'n' }))).toBe(false);
  });
});

describe("Claude Code's MEMORY.md", () => {
  it('is an index when every line links to another file', () => {
    expect(isMemoryIndex('MEMORY.md', '# Memory\n- [A](a.md) — hook\n* [B](team/b.md)\n')).toBe(true);
    expect(isMemoryIndex('MEMORY.md', '- [A](a.md) — hook\nThe build needs `make gen` first.\n')).toBe(false);
    expect(isMemoryIndex('notes/INDEX.md', '- [A](a.md)\n')).toBe(false);
    expect(isMemoryIndex('MEMORY.md', '')).toBe(false);
  });
});
